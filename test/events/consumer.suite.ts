/**
 * The consumer runner against a real Table: idempotency (dedupe record in the same
 * transaction as the effect), dead letters for every kind of bad input, timeouts,
 * outbox recovery, optimistic-concurrency retries. Run against FileTable and DynamoDB
 * Local by the two *.test.ts files beside this one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Table } from '../../packages/core/src/ports/table.ts';
import { silentLogger } from '../../packages/core/src/ports/logger.ts';
import { ConsumerRunner, type ConsumerDefinition } from '../../packages/core/src/events/consumer.ts';
import { apiConsumer, listActivity } from '../../packages/core/src/events/api-consumer.ts';
import { streamAnalytics } from '../../packages/core/src/events/stream-analytics.ts';
import { dedupeKey } from '../../packages/core/src/events/dedupe.ts';
import { DlqMetadata, DlqPayload } from '../../packages/core/src/contracts/events.ts';
import { MAX_EVENT_BYTES } from '../../packages/core/src/events/bus-event.ts';
import { manualClock, RecordingPublisher, seedTenant, testCreatedFor, testFailedFor, uuid } from './support/fixtures.ts';

export interface TableFactory {
  (clock: { now(): Date }): Promise<{ table: Table; cleanup(): Promise<void> }>;
}

export function consumerSuite(label: string, makeTable: TableFactory) {
  describe(`consumer runner on ${label}`, () => {
    let table: Table;
    let cleanup: () => Promise<void>;
    let publisher: RecordingPublisher;
    const clock = manualClock();
    const runner = (def: ConsumerDefinition) => new ConsumerRunner(def, { table, publisher, logger: silentLogger, clock });
    const record = (e: unknown) => ({ value: typeof e === 'string' ? e : JSON.stringify(e) });

    beforeEach(async () => {
      ({ table, cleanup } = await makeTable(clock));
      publisher = new RecordingPublisher();
    });
    afterEach(async () => cleanup());

    it('duplicate delivery ×3 → one effect', async () => {
      const t = await seedTenant(table);
      const event = testCreatedFor(t);
      const api = runner(apiConsumer());
      const outcomes = [];
      for (let i = 0; i < 3; i++) outcomes.push((await api.process(record(event))).status);
      expect(outcomes).toEqual(['processed', 'duplicate', 'duplicate']);
      expect(await listActivity({ table }, t.orgId)).toHaveLength(1);
      const dedupe = await table.get(dedupeKey('api', event.event_id));
      expect(dedupe).toMatchObject({ consumer: 'api', event_id: event.event_id, tenant_id: t.orgId });
      expect(dedupe!.expiresAt).toBe(Math.floor(clock.ms() / 1000) + 14 * 24 * 3600);
      expect(publisher.events).toEqual([]);
    });

    it('three concurrent deliveries of one event commit once', async () => {
      const t = await seedTenant(table);
      const event = testCreatedFor(t);
      const outcomes = await Promise.all([1, 2, 3].map(() => runner(apiConsumer()).process(record(event))));
      expect(outcomes.map((o) => o.status).sort()).toEqual(['duplicate', 'duplicate', 'processed']);
      expect(await listActivity({ table }, t.orgId)).toHaveLength(1);
    });

    it('each consumer processes the same event once, independently', async () => {
      const t = await seedTenant(table);
      const event = testFailedFor(t);
      expect((await runner(apiConsumer()).process(record(event))).status).toBe('processed');
      expect((await runner(streamAnalytics()).process(record(event))).status).toBe('processed');
      expect((await runner(streamAnalytics()).process(record(event))).status).toBe('duplicate');
    });

    it('a throwing handler: dead letter with the spec fields, no effect, no dedupe record', async () => {
      const t = await seedTenant(table);
      const event = testCreatedFor(t);
      const boom: ConsumerDefinition = {
        name: 'healer',
        handlers: {
          'test.created': (_e, ctx) => {
            ctx.write({ type: 'put', item: { pk: 'X', sk: event.event_id } });
            throw new RangeError('index out of range');
          },
        },
      };
      const outcome = await runner(boom).process({ value: JSON.stringify(event), offset: 'msg-1', receiveCount: 1 });
      expect(outcome).toMatchObject({ status: 'dead_lettered', reason: 'RangeError: index out of range' });
      const [dlq] = publisher.ofType('dlq');
      expect(DlqPayload.parse(dlq.payload)).toMatchObject({
        original_topic: 'svc.test.created', original_partition: 0, original_offset: 'msg-1', original_key: t.orgId,
        original_value: JSON.stringify(event), error_type: 'RangeError', error_message: 'index out of range',
      });
      expect(DlqMetadata.parse(dlq.metadata)).toMatchObject({ retry_count: 1, max_retries: 3, consumer: 'healer', retryable: true });
      expect(await table.get({ pk: 'X', sk: event.event_id })).toBeUndefined();
      expect(await table.get(dedupeKey('healer', event.event_id))).toBeUndefined();
    });

    it('a hanging handler times out, is dead-lettered, and its late writes are discarded', async () => {
      const t = await seedTenant(table);
      const event = testCreatedFor(t);
      let release!: () => void;
      const hang: ConsumerDefinition = {
        name: 'healer',
        timeoutMs: 50,
        handlers: {
          'test.created': async (_e, ctx) => {
            await new Promise<void>((r) => (release = r));
            ctx.write({ type: 'put', item: { pk: 'LATE', sk: 'LATE' } });
          },
        },
      };
      const outcome = await runner(hang).process(record(event));
      expect(outcome).toMatchObject({ status: 'dead_lettered', reason: expect.stringContaining('HandlerTimeoutError') });
      release();
      await new Promise((r) => setTimeout(r, 10));
      expect(await table.get({ pk: 'LATE', sk: 'LATE' })).toBeUndefined();
      expect(publisher.ofType('dlq')[0].metadata).toMatchObject({ retryable: true });
    });

    it('a tenant_id that does not own the resource is dead-lettered, never retried, never written', async () => {
      const mine = await seedTenant(table);
      const other = await seedTenant(table);
      const event = testCreatedFor({ ...mine, orgId: other.orgId });
      const outcome = await runner(apiConsumer()).process(record(event));
      expect(outcome).toMatchObject({ status: 'dead_lettered', reason: expect.stringContaining('TenantMismatchError') });
      expect(publisher.ofType('dlq')[0].metadata).toMatchObject({ retryable: false, reason: 'tenant_mismatch' });
      expect(await listActivity({ table }, other.orgId)).toEqual([]);
      expect(await listActivity({ table }, mine.orgId)).toEqual([]);
    });

    it('bad events are dead-lettered with a reason and the consumer goes on', async () => {
      const t = await seedTenant(table);
      const good = testCreatedFor(t);
      const { tenant_id: _drop, ...missing } = testCreatedFor(t);
      const huge = { ...testCreatedFor(t), payload: { ...good.payload, blob: 'x'.repeat(MAX_EVENT_BYTES) } };
      const api = runner(apiConsumer());
      const bad = [
        record(missing),
        record({ ...good, event_id: uuid(), event_type: 'test.deleted' }),
        record('{"truncated": '),
        record(huge),
        record({ ...good, event_id: uuid(), payload: { test_id: t.testId } }),
      ];
      for (const r of bad) expect((await api.process(r)).status).toBe('dead_lettered');
      expect(publisher.ofType('dlq').map((d) => d.metadata.reason)).toEqual(['invalid_envelope', 'unknown_type', 'malformed_json', 'too_large', 'invalid_payload']);
      expect(publisher.ofType('dlq').every((d) => d.metadata.retryable === false)).toBe(true);
      expect(publisher.ofType('dlq')[3].payload).toMatchObject({ original_value_truncated: true });
      expect((await api.process(record(good))).status).toBe('processed');
    });

    it('an event for a type the consumer does not handle, or a retry meant for another consumer, is ignored', async () => {
      const t = await seedTenant(table);
      const created = testCreatedFor(t);
      expect((await runner(streamAnalytics()).process(record(created))).status).toBe('ignored');
      const retry = { ...created, metadata: { retry_count: 1, retry_for: 'healer' } };
      expect((await runner(apiConsumer()).process(record(retry))).status).toBe('ignored');
      expect(await listActivity({ table }, t.orgId)).toEqual([]);
    });

    it('events out of order are each processed once and read in event-time order', async () => {
      const t = await seedTenant(table);
      const t0 = clock.ms();
      const events = [0, 1, 2, 3].map((i) => (i % 2 ? testFailedFor(t, `fail ${i}`, new Date(t0 + i * 1000)) : testCreatedFor(t, new Date(t0 + i * 1000))));
      const api = runner(apiConsumer());
      for (const e of [...events].reverse()) expect((await api.process(record(e))).status).toBe('processed');
      for (const e of events) expect((await api.process(record(e))).status).toBe('duplicate');
      const feed = await listActivity({ table }, t.orgId);
      expect(feed.map((a) => a.event_id)).toEqual([...events].reverse().map((e) => e.event_id));
    });

    it('outbox: events emitted by a handler survive a publish failure and go out exactly once', async () => {
      const t = await seedTenant(table);
      const analytics = runner(streamAnalytics({ threshold: 1 }));
      const event = testFailedFor(t);
      publisher.failNext = 1;
      await expect(analytics.process(record(event))).rejects.toThrow(/bus unavailable/);
      expect(publisher.ofType('patterns.failure-cluster')).toHaveLength(0);
      expect((await analytics.process(record(event))).status).toBe('duplicate');
      expect(publisher.ofType('patterns.failure-cluster')).toHaveLength(1);
      expect((await analytics.process(record(event))).status).toBe('duplicate');
      expect(publisher.ofType('patterns.failure-cluster')).toHaveLength(1);
    });

    it('concurrent updates of one cluster both count (optimistic retry), and it is published once', async () => {
      const t = await seedTenant(table);
      const a = runner(streamAnalytics({ threshold: 2 }));
      const events = [testFailedFor(t, 'Timeout 100ms'), testFailedFor({ ...t, testId: uuid() }, 'Timeout 200ms')];
      const outcomes = await Promise.all(events.map((e) => a.process(record(e))));
      expect(outcomes.map((o) => o.status)).toEqual(['processed', 'processed']);
      const clusters = publisher.ofType('patterns.failure-cluster');
      expect(clusters).toHaveLength(1);
      expect(clusters[0].payload).toMatchObject({ failure_count: 2, error_signature: 'timeout: timeout <n>ms' });
    });

    it('dedupe records expire with their TTL; the effect\'s own condition still blocks a second effect', async () => {
      const t = await seedTenant(table);
      const event = testFailedFor(t);
      const api = runner(apiConsumer());
      expect((await api.process(record(event))).status).toBe('processed');
      clock.advance(14 * 24 * 3600_000 + 1000);
      // The activity item still exists with its notExists condition, so the repeat is a conflict, not a second effect.
      const again = await api.process(record(event));
      expect(again.status).toBe('dead_lettered');
      expect(await listActivity({ table }, t.orgId)).toHaveLength(1);
    });
  });
}
