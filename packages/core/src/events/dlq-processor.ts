import { DlqMetadata, DlqPayload, type EventEnvelope } from '../contracts/events.ts';
import type { ConsumerDefinition } from './consumer.ts';
import { backoffSeconds, shouldRetry } from './dead-letter.ts';
import { failedEventItem } from './failed-events.ts';
import { checkEvent } from './validate.ts';
import type { AlertSink } from './ports.ts';

/**
 * The dlq processor (spec "Dead-letter handling"): consumes svc.dlq. While retries
 * remain it republishes the original event after 2^retry_count seconds, marked for the
 * consumer that failed (`metadata.retry_for`) and carrying its retry_count so the next
 * failure counts on; other consumers, which already processed it, ignore the copy. When
 * retries are exhausted — or a retry cannot help — it parks the event in the table and
 * raises an alert. The republish is a delayed outbox entry, so it happens exactly when
 * the dead letter is marked processed.
 */
export function dlqProcessor(opts: { alerts: AlertSink; failedEventTtlSeconds?: number }): ConsumerDefinition {
  return {
    name: 'dlq-processor',
    timeoutMs: 10_000,
    handlers: {
      dlq: (event, ctx) => {
        const meta = DlqMetadata.parse(event.metadata);
        const payload = DlqPayload.parse(event.payload);
        const original = shouldRetry(meta) ? reparse(payload.original_value) : undefined;
        if (original) {
          const consumer = typeof event.metadata.consumer === 'string' ? event.metadata.consumer : undefined;
          const republished: EventEnvelope = {
            ...original,
            metadata: { ...original.metadata, retry_count: meta.retry_count, ...(consumer ? { retry_for: consumer } : {}) },
          };
          const delay = backoffSeconds(meta.retry_count);
          ctx.log.info('dead letter scheduled for republish', { event_id: original.event_id, retry_count: meta.retry_count, delay_seconds: delay, consumer });
          ctx.emit(republished, { delaySeconds: delay });
          return;
        }
        const parkedAt = ctx.clock.now();
        ctx.write({ type: 'put', item: failedEventItem(event, parkedAt, opts.failedEventTtlSeconds), condition: { kind: 'notExists' } });
        ctx.afterCommit(() =>
          opts.alerts.raise({
            name: 'EventDeadLettered',
            severity: 'critical',
            summary: `event on ${payload.original_topic} failed ${meta.retry_count} time(s) in ${String(event.metadata.consumer ?? 'a consumer')} and was parked: ${payload.error_type}: ${payload.error_message}`,
            tenant_id: event.tenant_id,
            details: {
              dlq_event_id: event.event_id,
              original_topic: payload.original_topic,
              original_key: payload.original_key,
              retry_count: meta.retry_count,
              max_retries: meta.max_retries,
              reason: event.metadata.reason ?? (meta.retryable === false ? 'non_retryable' : 'retries_exhausted'),
            },
          }),
        );
      },
    },
  };
}

function reparse(value: string): EventEnvelope | undefined {
  try {
    return checkEvent(value);
  } catch {
    return undefined;
  }
}
