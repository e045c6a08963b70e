import { describe, expect, it } from 'vitest';
import { LocalQueue } from '../../packages/functions/src/events/local-queue.ts';
import { QueuePoller } from '../../packages/core/src/events/queue-poller.ts';
import { ConsumerRunner } from '../../packages/core/src/events/consumer.ts';
import { silentLogger } from '../../packages/core/src/ports/logger.ts';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { RecordingPublisher, seedTenant, testCreatedFor } from './support/fixtures.ts';

function fakeNow() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('local queue (SQS semantics)', () => {
  it('delivers at most 10 per receive, in send order', async () => {
    const q = new LocalQueue('q');
    for (let i = 0; i < 25; i++) await q.send(`m${i}`);
    const first = await q.receive({ max: 50 });
    expect(first.map((m) => m.body)).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
    expect((await q.receive()).map((m) => m.body)[0]).toBe('m10');
    expect(await q.depth()).toEqual({ waiting: 5, inFlight: 20 });
  });

  it('hides a received message for the visibility timeout; unacknowledged it comes back with a higher receive count', async () => {
    const t = fakeNow();
    const q = new LocalQueue('q', { visibilityTimeoutMs: 30_000, now: t.now });
    await q.send('a');
    const [m1] = await q.receive();
    expect(m1.receiveCount).toBe(1);
    expect(await q.receive()).toEqual([]);
    t.advance(29_999);
    expect(await q.receive()).toEqual([]);
    t.advance(1);
    const [m2] = await q.receive();
    expect(m2).toMatchObject({ id: m1.id, receiveCount: 2 });
    expect(await q.ack(m1.receipt)).toBe(false); // stale receipt
    expect(await q.ack(m2.receipt)).toBe(true);
    t.advance(60_000);
    expect(await q.receive()).toEqual([]);
  });

  it('redrives to the dead-letter queue after maxReceiveCount receives', async () => {
    const t = fakeNow();
    const dlq = new LocalQueue('dlq', { now: t.now });
    const q = new LocalQueue('q', { visibilityTimeoutMs: 10, maxReceiveCount: 3, deadLetterQueue: dlq, now: t.now });
    await q.send('poison');
    for (let i = 1; i <= 3; i++) {
      expect((await q.receive())[0].receiveCount).toBe(i);
      t.advance(10);
    }
    expect(await q.receive()).toEqual([]);
    expect(q.redriven).toBe(1);
    expect(dlq.peekBodies()).toEqual(['poison']);
  });

  it('honours send delays and wakes a long poll as soon as a message arrives', async () => {
    const q = new LocalQueue('q');
    const started = Date.now();
    const pending = q.receive({ waitMs: 5_000 });
    setTimeout(() => void q.send('late'), 20);
    expect((await pending).map((m) => m.body)).toEqual(['late']);
    expect(Date.now() - started).toBeLessThan(2_000);
    await q.send('delayed', { delaySeconds: 0.05 });
    expect(await q.receive()).toEqual([]);
    expect((await q.receive({ waitMs: 2_000 })).map((m) => m.body)).toEqual(['delayed']);
  });

  it('a poller acknowledges only what the consumer dealt with, and keeps running', async () => {
    const table = new FileTable();
    const t = await seedTenant(table);
    const publisher = new RecordingPublisher();
    const runner = new ConsumerRunner(
      { name: 'api', handlers: { 'test.created': (e) => { if (e.payload.test_name === 'crash') throw new Error('x'); } } },
      { table, publisher, logger: silentLogger, clock: { now: () => new Date() } },
    );
    const dlq = new LocalQueue('dlq');
    const q = new LocalQueue('q', { visibilityTimeoutMs: 60_000, deadLetterQueue: dlq });
    const poller = new QueuePoller(q, runner, { logger: silentLogger, waitMs: 0 });
    const ok = testCreatedFor(t);
    const crash = { ...testCreatedFor(t), payload: { ...ok.payload, test_name: 'crash' } };
    await q.send(JSON.stringify(ok));
    await q.send('not json at all');
    await q.send(JSON.stringify(crash));
    publisher.failNext = 0;
    expect(await poller.pollOnce()).toBe(3);
    // ok: processed; garbage and crash: dead-lettered (published on svc.dlq) — all acknowledged.
    expect(await q.depth()).toEqual({ waiting: 0, inFlight: 0 });
    expect(publisher.ofType('dlq')).toHaveLength(2);
    // When even the dead letter cannot be published, the message stays for redelivery.
    await q.send(JSON.stringify({ ...crash, event_id: crypto.randomUUID() }));
    publisher.failNext = 1;
    expect(await poller.pollOnce()).toBe(1);
    expect(await q.depth()).toEqual({ waiting: 0, inFlight: 1 });
  });
});
