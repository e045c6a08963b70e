/**
 * DynamoDbTable against DynamoDB Local: one emulator for this file, a fresh table per test.
 */
import { DeleteTableCommand, DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDbTable, ensureTable, tableDefinition } from '../../packages/functions/src/aws/dynamodb-table.ts';
import { useDynamoDbLocal } from '../support/dynamodb-local.ts';
import { tableConformance } from './table.conformance.ts';

const ddb = useDynamoDbLocal('conformance');

tableConformance('DynamoDbTable (DynamoDB Local)', () => ddb.tableFixture());

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
    const tableName = `conformance-setup-${process.pid}`;
    const client = ddb.client;
    await ensureTable(client, tableName);
    await ensureTable(client, tableName);
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
    expect(ttl.TimeToLiveDescription?.AttributeName).toBe('expiresAt');
    expect(ttl.TimeToLiveDescription?.TimeToLiveStatus).toMatch(/ENABL/);
    await client.send(new DeleteTableCommand({ TableName: tableName }));
  });

  it('reports a missing table as down', async () => {
    const health = await new DynamoDbTable({ tableName: 'no-such-table', client: ddb.client }).health();
    expect(health.status).toBe('down');
    expect(health.detail).toMatch(/ResourceNotFound/);
  });
});
