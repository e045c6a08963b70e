import { createEvent, partitionKeyFor, topicFor, type EventEnvelope } from '../contracts/events.ts';
import type { Clock, IdSource } from '../ports/clock.ts';
import { EventRejectedError } from './validate.ts';
import { eventSources } from './producers.ts';
import type { InboundRecord } from './ports.ts';

/**
 * Dead letters (spec "Dead-letter handling"): what a consumer publishes on svc.dlq when
 * it fails on a message, and the retry arithmetic the dlq processor applies.
 */

/** Retries of a failed event before it is parked (spec: max_retries 3). */
export const MAX_RETRIES = 3;

/** A failure no retry can fix (bad input, wrong tenant): dead-lettered and parked at once. */
export class NonRetryableError extends Error {
  readonly retryable = false;
  constructor(
    message: string,
    readonly reason = 'non_retryable',
  ) {
    super(message);
    this.name = 'NonRetryableError';
  }
}

/** The event names a resource that does not belong to its tenant_id (never processed). */
export class TenantMismatchError extends NonRetryableError {
  constructor(message: string) {
    super(message, 'tenant_mismatch');
    this.name = 'TenantMismatchError';
  }
}

/** A handler ran past its deadline; its collected effects are discarded, and it may be retried. */
export class HandlerTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`handler did not finish within ${timeoutMs} ms`);
    this.name = 'HandlerTimeoutError';
  }
}

/** Whether retrying could help: rejected events and NonRetryableErrors are parked at once. */
export function isRetryable(err: unknown): boolean {
  return !(err instanceof EventRejectedError) && !(err instanceof NonRetryableError);
}

/** Back-off before the republish of a dead letter with this retry_count: 2^retry_count seconds. */
export const backoffSeconds = (retryCount: number) => 2 ** retryCount;

/**
 * Whether a dead letter is republished. `retry_count` counts failures so far (the first
 * failure is 1), so the retries already made are retry_count − 1; the event is
 * republished while those are below max_retries: three retries, after 2, 4 and 8 s.
 */
export function shouldRetry(meta: { retry_count: number; max_retries: number; retryable?: unknown }): boolean {
  return meta.retryable !== false && meta.retry_count - 1 < meta.max_retries;
}

/** Retry count an event carries (0 for a first delivery; set on republished originals). */
export function retryCountOf(event: Pick<EventEnvelope, 'metadata'> | undefined): number {
  const n = event?.metadata?.retry_count;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : 0;
}

export interface FailedDelivery {
  consumer: string;
  record: InboundRecord;
  /** The parsed event, when parsing got that far. */
  event?: EventEnvelope;
  error: unknown;
}

const LIMITS = { value: 200 * 1024, message: 4 * 1024, traceback: 8 * 1024 };
const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max)}…[truncated ${s.length - max} chars]` : s);

/** Best-effort field from a message that failed to parse, so the dead letter keeps its tenant and trace. */
function rawField(value: string, field: string): string | undefined {
  try {
    const v = (JSON.parse(value) as Record<string, unknown>)[field];
    return typeof v === 'string' && v !== '' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The dlq event for a failed delivery. Its partition key is the original key; metadata
 * carries retry_count (previous + 1), max_retries, failed_at, plus the consumer that
 * failed and whether a retry can help (`retryable: false` parks it at once).
 */
export function buildDeadLetter(failure: FailedDelivery, opts: { clock: Clock; ids?: IdSource; maxRetries?: number }): EventEnvelope {
  const { record, event, error } = failure;
  const err = error instanceof Error ? error : new Error(String(error));
  const retryable = isRetryable(error);
  const reason = error instanceof EventRejectedError || error instanceof NonRetryableError ? error.reason : undefined;
  const valueTooLong = record.value.length > LIMITS.value;
  return createEvent(
    {
      type: 'dlq',
      source: eventSources.consumer(failure.consumer),
      tenant_id: event?.tenant_id ?? rawField(record.value, 'tenant_id') ?? 'unknown',
      correlation_id: event?.correlation_id ?? rawField(record.value, 'correlation_id'),
      payload: {
        original_topic: record.topic ?? (event ? topicFor(event.event_type) : 'svc.unknown'),
        original_partition: record.partition ?? 0,
        original_offset: record.offset ?? 0,
        original_key: record.key !== undefined ? record.key : event ? partitionKeyFor(event) : null,
        original_value: clip(record.value, LIMITS.value),
        error_type: err.name || 'Error',
        error_message: clip(err.message, LIMITS.message),
        error_traceback: err.stack ? clip(err.stack, LIMITS.traceback) : null,
        ...(valueTooLong ? { original_value_truncated: true } : {}),
      },
      metadata: {
        retry_count: retryCountOf(event) + 1,
        max_retries: opts.maxRetries ?? MAX_RETRIES,
        failed_at: opts.clock.now().toISOString(),
        consumer: failure.consumer,
        retryable: retryable && !valueTooLong,
        ...(reason ? { reason } : {}),
      },
    },
    { clock: opts.clock, ids: opts.ids },
  );
}
