import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../packages/core/src/ports/logger.ts';
import { ConsumerRunner } from '../../packages/core/src/events/consumer.ts';
import { streamAnalytics } from '../../packages/core/src/events/stream-analytics.ts';
import { parseEvent } from '../../packages/core/src/contracts/events.ts';
import { testExecuted, eventSources } from '../../packages/core/src/events/producers.ts';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { RecordingPublisher, testFailedFor, uuid } from './support/fixtures.ts';

const base = new Date('2025-03-01T10:00:00Z').getTime();
const at = (minutes: number) => new Date(base + minutes * 60_000);

function setup(opts = {}) {
  const clock = { now: () => at(20) };
  const table = new FileTable(undefined, { clock });
  const publisher = new RecordingPublisher();
  const runner = new ConsumerRunner(streamAnalytics(opts), { table, publisher, logger: silentLogger, clock });
  const send = (e: unknown) => runner.process({ value: JSON.stringify(e) });
  return { table, publisher, send };
}

describe('stream analytics: failure clusters', () => {
  const orgId = uuid();
  const projectId = uuid();
  const fail = (msg: string, minute: number) => testFailedFor({ orgId, projectId, testId: uuid() }, msg, at(minute));

  it('publishes one cluster when 3 similar failures fall in one window', async () => {
    const { publisher, send } = setup();
    await send(fail('Timeout 30000ms waiting for "#buy-1"', 1));
    await send(fail('Timeout 5000ms waiting for "#cart"', 2));
    expect(publisher.events).toEqual([]);
    await send(fail("Timeout 100ms waiting for '#pay'", 3));
    await send(fail('Timeout 7ms waiting for "#x"', 4)); // a fourth does not publish again
    expect(publisher.events).toHaveLength(1);
    const cluster = parseEvent(JSON.parse(JSON.stringify(publisher.events[0])));
    expect(cluster).toMatchObject({ event_type: 'patterns.failure-cluster', source: eventSources.streamAnalytics, tenant_id: orgId });
    expect(cluster.payload).toMatchObject({
      project_id: projectId, error_signature: 'timeout: timeout <n>ms waiting for <str>', failure_count: 3,
      window_start: '2025-03-01T10:00:00.000Z', window_end: '2025-03-01T10:15:00.000Z', suggested_cause: expect.any(String),
    });
    expect(cluster.payload.test_ids).toHaveLength(3);
  });

  it('keeps different signatures and different windows apart', async () => {
    const { publisher, send } = setup();
    await send(fail('Timeout 1ms', 1));
    await send(fail('Element not visible', 2));
    await send(fail('Timeout 2ms', 16)); // next window
    await send(fail('Element not visible', 3));
    expect(publisher.events).toEqual([]);
  });

  it('counts by event time, so late and out-of-order failures land in their window', async () => {
    const { publisher, send } = setup();
    await send(fail('Timeout 1ms', 14));
    await send(fail('Timeout 2ms', 30)); // another window
    await send(fail('Timeout 3ms', 1)); // arrives late
    expect(publisher.events).toEqual([]);
    await send(fail('Timeout 4ms', 7));
    expect(publisher.events).toHaveLength(1);
    expect(publisher.events[0].payload).toMatchObject({ failure_count: 3, window_start: '2025-03-01T10:00:00.000Z' });
  });

  it('does not count a redelivered failure twice', async () => {
    const { publisher, send } = setup();
    const e = fail('Timeout 1ms', 1);
    for (let i = 0; i < 3; i++) await send(e);
    await send(fail('Timeout 2ms', 2));
    expect(publisher.events).toEqual([]);
  });

  it('honours a custom threshold and keeps per-test execution counts', async () => {
    const { table, publisher, send } = setup({ threshold: 2 });
    await send(fail('boom 1', 1));
    await send(fail('boom 2', 2));
    expect(publisher.events).toHaveLength(1);
    const testId = uuid();
    for (const status of ['passed', 'failed', 'passed'] as const) {
      await send(testExecuted({ source: eventSources.testRunner, tenant_id: orgId, clock: { now: () => at(5) } }, { test_id: testId, run_id: uuid(), project_id: projectId, status, duration_ms: 100 }));
    }
    const stats = await table.get({ pk: `ORG#${orgId}`, sk: `TESTSTATS#${testId}#2025-03-01` });
    expect(stats).toMatchObject({ counts: { passed: 2, failed: 1, skipped: 0, healed: 0 }, total_duration_ms: 300 });
  });
});
