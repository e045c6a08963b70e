import { consumerRoutes, patternFor, type ConsumerName } from '../packages/core/src/events/routing.ts';
import { alertRules } from '../packages/core/src/telemetry/alerts.ts';

/**
 * Domain events on AWS (docs/events.md): one EventBridge bus; per consumer in core's
 * routing table a rule → SQS queue → dead-letter queue (redrive after 3 receives), and
 * for implemented consumers an SQS-triggered function (batches of 10, partial batch
 * responses); the dlq processor's retry queue with its republisher; and the spec's
 * alerts as CloudWatch alarms. Rule patterns are core's `patternFor`, the very objects
 * the local bus evaluates, so local and AWS routing cannot drift.
 *
 * sst.config.ts calls `declareEvents({ table })` and hands the returned `bus` to
 * infra/api.ts, which links it to the API function and passes its name
 * (SVC_EVENT_BUS_NAME), so the API publishes here.
 */

// The SST / Pulumi globals this file uses, typed structurally so it type-checks without
// SST's generated .sst/platform declarations (the other infra files need those).
interface Output {
  toString(): string;
}
/** The bus as other infra files see it (infra/api.ts links it and passes its name). */
export type EventBus = SstBus;
interface SstBus {
  name: Output;
  arn: Output;
  subscribeQueue(name: string, queue: SstQueue, args?: { pattern?: Record<string, unknown> }): unknown;
}
interface SstQueue {
  arn: Output;
  url: Output;
  nodes: { queue: { name: Output } };
  subscribe(subscriber: Record<string, unknown>, args?: Record<string, unknown>): unknown;
}
declare const sst: {
  aws: {
    Bus: new (name: string, args?: Record<string, unknown>) => SstBus;
    Queue: new (name: string, args?: Record<string, unknown>) => SstQueue;
  };
};
declare const aws: {
  cloudwatch: { MetricAlarm: new (name: string, args: Record<string, unknown>) => unknown };
  sns: {
    Topic: new (name: string, args?: Record<string, unknown>) => { arn: Output };
    TopicSubscription: new (name: string, args: Record<string, unknown>) => unknown;
  };
};

/** Consumer Lambda timeout; SQS visibility is 6× that, as AWS advises for Lambda event sources. */
const FUNCTION_TIMEOUT_SECONDS = 60;
/** Receives before a message moves to the queue's dead-letter queue. */
export const MAX_RECEIVE_COUNT = 3;
const HANDLER = 'packages/functions/src/aws/events/consumer-handler';

/**
 * Consumers whose function is declared with what they need beyond the bus and the table:
 * the healer starts heal runs, so it gets the API's run-graph settings (declareHealer in
 * infra/api.ts, after the run graph, which itself needs this bus).
 */
export const SUBSCRIBED_ELSEWHERE: readonly ConsumerName[] = ['healer'];

const pascal = (s: string) => s.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());

/**
 * `artifacts` is the bucket the knowledge worker reads uploaded codebases from and keeps its
 * analyses in (the API writes the uploads there).
 */
export function declareEvents(opts: { table: { name: Output }; artifacts?: { name: Output } }) {
  const bus = new sst.aws.Bus('Events');

  const retryDlq = new sst.aws.Queue('EventRetryDlq');
  const retryQueue = new sst.aws.Queue('EventRetryQueue', {
    visibilityTimeout: `${FUNCTION_TIMEOUT_SECONDS * 6} seconds`,
    dlq: { queue: retryDlq.arn, retry: MAX_RECEIVE_COUNT },
  });
  retryQueue.subscribe(
    { handler: `${HANDLER}.republishHandler`, runtime: 'nodejs22.x', timeout: `${FUNCTION_TIMEOUT_SECONDS} seconds`, link: [bus], environment: env(opts.table, bus) },
    { batch: { size: 10, partialResponses: true } },
  );

  const consumers = {} as Record<ConsumerName, { queue: SstQueue; dlq: SstQueue; subscribed: boolean }>;
  for (const route of consumerRoutes) {
    const name = pascal(route.consumer);
    const dlq = new sst.aws.Queue(`${name}Dlq`);
    const queue = new sst.aws.Queue(`${name}Queue`, {
      visibilityTimeout: `${FUNCTION_TIMEOUT_SECONDS * 6} seconds`,
      dlq: { queue: dlq.arn, retry: MAX_RECEIVE_COUNT },
    });
    const p = patternFor(route);
    bus.subscribeQueue(`${name}Rule`, queue, { pattern: { source: p.source, detailType: p['detail-type'], detail: p.detail } });
    if (route.implemented && !SUBSCRIBED_ELSEWHERE.includes(route.consumer)) {
      queue.subscribe(
        {
          handler: `${HANDLER}.handler`,
          runtime: 'nodejs22.x',
          timeout: `${FUNCTION_TIMEOUT_SECONDS} seconds`,
          link: [opts.table, bus, ...(route.consumer === 'dlq-processor' ? [retryQueue] : []), ...(route.consumer === 'knowledge-worker' ? [artifactsOf(opts)] : [])],
          environment: {
            ...env(opts.table, bus),
            SVC_CONSUMER: route.consumer,
            ...(route.consumer === 'dlq-processor' ? { SVC_RETRY_QUEUE_URL: retryQueue.url } : {}),
            ...(route.consumer === 'knowledge-worker' ? { SVC_BUCKET_NAME: artifactsOf(opts).name } : {}),
          },
        },
        { batch: { size: 10, partialResponses: true } },
      );
    }
    consumers[route.consumer] = { queue, dlq, subscribed: route.implemented };
  }

  const alerts = declareAlertTopic();
  const alarms = declareAlarms(consumers, retryDlq, alerts.arn);
  return { bus, retryQueue, consumers, alarms, alerts };
}

