/**
 * The SQS side on AWS, against a local endpoint speaking SQS's wire format (AWS JSON
 * 1.0, X-Amz-Target AmazonSQS.*): the queue adapter, the dlq back-off through a delay
 * queue, the Lambda consumer handler with partial batch responses, the republisher,
 * and the alert line CloudWatch turns into a metric.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { SQSClient } from '@aws-sdk/client-sqs';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { silentLogger } from '../../packages/core/src/ports/logger.ts';
import { toBusEvent } from '../../packages/core/src/events/bus-event.ts';
import { ConsumerRunner } from '../../packages/core/src/events/consumer.ts';
import { apiConsumer, listActivity } from '../../packages/core/src/events/api-consumer.ts';
import { dlqProcessor } from '../../packages/core/src/events/dlq-processor.ts';
import { buildDeadLetter } from '../../packages/core/src/events/dead-letter.ts';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { SqsQueue } from '../../packages/functions/src/aws/events/sqs-queue.ts';
import { SqsRetryScheduler } from '../../packages/functions/src/aws/events/sqs-retry-scheduler.ts';
import { createRepublishHandler, createSqsConsumerHandler, type SqsRecord } from '../../packages/functions/src/aws/events/sqs-handler.ts';
import { EventBridgePublisher } from '../../packages/functions/src/aws/events/eventbridge-publisher.ts';
import { EmfAlertSink } from '../../packages/functions/src/aws/events/emf-alert-sink.ts';
import { loadEventsConfig } from '../../packages/functions/src/aws/events/config.ts';
import { startAwsDouble, type Responder } from './support/aws-double.ts';
import { RecordingPublisher, seedTenant, testCreatedFor, testFailedFor, uuid } from './support/fixtures.ts';

const md5 = (s: string) => createHash('md5').update(s, 'utf8').digest('hex');
const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/svc-api';
let double: Awaited<ReturnType<typeof startAwsDouble>> | undefined;
afterEach(async () => double?.close());

const sqsResponder: Responder = (req) => {
  switch (req.target) {
    case 'AmazonSQS.SendMessage':
      // The SDK checks the MD5 of the body SQS reports, as it does against the real service.
      return { body: { MessageId: uuid(), MD5OfMessageBody: md5(req.body.MessageBody) } };
    case 'AmazonSQS.ReceiveMessage':
      return { body: { Messages: [{ MessageId: 'm-1', ReceiptHandle: 'rh-1', Body: '{"a":1}', MD5OfBody: md5('{"a":1}'), Attributes: { ApproximateReceiveCount: '2' } }] } };
    case 'AmazonSQS.DeleteMessage':
      return { body: {} };
    case 'AmazonSQS.GetQueueAttributes':
      return { body: { Attributes: { ApproximateNumberOfMessages: '120', ApproximateNumberOfMessagesNotVisible: '7', ApproximateNumberOfMessagesDelayed: '3' } } };
    default:
      return { status: 400, body: { __type: 'com.amazonaws.sqs#InvalidAction', message: req.target } };
  }
};

const sqsRecord = (body: string, receiveCount = 1): SqsRecord => ({
  messageId: uuid(), receiptHandle: `rh-${uuid()}`, body,
  attributes: { ApproximateReceiveCount: String(receiveCount), SentTimestamp: String(Date.now()) },
  eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:svc-api',
});

describe('SQS queue adapter', () => {
  it('speaks AmazonSQS JSON: send, receive 10 with receive counts, delete, depth', async () => {
    double = await startAwsDouble(sqsResponder);
    const q = new SqsQueue(new SQSClient(double.clientConfig), QUEUE_URL);
    expect(q.name).toBe('svc-api');
    await q.send('hello', { delaySeconds: 4 });
    const msgs = await q.receive({ max: 50, waitMs: 20_000 });
    expect(msgs).toEqual([{ id: 'm-1', receipt: 'rh-1', body: '{"a":1}', receiveCount: 2 }]);
    expect(await q.ack('rh-1')).toBe(true);
    expect(await q.depth()).toEqual({ waiting: 123, inFlight: 7 });
    const [send, receive, del, attrs] = double.requests;
    expect(send.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(send).toMatchObject({ target: 'AmazonSQS.SendMessage', body: { QueueUrl: QUEUE_URL, MessageBody: 'hello', DelaySeconds: 4 } });
    expect(receive).toMatchObject({ target: 'AmazonSQS.ReceiveMessage', body: { QueueUrl: QUEUE_URL, MaxNumberOfMessages: 10, WaitTimeSeconds: 20, MessageSystemAttributeNames: ['ApproximateReceiveCount'] } });
    expect(del).toMatchObject({ target: 'AmazonSQS.DeleteMessage', body: { QueueUrl: QUEUE_URL, ReceiptHandle: 'rh-1' } });
    expect(attrs.target).toBe('AmazonSQS.GetQueueAttributes');
  });
});

describe('dlq back-off on AWS (retry delay queue)', () => {
  it('the dlq processor schedules the republish as a delayed SQS message: 2, 4, 8 s', async () => {
    double = await startAwsDouble(sqsResponder);
    const scheduler = new SqsRetryScheduler(new SQSClient(double.clientConfig), 'https://sqs.eu-west-1.amazonaws.com/123456789012/svc-retry');
    const table = new FileTable();
    const publisher = new RecordingPublisher();
    const runner = new ConsumerRunner(dlqProcessor({ alerts: { raise: async () => {} } }), { table, publisher, logger: silentLogger, clock: { now: () => new Date() }, scheduler });
    const original = testFailedFor({ orgId: 'org-1', testId: uuid() });
    for (const previous of [0, 1, 2]) {
      const failed = { ...original, metadata: previous ? { retry_count: previous } : {} };
      const dlq = buildDeadLetter({ consumer: 'healer', record: { value: JSON.stringify(failed) }, event: failed, error: new Error('x') }, { clock: { now: () => new Date() } });
      expect((await runner.process({ value: JSON.stringify(dlq) })).status).toBe('processed');
    }
    const sends = double.requests.filter((r) => r.target === 'AmazonSQS.SendMessage');
    expect(sends.map((s) => s.body.DelaySeconds)).toEqual([2, 4, 8]);
    expect(JSON.parse(sends[2].body.MessageBody)).toMatchObject({ event_id: original.event_id, metadata: { retry_count: 3, retry_for: 'healer' } });
    expect(sends[0].body.MessageAttributes.event_type).toEqual({ DataType: 'String', StringValue: 'test.failed' });
    expect(publisher.events).toEqual([]); // nothing published directly: the delay queue holds it
  });
});

describe('Lambda SQS consumer handler', () => {
  it('unwraps EventBridge bodies, processes in order, and reports only undeliverable records as failures', async () => {
    const table = new FileTable();
    const t = await seedTenant(table);
    const publisher = new RecordingPublisher();
    const runner = new ConsumerRunner(apiConsumer(), { table, publisher, logger: silentLogger, clock: { now: () => new Date() } });
    const handler = createSqsConsumerHandler(runner, silentLogger);
    const ok = testCreatedFor(t);
    const wrongTenant = testCreatedFor({ ...t, orgId: uuid() });
    const records = [sqsRecord(JSON.stringify(toBusEvent(ok))), sqsRecord(JSON.stringify(toBusEvent(ok)), 2), sqsRecord(JSON.stringify(toBusEvent(wrongTenant)))];
    expect(await handler({ Records: records })).toEqual({ batchItemFailures: [] });
    expect(await listActivity({ table }, t.orgId)).toHaveLength(1);
    expect(publisher.ofType('dlq')).toHaveLength(1);
    // The dead letter cannot be published: SQS must redeliver that record (and redrive it after 3).
    publisher.failNext = 1;
    const poison = sqsRecord(JSON.stringify(toBusEvent(testCreatedFor({ ...t, orgId: uuid() }))));
    const fine = sqsRecord(JSON.stringify(toBusEvent(testCreatedFor(t))));
    expect(await handler({ Records: [poison, fine] })).toEqual({ batchItemFailures: [{ itemIdentifier: poison.messageId }] });
    expect(await listActivity({ table }, t.orgId)).toHaveLength(2);
  });

  it('the republisher puts due retries back on the bus via PutEvents', async () => {
    double = await startAwsDouble((req) => ({ body: { FailedEntryCount: 0, Entries: req.body.Entries.map(() => ({ EventId: uuid() })) } }));
    const publisher = new EventBridgePublisher({ client: new EventBridgeClient(double.clientConfig), busName: 'svc-events', logger: silentLogger });
    const handler = createRepublishHandler(publisher, silentLogger);
    const retry = { ...testFailedFor({ orgId: 'org-1', testId: uuid() }), metadata: { retry_count: 1, retry_for: 'healer' } };
    const bad = sqsRecord('{"event_type":"nope"}');
    expect(await handler({ Records: [sqsRecord(JSON.stringify(retry)), bad] })).toEqual({ batchItemFailures: [{ itemIdentifier: bad.messageId }] });
    expect(double.requests).toHaveLength(1);
    expect(JSON.parse(double.requests[0].body.Entries[0].Detail)).toEqual(retry);
  });
});

describe('alerts and config on AWS', () => {
  it('writes a CloudWatch Embedded Metric Format line per alert', async () => {
    const lines: string[] = [];
    await new EmfAlertSink((l) => lines.push(l), () => 1_700_000_000_000).raise({ name: 'EventDeadLettered', severity: 'critical', summary: 'parked', tenant_id: 'org-1', details: { retry_count: 4 } });
    const emf = JSON.parse(lines[0]);
    expect(emf._aws).toEqual({ Timestamp: 1_700_000_000_000, CloudWatchMetrics: [{ Namespace: 'svc', Dimensions: [['alert']], Metrics: [{ Name: 'events_parked', Unit: 'Count' }] }] });
    expect(emf).toMatchObject({ alert: 'EventDeadLettered', events_parked: 1, severity: 'critical', tenant_id: 'org-1' });
  });

  it('parses the event functions\' environment and names bad variables', () => {
    const env = { AWS_REGION: 'eu-west-1', SVC_TABLE_NAME: 't', SVC_EVENT_BUS_NAME: 'b', SVC_CONSUMER: 'api' };
    expect(loadEventsConfig(env)).toEqual({ region: 'eu-west-1', tableName: 't', busName: 'b', consumer: 'api', retryQueueUrl: undefined, bucketName: undefined, analyzeRoots: [] });
    expect(() => loadEventsConfig({ ...env, SVC_CONSUMER: 'nobody' })).toThrow(/SVC_CONSUMER/);
    expect(() => loadEventsConfig({ ...env, SVC_CONSUMER: 'dlq-processor' })).toThrow(/SVC_RETRY_QUEUE_URL/);
    // The knowledge worker reads uploads from the artifacts bucket; folders only when a file system is mounted.
    expect(() => loadEventsConfig({ ...env, SVC_CONSUMER: 'knowledge-worker' })).toThrow(/SVC_BUCKET_NAME/);
    expect(loadEventsConfig({ ...env, SVC_CONSUMER: 'knowledge-worker', SVC_BUCKET_NAME: 'art', SVC_ANALYZE_ROOTS: '/mnt/repos' })).toMatchObject({ bucketName: 'art', analyzeRoots: ['/mnt/repos'] });
  });
});
