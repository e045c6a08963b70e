import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { skippingPublisher } from '@svc/core/events/in-process-bus';
import { loadWebAsset } from '@svc/web';
import { defaultApiConfig, type AppDeps } from '../api/deps.ts';
import { buildAppDeps } from '../shared/deps.ts';
import { dataLayerChecks } from '../shared/health-checks.ts';
import { createLogger } from '../shared/logger.ts';
import { builtInIssuer, type AwsConfig } from './config.ts';
import { DynamoDbTable } from './dynamodb-table.ts';
import { S3Blobs } from './s3-blobs.ts';

/**
 * The Lambda's AppDeps: the same wiring as the local runtime (buildAppDeps) over
 * DynamoDB and S3. The built-in issuer's signing key is created once in the table, so
 * every container agrees on it and no secret is configured. Events are not published
 * yet: skippingPublisher logs and drops them until the EventBridge bus is wired.
 *
 * Built once per container; the SDK clients are reused across invocations.
 */
export async function buildAwsDeps(config: AwsConfig): Promise<AppDeps> {
  const logger = createLogger(config.logLevel, 'svc-api');
  const table = new DynamoDbTable({ tableName: config.tableName, client: new DynamoDBClient({ region: config.region }) });
  const blobs = new S3Blobs({ bucket: config.bucketName, client: new S3Client({ region: config.region }) });
  return buildAppDeps({
    table,
    publisher: skippingPublisher(logger),
    logger,
    // Function URLs are https only, so cookies are always Secure.
    api: { ...defaultApiConfig, secureCookies: true, corsOrigins: config.corsOrigins },
    issuer: { ...builtInIssuer },
    externalIssuer: config.externalIdp,
    healthChecks: dataLayerChecks({ table, blobs }),
    webAssets: loadWebAsset,
  });
}
