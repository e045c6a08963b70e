/**
 * Dead letters end to end on the local event machinery (bus → rule → queue → poller →
 * consumer runner → svc.dlq → dlq processor → back-off → republish → … → parked +
 * alert), over the real FileTable. The back-off timer is injected: the test reads the
 * delays the processor asked for instead of sleeping 14 s.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../packages/core/src/ports/logger.ts';
import type { ConsumerDefinition } from '../../packages/core/src/events/consumer.ts';
import { apiConsumer, listActivity } from '../../packages/core/src/events/api-consumer.ts';
import { dlqProcessor } from '../../packages/core/src/events/dlq-processor.ts';
import { failedEventsRepo } from '../../packages/core/src/events/failed-events.ts';
import { createLocalEvents } from '../../packages/functions/src/events/local-events.ts';
import { LogAlertSink } from '../../packages/functions/src/events/log-alert-sink.ts';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { serviceMetrics } from '../../packages/core/src/telemetry/service-metrics.ts';
import { recordingTimer, seedTenant, testCreatedFor, testFailedFor } from './support/fixtures.ts';

function setup(failing: ConsumerDefinition, extra: { visibilityTimeoutMs?: number } = {}) {
  const table = new FileTable();
  const metrics = serviceMetrics();
  const alerts = new LogAlertSink(silentLogger, metrics);
  const timer = recordingTimer();
  const events = createLocalEvents({
    table, logger: silentLogger, metrics, alerts, setTimer: timer.setTimer,
    consumers: [apiConsumer(), failing, dlqProcessor({ alerts })],
    visibilityTimeoutMs: extra.visibilityTimeoutMs,
  });
  /** Drains, fires due back-off timers, repeats until nothing is pending. Returns the rounds. */
  const settle = async () => {
    await events.drain();
    let rounds = 0;
    while (timer.fireAll() > 0) {
      rounds++;
      await new Promise((r) => setTimeout(r, 0));
      await events.drain();
    }
    return rounds;
  };
  return { table, metrics, alerts, timer, events, settle };
}

/** Stream analytics stand-in (it consumes test.failed) whose handler fails the first `failures` times. */
const failingConsumer = (failures = Infinity): ConsumerDefinition & { calls: number } => {
  const def = {
    name: 'stream-analytics',
    calls: 0,
    handlers: {
      'test.failed': () => {
        def.calls++;
        if (def.calls <= failures) throw new Error(`selector engine crashed (attempt ${def.calls})`);
      },
    },
  };
  return def;
};

describe('dead-letter flow (local)', () => {
  it('failing handler → dead letter → three retries after 2, 4, 8 s → stored + alert', async () => {
    const failing = failingConsumer();
    const { table, timer, events, alerts, metrics, settle } = setup(failing);
    const t = await seedTenant(table);
    const failed = testFailedFor(t);
    await events.bus.publish(failed);
    await settle();

    expect(failing.calls).toBe(4); // first delivery + 3 retries
    expect(timer.delays).toEqual([2000, 4000, 8000]);
    const parked = await failedEventsRepo(table).listForTenant(t.orgId);
    expect(parked).toHaveLength(1);
    expect(parked[0]).toMatchObject({
      consumer: 'stream-analytics', original_topic: 'svc.test.failed', retry_count: 4, error_type: 'Error', error_message: 'selector engine crashed (attempt 4)',
    });
    expect(JSON.parse(parked[0].original_value)).toMatchObject({ event_id: failed.event_id, metadata: { retry_count: 3, retry_for: 'stream-analytics' } });
    expect(alerts.recent()).toHaveLength(1);
    expect(alerts.recent()[0]).toMatchObject({ name: 'EventDeadLettered', severity: 'critical', tenant_id: t.orgId, details: { retry_count: 4, reason: 'retries_exhausted' } });
    // The api consumer got the event once; the republishes were addressed to the failing consumer only.
    expect(await listActivity({ table }, t.orgId)).toHaveLength(1);
    const text = await metrics.registry.render();
    expect(text).toContain('svc_dlq_depth{queue="parked"} 1');
    expect(text).toContain('svc_dead_letters_total{consumer="stream-analytics",error_type="Error"} 4');
    expect(text).toContain('svc_alerts_raised_total{alert="EventDeadLettered",severity="critical"} 1');
    await events.stop();
  });

  it('a retry that succeeds is processed once and nothing is parked', async () => {
    const failing = failingConsumer(1);
    const { table, timer, events, alerts, settle } = setup(failing);
    const t = await seedTenant(table);
    await events.bus.publish(testFailedFor(t));
    await settle();
    expect(failing.calls).toBe(2);
    expect(timer.delays).toEqual([2000]);
    expect(await failedEventsRepo(table).listAll()).toEqual([]);
    expect(alerts.recent()).toEqual([]);
    await events.stop();
  });

  it('an event no retry can fix (wrong tenant) is parked at once, without back-off', async () => {
    const { table, timer, events, alerts, settle } = setup(failingConsumer(0));
    const mine = await seedTenant(table);
    const other = await seedTenant(table);
    await events.bus.publish(testCreatedFor({ ...mine, orgId: other.orgId }));
    await settle();
    expect(timer.delays).toEqual([]);
    const parked = await failedEventsRepo(table).listForTenant(other.orgId);
    expect(parked).toMatchObject([{ consumer: 'api', reason: 'tenant_mismatch', retry_count: 1, error_type: 'TenantMismatchError' }]);
    expect(alerts.recent()[0].details).toMatchObject({ reason: 'tenant_mismatch' });
    await events.stop();
  });

  it('bad events are rejected at publish and never reach a queue', async () => {
    const { table, events } = setup(failingConsumer(0));
    const t = await seedTenant(table);
    const good = testFailedFor(t);
    await expect(events.bus.publish({ ...good, event_type: 'test.deleted' as never })).rejects.toMatchObject({ reason: 'unknown_type' });
    await expect(events.bus.publish({ ...good, payload: { test_id: t.testId } })).rejects.toMatchObject({ reason: 'invalid_payload' });
    await expect(events.bus.publish({ ...good, payload: { ...good.payload, blob: 'x'.repeat(300_000) } })).rejects.toMatchObject({ reason: 'too_large' });
    for (const c of events.consumers.values()) expect(await c.queue.depth()).toEqual({ waiting: 0, inFlight: 0 });
  });

  it('a dead letter the processor itself cannot handle goes to the queue DLQ after 3 receives', async () => {
    const broken: ConsumerDefinition = { name: 'dlq-processor', handlers: { dlq: () => { throw new Error('table unavailable'); } } };
    const table = new FileTable();
    const metrics = serviceMetrics();
    const events = createLocalEvents({
      table, logger: silentLogger, metrics, consumers: [failingConsumer(), broken], visibilityTimeoutMs: 5,
    });
    const t = await seedTenant(table);
    await events.bus.publish(testFailedFor(t));
    const dlqConsumer = events.consumers.get('dlq-processor')!;
    for (let i = 0; i < 200 && dlqConsumer.deadLetterQueue.peekBodies().length === 0; i++) {
      await events.drain();
      await new Promise((r) => setTimeout(r, 6));
    }
    expect(dlqConsumer.queue.redriven).toBe(1);
    const [body] = dlqConsumer.deadLetterQueue.peekBodies();
    expect(JSON.parse(body)).toMatchObject({ 'detail-type': 'dlq', detail: { metadata: { consumer: 'stream-analytics', retry_count: 1 } } });
    expect(await metrics.registry.render()).toContain('svc_dlq_depth{queue="svc-dlq-processor-dlq"} 1');
    await events.stop();
  });
});
