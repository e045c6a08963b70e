import { describe, expect, it } from 'vitest';
import { eventTypes, topicFor } from '../contracts/events.ts';
import { createEvent } from '../contracts/events.ts';
import { toBusEvent } from './bus-event.ts';
import { consumerRoutes, consumersFor, patternFor, unconsumedTypes } from './routing.ts';
import { testFailed, eventSources } from './producers.ts';

const id = () => crypto.randomUUID();
const failed = (metadata?: Record<string, unknown>) =>
  testFailed({ source: eventSources.browserWorker, tenant_id: 'org-1', metadata }, { test_id: id(), failure_details: { error_message: 'x' } });

describe('routing table', () => {
  it('routes per the spec: producers/consumers table, rules 4 and 7', () => {
    // A failed test heals inside its run (self_heal), so test.failed does not go to the healer (docs/decisions.md).
    expect(consumersFor(toBusEvent(failed()))).toEqual(['api', 'stream-analytics']);
    const requested = createEvent({ type: 'healing.requested', source: 'svc.api', tenant_id: 't', payload: { test_id: id(), error_message: 'x' } });
    expect(consumersFor(toBusEvent(requested))).toEqual(['healer']);
    const ingested = createEvent({ type: 'codebase.ingested', source: 'svc.api', tenant_id: 't', payload: { project_id: id(), codebase_path: '/r' } });
    expect(consumersFor(toBusEvent(ingested))).toEqual(['api', 'knowledge-worker']);
    const executed = createEvent({ type: 'test.executed', source: 'svc.test-runner', tenant_id: 't', payload: { test_id: id(), run_id: id(), project_id: id(), status: 'passed', duration_ms: 3 } });
    // What runs teach is read from the stored results, not learnt from test.executed (docs/decisions.md).
    expect(consumersFor(toBusEvent(executed))).toEqual(['stream-analytics']);
    expect(consumerRoutes.find((r) => r.consumer === 'api')!.handles).toEqual(
      expect.arrayContaining(['codebase.ingested', 'codebase.analyzed', 'test.created', 'test.failed']),
    );
    expect(consumerRoutes.find((r) => r.consumer === 'dlq-processor')!.handles).toEqual(['dlq']);
    expect(unconsumedTypes()).toEqual(['integration.vcs.pr', 'integration.errors']);
  });

  it('sends a dlq republish only to the consumer that failed', () => {
    expect(consumersFor(toBusEvent(failed({ retry_count: 1, retry_for: 'stream-analytics' })))).toEqual(['stream-analytics']);
    expect(consumersFor(toBusEvent(failed({ retry_count: 1, retry_for: 'api' })))).toEqual(['api']);
  });

  it('ignores foreign sources on a shared bus', () => {
    const e = toBusEvent(failed());
    expect(consumersFor({ ...e, source: 'aws.ec2' })).toEqual([]);
  });

  it('patterns are valid EventBridge patterns naming real types', () => {
    for (const r of consumerRoutes) {
      const p = patternFor(r);
      expect(p['detail-type']).toEqual([...r.handles]);
      for (const t of r.handles) expect(eventTypes).toContain(t);
    }
    expect(eventTypes.map(topicFor)).toContain('svc.integration.vcs.pr');
  });
});
