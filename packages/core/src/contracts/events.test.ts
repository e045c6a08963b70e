import { describe, expect, it } from 'vitest';
import {
  createEvent, EventEnvelopeSchema, eventTypes, parseEvent, partitionKeyFor, payloadSchemas, topicFor,
} from './events.ts';

const id = () => crypto.randomUUID();
const fixed = { ids: { uuid: () => '2f1b6a8e-6a4c-4f7e-9d3b-0c1e2a3b4c5d' }, clock: { now: () => new Date('2025-01-31T12:00:00Z') } };

describe('events', () => {
  it('has the spec types plus integration and pattern topics', () => {
    expect(eventTypes).toHaveLength(11);
    expect(Object.keys(payloadSchemas).sort()).toEqual([...eventTypes].sort());
    expect(topicFor('test.created')).toBe('svc.test.created');
    expect(topicFor('patterns.failure-cluster')).toBe('svc.patterns.failure-cluster');
  });

  it('createEvent fills id, timestamp, correlation and metadata', () => {
    const test_id = id();
    const e = createEvent(
      { type: 'test.created', source: 'api', tenant_id: 'org-1', payload: { test_id, test_name: 'n', test_type: 'ui', project_id: id(), test_spec: { steps: [] } } },
      fixed,
    );
    expect(e).toMatchObject({
      event_id: '2f1b6a8e-6a4c-4f7e-9d3b-0c1e2a3b4c5d', event_type: 'test.created', timestamp: '2025-01-31T12:00:00.000Z',
      correlation_id: '2f1b6a8e-6a4c-4f7e-9d3b-0c1e2a3b4c5d', metadata: {},
    });
    expect(createEvent({ type: 'codebase.ingested', source: 'api', tenant_id: 't', payload: { project_id: id(), codebase_path: '/r' } }).event_id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4/,
    );
  });

  it('createEvent validates the payload by type', () => {
    expect(() =>
      createEvent({ type: 'test.failed', source: 'runner', tenant_id: 't', payload: { test_id: id() } as never }),
    ).toThrow(/failure_details/);
  });

  it('dlq metadata is validated and defaulted', () => {
    const e = createEvent({
      type: 'dlq', source: 'consumer', tenant_id: 't',
      payload: { original_topic: 'svc.test.failed', original_partition: 0, original_offset: 12, original_key: 'k', original_value: '{}', error_type: 'TypeError', error_message: 'x', error_traceback: null },
      metadata: { retry_count: 1, failed_at: '2025-01-31T12:00:00Z' },
    });
    expect(e.metadata).toEqual({ retry_count: 1, max_retries: 3, failed_at: '2025-01-31T12:00:00Z' });
    expect(partitionKeyFor(e)).toBe('k');
  });

  it('envelope is strict and requires a v4 event_id', () => {
    const base = { event_id: id(), event_type: 'test.created', timestamp: '2025-01-31T12:00:00Z', source: 's', tenant_id: 't', correlation_id: 'c', payload: {} };
    expect(EventEnvelopeSchema.parse(base).metadata).toEqual({});
    expect(EventEnvelopeSchema.safeParse({ ...base, version: 1 }).success).toBe(false);
    expect(EventEnvelopeSchema.safeParse({ ...base, event_id: '6ba7b810-9dad-11d1-80b4-00c04fd430c8' }).success).toBe(false);
    expect(EventEnvelopeSchema.safeParse({ ...base, event_type: 'test.deleted' }).success).toBe(false);
  });

  it('partition key falls back to tenant_id', () => {
    const e = createEvent({ type: 'test.created', source: 'api', tenant_id: 'org-9', payload: { test_id: id(), test_name: 'n', test_type: 'api', project_id: id(), test_spec: {} } });
    expect(partitionKeyFor(e)).toBe('org-9');
    expect(partitionKeyFor({ ...e, payload: { ...e.payload, test_suite_id: 'suite-1' } })).toBe('suite-1');
  });

  it('parseEvent validates payload and tolerates added payload fields', () => {
    const e = createEvent({ type: 'healing.completed', source: 'healer', tenant_id: 't', payload: { test_id: id(), success: true, healed_selector: '#b', confidence: 0.9, applied: true } });
    expect(parseEvent(JSON.parse(JSON.stringify({ ...e, payload: { ...e.payload, extra: 1 } }))).payload).toMatchObject({ from_cache: false, extra: 1 });
    expect(() => parseEvent({ ...e, payload: { ...e.payload, confidence: 2 } })).toThrow();
  });
});
