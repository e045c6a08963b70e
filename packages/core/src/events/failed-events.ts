import type { EventEnvelope } from '../contracts/events.ts';
import type { Item, Table } from '../ports/table.ts';
import { queryAll } from '../store/context.ts';
import { stripLayout } from '../store/keys.ts';

/**
 * Parked dead letters: events the dlq processor gave up on (retries exhausted, or never
 * retryable). Kept under their tenant for the dashboard and on one index partition for
 * operators and the DLQ-depth metric; they expire with the dlq topic's 30-day retention.
 */
export const FAILED_EVENT_TTL_SECONDS = 30 * 24 * 3600;
const INDEX_PK = 'FAILEDEVENTS';

export interface FailedEventRecord {
  dlq_event_id: string;
  tenant_id: string;
  consumer: string | null;
  original_topic: string;
  original_key: string | null;
  original_value: string;
  error_type: string;
  error_message: string;
  error_traceback: string | null;
  retry_count: number;
  reason: string | null;
  failed_at: string;
  parked_at: string;
}

/** The put that parks a dead letter (committed with the dlq processor's dedupe record). */
export function failedEventItem(dlq: EventEnvelope, parkedAt: Date, ttlSeconds = FAILED_EVENT_TTL_SECONDS): Item {
  const p = dlq.payload as Record<string, unknown>;
  const m = dlq.metadata as Record<string, unknown>;
  const record: FailedEventRecord = {
    dlq_event_id: dlq.event_id,
    tenant_id: dlq.tenant_id,
    consumer: typeof m.consumer === 'string' ? m.consumer : null,
    original_topic: String(p.original_topic),
    original_key: (p.original_key as string | null) ?? null,
    original_value: String(p.original_value),
    error_type: String(p.error_type),
    error_message: String(p.error_message),
    error_traceback: (p.error_traceback as string | null) ?? null,
    retry_count: Number(m.retry_count),
    reason: typeof m.reason === 'string' ? m.reason : null,
    failed_at: String(m.failed_at),
    parked_at: parkedAt.toISOString(),
  };
  const sortKey = `${record.parked_at}#${dlq.event_id}`;
  return {
    pk: `ORG#${dlq.tenant_id}`,
    sk: `FAILEDEVENT#${sortKey}`,
    gsi1pk: INDEX_PK,
    gsi1sk: sortKey,
    entity: 'failed_event',
    expiresAt: Math.floor(parkedAt.getTime() / 1000) + ttlSeconds,
    ...record,
  };
}

/** Reads of parked events. */
export function failedEventsRepo(table: Table) {
  return {
    /** A tenant's parked events, newest first. */
    async listForTenant(tenantId: string, limit = 100): Promise<FailedEventRecord[]> {
      const page = await table.query({ pk: `ORG#${tenantId}`, skPrefix: 'FAILEDEVENT#', descending: true, limit });
      return page.items.map((i) => stripLayout<FailedEventRecord>(i));
    },
    /** Every parked event still retained (operators; the svc_dlq_depth metric). */
    async listAll(): Promise<FailedEventRecord[]> {
      return (await queryAll(table, { index: 'gsi1', pk: INDEX_PK })).map((i) => stripLayout<FailedEventRecord>(i));
    },
    async count(): Promise<number> {
      return (await queryAll(table, { index: 'gsi1', pk: INDEX_PK })).length;
    },
  };
}
