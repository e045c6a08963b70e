import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../packages/core/src/ports/logger.ts';
import { LocalEventBus } from '../../packages/functions/src/events/local-bus.ts';
import { LocalQueue } from '../../packages/functions/src/events/local-queue.ts';
import { InvalidPatternError } from '../../packages/core/src/events/pattern.ts';
import { testFailedFor, uuid } from './support/fixtures.ts';

describe('local event bus', () => {
  it('puts the EventBridge-shaped event on every queue whose rule matches', async () => {
    const bus = new LocalEventBus(silentLogger);
    const failures = new LocalQueue('failures');
    const created = new LocalQueue('created');
    bus.addRule({ name: 'failures', pattern: { 'detail-type': ['test.failed'], detail: { tenant_id: ['org-1'] } }, target: failures });
    bus.addRule({ name: 'created', pattern: { 'detail-type': ['test.created'] }, target: created });
    const e = testFailedFor({ orgId: 'org-1', testId: uuid() });
    await bus.publish(e);
    await bus.publish(testFailedFor({ orgId: 'org-2', testId: uuid() }));
    const [msg] = await failures.receive();
    expect(JSON.parse(msg.body)).toEqual({
      version: '0', id: e.event_id, 'detail-type': 'test.failed', source: 'svc.browser-worker', account: '000000000000',
      time: e.timestamp.replace(/\.\d{3}Z$/, 'Z'), region: 'local', resources: [], detail: e,
    });
    expect(await failures.receive()).toEqual([]);
    expect(await created.depth()).toEqual({ waiting: 0, inFlight: 0 });
  });

  it('a failing tap is logged, never fails the publisher', async () => {
    const bus = new LocalEventBus(silentLogger);
    const seen: string[] = [];
    bus.subscribe(() => { throw new Error('tap broke'); });
    bus.subscribe((e) => void seen.push(e.event_id));
    const e = testFailedFor({ orgId: 'o', testId: uuid() });
    await bus.publish(e);
    expect(seen).toEqual([e.event_id]);
  });

  it('refuses invalid patterns and duplicate rule names', () => {
    const bus = new LocalEventBus(silentLogger);
    const q = new LocalQueue('q');
    expect(() => bus.addRule({ name: 'r', pattern: { source: [] }, target: q })).toThrow(InvalidPatternError);
    bus.addRule({ name: 'r', pattern: { source: ['svc.api'] }, target: q });
    expect(() => bus.addRule({ name: 'r', pattern: { source: ['svc.api'] }, target: q })).toThrow(/exists/);
  });
});
