/**
 * infra/events.ts evaluated offline against recording doubles of the SST globals
 * (sst.aws.Bus/Queue, aws.cloudwatch.MetricAlarm, aws.sns.Topic), checked against core's routing table
 * and alert rules — the same objects the local bus uses — so the two cannot drift.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { consumerRoutes, patternFor } from '../../packages/core/src/events/routing.ts';
import { matchesPattern } from '../../packages/core/src/events/pattern.ts';
import { toBusEvent } from '../../packages/core/src/events/bus-event.ts';
import { testFailedFor, uuid } from './support/fixtures.ts';

interface Declared { type: string; name: string; args: any; calls: { method: string; args: any[] }[] }

function install() {
  const declared: Declared[] = [];
  const component = (type: string) =>
    class {
      arn: string; url: string; name: string; nodes: any; record: Declared;
      constructor(name: string, args: any = {}) {
        this.arn = `arn:${name}`;
        this.url = `https://sqs/${name}`;
        this.name = `${name}-name`;
        this.nodes = { queue: { name: `${name}-sqs-name` } };
        this.record = { type, name, args, calls: [] };
        declared.push(this.record);
      }
      subscribe(...args: any[]) { this.record.calls.push({ method: 'subscribe', args }); }
      subscribeQueue(...args: any[]) { this.record.calls.push({ method: 'subscribeQueue', args }); }
    };
  vi.stubGlobal('sst', { aws: { Bus: component('sst.aws.Bus'), Queue: component('sst.aws.Queue') } });
  vi.stubGlobal('aws', {
    cloudwatch: { MetricAlarm: component('aws.cloudwatch.MetricAlarm') },
    sns: { Topic: component('aws.sns.Topic'), TopicSubscription: component('aws.sns.TopicSubscription') },
  });
  vi.stubEnv('SVC_ALERT_EMAIL', ''); // the runner's shell must not subscribe anyone
  return declared;
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});

async function evaluate() {
  const declared = install();
  const { declareEvents, SUBSCRIBED_ELSEWHERE } = await import('../../infra/events.ts');
  const out = declareEvents({ table: { name: 'Table.name' as any }, artifacts: { name: 'Artifacts.name' as any } });
  return { declared, out, byName: (n: string) => declared.find((d) => d.name === n)!, SUBSCRIBED_ELSEWHERE };
}

describe('infra/events.ts', () => {
  it('declares one bus, and per consumer a queue with a dead-letter queue (redrive after 3)', async () => {
    const { declared, byName } = await evaluate();
    expect(declared.filter((d) => d.type === 'sst.aws.Bus').map((d) => d.name)).toEqual(['Events']);
    for (const name of ['Api', 'Healer', 'StreamAnalytics', 'KnowledgeWorker', 'DlqProcessor', 'EventRetry']) {
      const queue = byName(`${name}Queue`);
      expect(queue.args.dlq, name).toEqual({ queue: `arn:${name}Dlq`, retry: 3 });
      expect(queue.args.visibilityTimeout).toBe('360 seconds');
    }
  });

  it('routes each consumer with core\'s pattern, as SST\'s subscribeQueue expects it', async () => {
    const { byName } = await evaluate();
    const subs = byName('Events').calls.filter((c) => c.method === 'subscribeQueue');
    expect(subs).toHaveLength(consumerRoutes.length);
    for (const route of consumerRoutes) {
      const name = route.consumer.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());
      const sub = subs.find((s) => s.args[0] === `${name}Rule`)!;
      const p = patternFor(route);
      expect(sub.args[1].url).toBe(`https://sqs/${name}Queue`);
      expect(sub.args[2].pattern).toEqual({ source: p.source, detailType: p['detail-type'], detail: p.detail });
      // SST turns detailType into "detail-type"; the result is the pattern the local bus evaluates.
      const eb = { source: sub.args[2].pattern.source, 'detail-type': sub.args[2].pattern.detailType, detail: sub.args[2].pattern.detail };
      expect(matchesPattern(eb, toBusEvent(testFailedFor({ orgId: 'o', testId: uuid() })))).toBe(route.handles.includes('test.failed'));
    }
  });

  it('subscribes a function (batch 10, partial responses) only to implemented consumers, with their config', async () => {
    const { byName, SUBSCRIBED_ELSEWHERE } = await evaluate();
    for (const route of consumerRoutes) {
      const name = route.consumer.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());
      const subs = byName(`${name}Queue`).calls.filter((c) => c.method === 'subscribe');
      // The healer's function needs the run graph's settings: infra/api.ts declareHealer subscribes it (test/infra/sst-config.test.ts).
      const here = route.implemented && !SUBSCRIBED_ELSEWHERE.includes(route.consumer);
      expect(subs.length, route.consumer).toBe(here ? 1 : 0);
      if (!here) continue;
      const [fn, args] = subs[0].args;
      expect(fn.handler).toBe('packages/functions/src/aws/events/consumer-handler.handler');
      expect(fn.environment).toMatchObject({ SVC_CONSUMER: route.consumer, SVC_TABLE_NAME: 'Table.name', SVC_EVENT_BUS_NAME: 'Events-name' });
      expect(args).toEqual({ batch: { size: 10, partialResponses: true } });
    }
    expect(byName('DlqProcessorQueue').calls[0].args[0].environment.SVC_RETRY_QUEUE_URL).toBe('https://sqs/EventRetryQueue');
    // The knowledge worker reads uploaded codebases from the artifacts bucket and keeps its analyses there.
    const knowledge = byName('KnowledgeWorkerQueue').calls[0].args[0];
    expect(knowledge.environment.SVC_BUCKET_NAME).toBe('Artifacts.name');
    expect(knowledge.link).toContainEqual({ name: 'Artifacts.name' });
    expect(byName('EventRetryQueue').calls[0].args[0].handler).toBe('packages/functions/src/aws/events/consumer-handler.republishHandler');
  });

  it('declares the spec alerts as CloudWatch alarms', async () => {
    const { declared } = await evaluate();
    const alarms = declared.filter((d) => d.type === 'aws.cloudwatch.MetricAlarm');
    const names = alarms.map((a) => a.name);
    expect(names).toEqual(expect.arrayContaining([
      'LlmErrorRateHigh', 'BrowserPoolExhausted', 'EventDeadLettered',
      'ConsumerLagHighApi', 'ConsumerLagHighStreamAnalytics', 'ConsumerLagHighDlqProcessor',
      'DeadLetterBacklogApi', 'DeadLetterBacklogHealer', 'DeadLetterBacklogRetry',
    ]));
    const lag = alarms.find((a) => a.name === 'ConsumerLagHighApi')!.args;
    expect(lag).toMatchObject({ namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible', threshold: 100, evaluationPeriods: 5, period: 60, dimensions: { QueueName: 'ApiQueue-sqs-name' } });
    const dlq = alarms.find((a) => a.name === 'DeadLetterBacklogApi')!.args;
    expect(dlq).toMatchObject({ threshold: 10, evaluationPeriods: 10, dimensions: { QueueName: 'ApiDlq-sqs-name' } });
    expect(alarms.find((a) => a.name === 'EventDeadLettered')!.args).toMatchObject({ namespace: 'svc', metricName: 'events_parked', dimensions: { alert: 'EventDeadLettered' } });
    // The knowledge worker is down when its queue is not drained (the oldest message waits > 120 s).
    expect(alarms.find((a) => a.name === 'KnowledgeWorkerDown')!.args).toMatchObject({ namespace: 'AWS/SQS', metricName: 'ApproximateAgeOfOldestMessage', threshold: 120, dimensions: { QueueName: 'KnowledgeWorkerQueue-sqs-name' } });
    // Every alarm notifies the Alerts topic, firing and clearing.
    for (const alarm of alarms) expect(alarm.args, alarm.name).toMatchObject({ alarmActions: ['arn:Alerts'], okActions: ['arn:Alerts'] });
  });
});
