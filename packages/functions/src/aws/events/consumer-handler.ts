import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { S3Client } from '@aws-sdk/client-s3';
import { systemClock } from '@svc/core/ports/clock';
import type { Logger } from '@svc/core/ports/logger';
import type { Table } from '@svc/core/ports/table';
import type { EventPublisher } from '@svc/core/ports/events';
import { ConsumerRunner, type ConsumerDefinition } from '@svc/core/events/consumer';
import { apiConsumer } from '@svc/core/events/api-consumer';
import { dlqProcessor } from '@svc/core/events/dlq-processor';
import { streamAnalytics } from '@svc/core/events/stream-analytics';
import type { AlertSink, RetryScheduler } from '@svc/core/events/ports';
import type { ConsumerName } from '@svc/core/events/routing';
import { healerConsumer, type StartHealRun } from '@svc/core/events/healer-consumer';
import { knowledgeWorker, type KnowledgeWorkerDeps } from '@svc/core/knowledge/knowledge-worker';
import { S3Blobs } from '../s3-blobs.ts';
import { readAllowedFolder } from '../../intelligence/read-allowed-folder.ts';
import type { AppDeps } from '../../api/deps.ts';
import { DynamoDbTable } from '../dynamodb-table.ts';
import { createLogger } from '../../shared/logger.ts';
import { loadEventsConfig, type EventsConfig } from './config.ts';
import { EventBridgePublisher } from './eventbridge-publisher.ts';
import { EmfAlertSink } from './emf-alert-sink.ts';
import { SqsRetryScheduler } from './sqs-retry-scheduler.ts';
import { createRepublishHandler, createSqsConsumerHandler, type SqsEvent } from './sqs-handler.ts';

/**
 * Lambda entry points of the event consumers (one function per consumer queue, told
 * which by SVC_CONSUMER) and of the retry queue's republisher. The healer starts heal runs
 * on the state machine with the API's own deps (its function gets the API's run-graph
 * settings, infra/api.ts). The knowledge worker reads uploaded codebases from the artifacts
 * bucket (and folders only when a file system is mounted and SVC_ANALYZE_ROOTS names it).
 */
export function consumerDefinition(name: ConsumerName, deps: { alerts: AlertSink; startHealRun?: StartHealRun; knowledge?: KnowledgeWorkerDeps }): ConsumerDefinition {
  switch (name) {
    case 'api':
      return apiConsumer();
    case 'stream-analytics':
      return streamAnalytics();
    case 'dlq-processor':
      return dlqProcessor({ alerts: deps.alerts });
    case 'healer':
      return healerConsumer(deps.startHealRun ?? awsHealRunStarter());
    case 'knowledge-worker':
      if (!deps.knowledge) throw new Error('the knowledge worker needs its blobs (SVC_BUCKET_NAME)');
      return knowledgeWorker(deps.knowledge);
  }
}

/**
 * Heal runs on AWS: the API's deps (store, state machine), built on the first request and
 * kept. Imported then, so the other consumers' functions never load the API's modules.
 */
function awsHealRunStarter(): StartHealRun {
  let app: Promise<AppDeps> | undefined;
  const build = async () => {
    const [{ buildAwsDeps }, { loadAwsConfig }] = await Promise.all([import('../deps.ts'), import('../config.ts')]);
    return buildAwsDeps(loadAwsConfig(process.env));
  };
  return async (tenantId, request) => {
    app ??= build().catch((err: unknown) => {
      app = undefined; // tried again with the next message
      throw err;
    });
    const deps = await app;
    const { healRunStarter } = await import('../../run-graph/heal-runs.ts');
    return healRunStarter({ store: deps.store, runGraph: deps.runGraph })(tenantId, request);
  };
}

/** Builds the runner for one consumer from its ports (shared by the Lambda entry and tests). */
export function buildRunner(name: ConsumerName, deps: { table: Table; publisher: EventPublisher; logger: Logger; alerts: AlertSink; scheduler?: RetryScheduler; startHealRun?: StartHealRun; knowledge?: KnowledgeWorkerDeps }) {
  return new ConsumerRunner(consumerDefinition(name, deps), { ...deps, clock: systemClock });
}

/** The knowledge worker's blobs (S3) and folders (SVC_ANALYZE_ROOTS, usually none on Lambda). */
function awsKnowledgeDeps(bucket: string, region: string, roots: string[]): KnowledgeWorkerDeps {
  return { blobs: new S3Blobs({ bucket, client: new S3Client({ region }) }), readFolder: (path, organizationId) => readAllowedFolder(path, roots, organizationId) };
}

interface Built {
  config: EventsConfig;
  logger: Logger;
  publisher: EventBridgePublisher;
  sqs: SQSClient;
}
let built: Built | undefined;
function base(): Built {
  if (!built) {
    const config = loadEventsConfig(process.env);
    const logger = createLogger('INFO', `svc-${config.consumer ?? 'republisher'}`);
    const publisher = new EventBridgePublisher({ client: new EventBridgeClient({ region: config.region }), busName: config.busName, logger });
    built = { config, logger, publisher, sqs: new SQSClient({ region: config.region }) };
  }
  return built;
}

let consumerHandler: ((e: SqsEvent) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>) | undefined;

/** SQS-triggered consumer (batch size 10, ReportBatchItemFailures). */
export async function handler(event: SqsEvent) {
  if (!consumerHandler) {
    const { config, logger, publisher, sqs } = base();
    if (!config.consumer) throw new Error('SVC_CONSUMER must name the consumer this function runs');
    const table = new DynamoDbTable({ tableName: config.tableName, client: new DynamoDBClient({ region: config.region }) });
    const scheduler = config.retryQueueUrl ? new SqsRetryScheduler(sqs, config.retryQueueUrl) : undefined;
    const knowledge = config.bucketName ? awsKnowledgeDeps(config.bucketName, config.region, config.analyzeRoots) : undefined;
    const runner = buildRunner(config.consumer, { table, publisher, logger, alerts: new EmfAlertSink(), scheduler, knowledge });
    consumerHandler = createSqsConsumerHandler(runner, logger);
  }
  return consumerHandler(event);
}

/** Retry-queue consumer: puts due dead-letter retries back on the bus. */
export async function republishHandler(event: SqsEvent) {
  const { publisher, logger } = base();
  return createRepublishHandler(publisher, logger)(event);
}