function artifactsOf(opts: { artifacts?: { name: Output } }) {
  if (!opts.artifacts) throw new Error('declareEvents needs the artifacts bucket: the knowledge worker reads uploaded codebases from it');
  return opts.artifacts;
}

function env(table: { name: Output }, bus: SstBus) {
  return { SVC_TABLE_NAME: table.name, SVC_EVENT_BUS_NAME: bus.name };
}

/** Who runs `sst deploy` may name an address that gets every alarm (see docs/deploy.md). */
const ALERT_EMAIL = 'SVC_ALERT_EMAIL';

/**
 * Where the alarms go: an SNS topic every alarm notifies when it fires and when it clears.
 * Subscribe anything to it (chat, paging); with SVC_ALERT_EMAIL set at deploy time, that
 * address is subscribed (AWS sends it a confirmation first). A malformed address stops the
 * deploy here, naming the variable.
 */
function declareAlertTopic() {
  const topic = new aws.sns.Topic('Alerts');
  const email = process.env[ALERT_EMAIL]?.trim();
  if (email) {
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new Error(`invalid deploy settings (see docs/deploy.md): ${ALERT_EMAIL} must be an email address, got ${JSON.stringify(email)}`);
    new aws.sns.TopicSubscription('AlertsEmail', { topic: topic.arn, protocol: 'email', endpoint: email });
  }
  return topic;
}

/** The spec's alerts as CloudWatch alarms (core/telemetry/alerts.ts holds the rules), notifying `topicArn`. */
function declareAlarms(consumers: Record<ConsumerName, { queue: SstQueue; dlq: SstQueue; subscribed: boolean }>, retryDlq: SstQueue, topicArn: Output) {
  const alarms: unknown[] = [];
  for (const rule of alertRules) {
    const cw = rule.cloudwatch;
    const base = {
      alarmDescription: `${rule.severity}: ${rule.summary}`,
      alarmActions: [topicArn],
      okActions: [topicArn],
      namespace: cw.namespace,
      metricName: cw.metric,
      statistic: cw.statistic,
      period: 60,
      evaluationPeriods: cw.periods,
      threshold: cw.threshold,
      comparisonOperator: cw.comparison,
      tags: { severity: rule.severity },
    };
    const perQueue = (suffix: string, queue: SstQueue) =>
      alarms.push(new aws.cloudwatch.MetricAlarm(`${rule.name}${suffix}`, { ...base, dimensions: { QueueName: queue.nodes.queue.name }, treatMissingData: 'notBreaching' }));
    if (cw.source === 'consumer-queues') {
      for (const [name, c] of Object.entries(consumers)) if (c.subscribed) perQueue(pascal(name), c.queue);
    } else if (cw.source === 'dead-letter-queues') {
      for (const [name, c] of Object.entries(consumers)) perQueue(pascal(name), c.dlq);
      perQueue('Retry', retryDlq);
    } else if (cw.source === 'knowledge-worker-queue') {
      if (consumers['knowledge-worker'].subscribed) perQueue('', consumers['knowledge-worker'].queue);
    } else {
      alarms.push(new aws.cloudwatch.MetricAlarm(rule.name, { ...base, ...(cw.dimensions ? { dimensions: cw.dimensions } : {}), treatMissingData: 'notBreaching' }));
    }
  }
  return alarms;
}
