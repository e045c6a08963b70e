/**
 * DynamoDbTable against DynamoDB Local: one emulator for this file, a fresh table per test.
 */
import { DeleteTableCommand, DescribeTimeToLiveCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbTable, ensureTable, tableDefinition } from '../../packages/functions/src/aws/dynamodb-table.ts';
import { localClient, startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.ts';
import { tableConformance } from './table.conformance.ts';

let ddb: DynamoDbLocal | undefined;
let client: DynamoDBClient;
let counter = 0;

beforeAll(async () => {
  ddb = await startDynamoDbLocal();
  client = localClient(ddb.endpoint);
});

afterAll(async () => {
  client?.destroy();
  await ddb?.stop();
});

const uniqueName = () => `conformance-${process.pid}-${++counter}`;

tableConformance('DynamoDbTable (DynamoDB Local)', async () => {
  const tableName = uniqueName();
  await ensureTable(client, tableName);
  return {
    table: new DynamoDbTable({ tableName, client }),
    cleanup: async () => {
      await client.send(new DeleteTableCommand({ TableName: tableName }));
    },
  };
});

describe('DynamoDbTable setup', () => {
  it('defines an on-demand table with both GSIs projecting everything', () => {
    const def = tableDefinition('t');
    expect(def.BillingMode).toBe('PAY_PER_REQUEST');
    expect(def.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(def.GlobalSecondaryIndexes?.map((g) => [g.IndexName, g.KeySchema?.map((k) => k.AttributeName), g.Projection?.ProjectionType])).toEqual([
      ['gsi1', ['gsi1pk', 'gsi1sk'], 'ALL'],
      ['gsi2', ['gsi2pk', 'gsi2sk'], 'ALL'],
    ]);
  });

  it('ensureTable is idempotent and enables TTL on expiresAt', async () => {
    const tableName = uniqueName();
    await ensureTable(client, tableName);
    await ensureTable(client, tableName);
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
    expect(ttl.TimeToLiveDescription?.AttributeName).toBe('expiresAt');
    expect(ttl.TimeToLiveDescription?.TimeToLiveStatus).toMatch(/ENABL/);
    await client.send(new DeleteTableCommand({ TableName: tableName }));
  });

  it('reports a missing table as down', async () => {
    const health = await new DynamoDbTable({ tableName: 'no-such-table', client }).health();
    expect(health.status).toBe('down');
    expect(health.detail).toMatch(/ResourceNotFound/);
  });
});
