import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../../../packages/functions/src/aws/dynamodb-table.ts';
import { startAwsDouble } from '../../events/support/aws-double.ts';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../support/dynamodb-local.ts';
import { startS3Double, type S3Double } from '../../support/s3-double.ts';
import { startKmsDouble, type KmsDouble } from '../../support/kms-double.ts';

/** The KMS key the functions seal secrets with here (infra/secrets.ts passes the real one's ARN). */
export const WIRE_KMS_KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/5e1f7a2c-0b3d-4c8e-9f61-2a7d4b8c9e0f';

export interface AwsWire {
  ddb: DynamoDbLocal;
  ddbClient: DynamoDBClient;
  s3: S3Double;
  eventBridge: Awaited<ReturnType<typeof startAwsDouble>>;
  stepFunctions: Awaited<ReturnType<typeof startAwsDouble>>;
  kms: KmsDouble;
}

/**
 * What a bundled Lambda talks to in these tests: DynamoDB Local (with the table created),
 * the S3 double, an EventBridge double that accepts every entry (as PutEvents does when
 * all goes well), and a Step Functions double that starts every execution asked for and
 * runs none (the tests invoke the task handlers themselves, or do not need them), and a
 * KMS double holding WIRE_KMS_KEY_ARN (real AES wrapping, test/support/kms-double.ts).
 */
export async function startAwsWire(o: { table: string; bucket: string; stateMachineArn: string; region: string; credentials: { accessKeyId: string; secretAccessKey: string } }): Promise<AwsWire> {
  const [ddb, s3, eventBridge, stepFunctions, kms] = await Promise.all([
    startDynamoDbLocal(),
    startS3Double({ buckets: [o.bucket] }),
    startAwsDouble((req) => ({ body: { FailedEntryCount: 0, Entries: req.body.Entries.map(() => ({ EventId: crypto.randomUUID() })) } })),
    startAwsDouble((req) =>
      req.target === 'AWSStepFunctions.StartExecution'
        ? { body: { executionArn: `${o.stateMachineArn.replace(':stateMachine:', ':execution:')}:${req.body.name}`, startDate: Date.now() / 1000 } }
        : { status: 400, body: { __type: 'UnknownOperationException', message: req.target } },
    ),
    startKmsDouble([WIRE_KMS_KEY_ARN]),
  ]);
  const ddbClient = new DynamoDBClient({ endpoint: ddb.endpoint, region: o.region, credentials: o.credentials });
  await ensureTable(ddbClient, o.table);
  return { ddb, ddbClient, s3, eventBridge, stepFunctions, kms };
}
