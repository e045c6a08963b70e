import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { systemClock } from '@svc/core/ports/clock';
import type { Table } from '@svc/core/ports/table';
import { createStore } from '@svc/core/store/index';
import type { AppDeps } from '../api/deps.ts';
import type { AwsConfig } from './config.ts';
import { DynamoDbTable } from './dynamodb-table.ts';

/**
 * The part of AppDeps that has an AWS adapter today. Still to wire before this is a
 * full AppDeps: identity, issuer/JWT verification (config.jwt), publisher (EventBridge),
 * logger (Powertools), ApiConfig (CORS origins, secure cookies, limits) and blobs on S3.
 * Nothing here is stood in for by a local or fake implementation.
 */
export type AwsDeps = Pick<AppDeps, 'store' | 'clock' | 'healthChecks'> & { table: Table };

/** Built once per container; the SDK client is reused across invocations. */
export function buildAwsDeps(config: AwsConfig): AwsDeps {
  const client = new DynamoDBClient({ region: config.region });
  const clock = systemClock;
  const table = new DynamoDbTable({ tableName: config.tableName, client, clock });
  return {
    table,
    store: createStore(table, clock),
    clock,
    healthChecks: { database: () => table.health() },
  };
}
