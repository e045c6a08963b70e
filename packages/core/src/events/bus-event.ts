import type { EventEnvelope } from '../contracts/events.ts';

/**
 * The shape an event has on an EventBridge-style bus, and on the queues behind it.
 * EventBridge wraps whatever PutEvents sent (Source, DetailType, Detail) in this
 * envelope and an SQS target receives it verbatim as the message body; the local bus
 * builds the same object so rules, patterns and consumers are identical in both worlds.
 * The svc envelope travels whole in `detail`, so nothing is lost in the wrapping.
 */
export interface BusEvent {
  version: '0';
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: EventEnvelope;
}

/** EventBridge's PutEvents entry size limit (256 KB); the local bus enforces it too. */
export const MAX_EVENT_BYTES = 256 * 1024;

/** What PutEvents sends for one svc event: DetailType is the event type, Detail the envelope. */
export interface BusEntry {
  Source: string;
  DetailType: string;
  Detail: string;
  Time: Date;
  Resources: string[];
}

/** The PutEvents entry for an event (Time is the event's own timestamp, so rules see producer time). */
export function toBusEntry(event: EventEnvelope): BusEntry {
  return {
    Source: event.source,
    DetailType: event.event_type,
    Detail: JSON.stringify(event),
    Time: new Date(event.timestamp),
    Resources: [],
  };
}

const encoder = new TextEncoder();
const utf8 = (s: string) => encoder.encode(s).length;

/**
 * Entry size exactly as EventBridge computes it ("Calculating PutEvents event entry
 * size"): 14 bytes for Time when present, plus the UTF-8 bytes of Source, DetailType,
 * Detail and every Resources entry. Checking it before sending turns a whole-batch
 * failure into a clear rejection of the one oversized event.
 */
export function busEntrySize(entry: Pick<BusEntry, 'Source' | 'DetailType' | 'Detail'> & { Time?: Date; Resources?: string[] }): number {
  let size = entry.Time ? 14 : 0;
  size += utf8(entry.Source) + utf8(entry.DetailType) + utf8(entry.Detail);
  for (const r of entry.Resources ?? []) size += utf8(r);
  return size;
}

/** The bus event EventBridge would deliver for `entry`; the local bus uses it verbatim. */
export function toBusEvent(event: EventEnvelope, where: { account?: string; region?: string } = {}): BusEvent {
  return {
    version: '0',
    id: event.event_id,
    'detail-type': event.event_type,
    source: event.source,
    account: where.account ?? '000000000000',
    time: new Date(event.timestamp).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: where.region ?? 'local',
    resources: [],
    detail: event,
  };
}

/**
 * The envelope text inside a queue message. Messages put on a queue by a bus rule are
 * bus events (envelope under `detail`); messages put there directly — a Kafka record, a
 * test, a republish — are the envelope itself. Either way consumers see the envelope
 * text, which is also what a dead letter carries as `original_value`. Unparseable text
 * is returned unchanged so the consumer can dead-letter it with the parse error.
 */
export function envelopeText(body: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  if (parsed && typeof parsed === 'object' && 'detail-type' in parsed && 'detail' in parsed) {
    return JSON.stringify((parsed as { detail: unknown }).detail);
  }
  return body;
}
