import type { EventEnvelope } from '../contracts/events.ts';
import type { Item, ItemKey, Table } from '../ports/table.ts';

/**
 * Idempotent processing (spec rule 8): one dedupe record per (consumer, event_id), put
 * with a `notExists` condition in the same transaction as the handler's own writes. The
 * record exists if and only if the effect happened, so a redelivery is recognised and
 * skipped, and two concurrent deliveries cannot both commit. Records expire (TTL) after
 * the longest window a message can be redelivered in.
 */

/** Default lifetime of a dedupe record: 14 days, SQS's longest message retention. */
export const DEDUPE_TTL_SECONDS = 14 * 24 * 3600;

/** Dedupe records are per consumer: each consumer processes every event once. */
export const dedupeKey = (consumer: string, eventId: string): ItemKey => ({ pk: `EVENT#${eventId}`, sk: `CONSUMED#${consumer}` });

/** An event to publish once the effect is committed (transactional outbox). */
export interface OutboxEntry {
  event: EventEnvelope;
  delaySeconds?: number;
}

/** The dedupe item; `outbox` holds events still to publish (cleared once published). */
export function dedupeItem(input: {
  consumer: string;
  event: EventEnvelope;
  now: Date;
  ttlSeconds: number;
  outbox: OutboxEntry[];
}): Item {
  const { consumer, event, now } = input;
  return {
    ...dedupeKey(consumer, event.event_id),
    entity: 'event_dedupe',
    consumer,
    event_id: event.event_id,
    event_type: event.event_type,
    tenant_id: event.tenant_id,
    processed_at: now.toISOString(),
    expiresAt: Math.floor(now.getTime() / 1000) + input.ttlSeconds,
    ...(input.outbox.length ? { outbox: JSON.stringify(input.outbox) } : {}),
  };
}

/** Pending outbox entries of a dedupe item (none once flushed). */
export function pendingOutbox(item: Item | undefined): OutboxEntry[] {
  const raw = item?.outbox;
  return typeof raw === 'string' && raw !== '' ? (JSON.parse(raw) as OutboxEntry[]) : [];
}

/** Marks the outbox of a dedupe item as published. */
export async function clearOutbox(table: Table, key: ItemKey): Promise<void> {
  await table.update({ key, remove: ['outbox'] });
}
