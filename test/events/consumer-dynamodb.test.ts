import { DeleteTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { DynamoDbTable, ensureTable } from '../../packages/functions/src/aws/dynamodb-table.ts';
import { localClient, startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.ts';
import { consumerSuite } from './consumer.suite.ts';

let ddb: DynamoDbLocal | undefined;
let client: DynamoDBClient;
let n = 0;

beforeAll(async () => {
  ddb = await startDynamoDbLocal();
  client = localClient(ddb.endpoint);
});
afterAll(async () => {
  client?.destroy();
  await ddb?.stop();
});

consumerSuite('DynamoDB Local', async (clock) => {
  const tableName = `events-${process.pid}-${++n}`;
  await ensureTable(client, tableName);
  return {
    table: new DynamoDbTable({ tableName, client, clock }),
    cleanup: async () => {
      await client.send(new DeleteTableCommand({ TableName: tableName }));
    },
  };
});
