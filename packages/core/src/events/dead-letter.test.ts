import { describe, expect, it } from 'vitest';
import { createEvent, DlqMetadata, DlqPayload } from '../contracts/events.ts';
import { backoffSeconds, buildDeadLetter, isRetryable, MAX_RETRIES, NonRetryableError, shouldRetry, TenantMismatchError } from './dead-letter.ts';
import { EventRejectedError } from './validate.ts';

const clock = { now: () => new Date('2025-03-01T10:00:00Z') };
const original = (metadata: Record<string, unknown> = {}) =>
  createEvent({ type: 'test.failed', source: 'svc.browser-worker', tenant_id: 'org-1', correlation_id: 'c-1', payload: { test_id: crypto.randomUUID(), test_suite_id: 's-1', failure_details: {} }, metadata });

describe('dead letters', () => {
  it('carries the spec payload and metadata, retry_count = previous + 1', () => {
    const e = original();
    const err = new TypeError('cannot read x');
    const dlq = buildDeadLetter({ consumer: 'healer', record: { value: JSON.stringify(e), offset: 'm-1' }, event: e, error: err }, { clock });
    const payload = DlqPayload.parse(dlq.payload);
    expect(payload).toMatchObject({
      original_topic: 'svc.test.failed', original_partition: 0, original_offset: 'm-1', original_key: 's-1',
      original_value: JSON.stringify(e), error_type: 'TypeError', error_message: 'cannot read x',
    });
    expect(payload.error_traceback).toContain('TypeError: cannot read x');
    expect(DlqMetadata.parse(dlq.metadata)).toMatchObject({ retry_count: 1, max_retries: 3, failed_at: '2025-03-01T10:00:00.000Z', consumer: 'healer', retryable: true });
    expect(dlq).toMatchObject({ event_type: 'dlq', tenant_id: 'org-1', correlation_id: 'c-1', source: 'svc.consumer.healer' });

    const again = original({ retry_count: 2 });
    expect(buildDeadLetter({ consumer: 'healer', record: { value: JSON.stringify(again) }, event: again, error: err }, { clock }).metadata.retry_count).toBe(3);
  });

  it('keeps the tenant and key of an event that did not parse, and marks it not retryable', () => {
    const raw = JSON.stringify({ tenant_id: 'org-7', correlation_id: 'c-7', event_type: 'nope' });
    const dlq = buildDeadLetter({ consumer: 'api', record: { value: raw, topic: 'svc.test.failed', partition: 2, offset: 41, key: 'k' }, error: new EventRejectedError('unknown_type', 'unknown event_type "nope"') }, { clock });
    expect(dlq).toMatchObject({ tenant_id: 'org-7', correlation_id: 'c-7' });
    expect(dlq.payload).toMatchObject({ original_topic: 'svc.test.failed', original_partition: 2, original_offset: 41, original_key: 'k', error_type: 'EventRejectedError' });
    expect(dlq.metadata).toMatchObject({ retryable: false, reason: 'unknown_type' });
  });

  it('retries three times with 2^n s back-off, then parks', () => {
    const decisions = [1, 2, 3, 4].map((retry_count) => ({ retry_count, retry: shouldRetry({ retry_count, max_retries: MAX_RETRIES }), delay: backoffSeconds(retry_count) }));
    expect(decisions.filter((d) => d.retry).map((d) => d.delay)).toEqual([2, 4, 8]);
    expect(decisions[3].retry).toBe(false);
    expect(shouldRetry({ retry_count: 1, max_retries: 3, retryable: false })).toBe(false);
  });

  it('classifies errors', () => {
    expect(isRetryable(new Error('db down'))).toBe(true);
    expect(isRetryable(new TenantMismatchError('x'))).toBe(false);
    expect(isRetryable(new NonRetryableError('x'))).toBe(false);
    expect(isRetryable(new EventRejectedError('too_large', 'x'))).toBe(false);
  });
});
