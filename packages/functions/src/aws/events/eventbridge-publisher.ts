import { PutEventsCommand, type EventBridgeClient, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { EventEnvelope } from '@svc/core/contracts/events';
import type { EventPublisher } from '@svc/core/ports/events';
import type { Logger } from '@svc/core/ports/logger';
import { busEntrySize, MAX_EVENT_BYTES, toBusEntry } from '@svc/core/events/bus-event';
import { checkEvent } from '@svc/core/events/validate';

/**
 * Publishing on AWS: EventBridge PutEvents. Events are checked first (bad ones are
 * rejected to the producer), sent in batches of at most 10 entries and 256 KB, and the
 * entries a response reports as failed (throttling, internal errors) are sent again with
 * exponential back-off — PutEvents succeeds as a whole even when entries fail, so
 * ignoring FailedEntryCount would lose events silently.
 */
export interface EventBridgePublisherOptions {
  client: EventBridgeClient;
  busName: string;
  logger: Logger;
  /** Attempts per entry, the first included (default 4). */
  maxAttempts?: number;
  /** Back-off before retry `n` (1-based), ms; default 100·2^(n−1). */
  backoffMs?: (retry: number) => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Entries that still failed after every attempt. */
export class EventPublishError extends Error {
  constructor(readonly failures: { event_id: string; errorCode?: string; errorMessage?: string }[]) {
    super(`EventBridge rejected ${failures.length} event(s): ${failures.map((f) => `${f.event_id} ${f.errorCode ?? ''} ${f.errorMessage ?? ''}`.trim()).join('; ')}`);
    this.name = 'EventPublishError';
  }
}

const BATCH_ENTRIES = 10;

export class EventBridgePublisher implements EventPublisher {
  private readonly maxAttempts: number;
  private readonly backoff: (retry: number) => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly opts: EventBridgePublisherOptions) {
    this.maxAttempts = opts.maxAttempts ?? 4;
    this.backoff = opts.backoffMs ?? ((n) => 100 * 2 ** (n - 1));
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  async publish(event: EventEnvelope): Promise<void> {
    await this.publishBatch([event]);
  }

  /** Publishes many events with as few requests as the limits allow. */
  async publishBatch(events: EventEnvelope[]): Promise<void> {
    const entries = events.map((e) => {
      const checked = checkEvent(e);
      return { id: checked.event_id, entry: { ...toBusEntry(checked), EventBusName: this.opts.busName } as PutEventsRequestEntry };
    });
    const failures: EventPublishError['failures'] = [];
    for (const batch of batches(entries)) failures.push(...(await this.sendWithRetry(batch)));
    if (failures.length) throw new EventPublishError(failures);
  }

  private async sendWithRetry(batch: { id: string; entry: PutEventsRequestEntry }[]) {
    let pending = batch;
    let lastErrors: { event_id: string; errorCode?: string; errorMessage?: string }[] = [];
    for (let attempt = 1; attempt <= this.maxAttempts && pending.length; attempt++) {
      if (attempt > 1) await this.sleep(this.backoff(attempt - 1));
      const res = await this.opts.client.send(new PutEventsCommand({ Entries: pending.map((p) => p.entry) }));
      if (!res.FailedEntryCount) return [];
      const results = res.Entries ?? [];
      const failed = pending.map((p, i) => ({ p, r: results[i] })).filter(({ r }) => !r || r.ErrorCode);
      lastErrors = failed.map(({ p, r }) => ({ event_id: p.id, errorCode: r?.ErrorCode, errorMessage: r?.ErrorMessage }));
      this.opts.logger.warn('PutEvents entries failed', { attempt, failed: failed.length, codes: [...new Set(lastErrors.map((e) => e.errorCode))] });
      pending = failed.map(({ p }) => p);
    }
    return pending.length ? lastErrors : [];
  }
}

/** Groups entries into PutEvents requests: at most 10 entries and 256 KB of entry size each. */
export function batches<T extends { entry: PutEventsRequestEntry }>(entries: T[]): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const e of entries) {
    const size = busEntrySize({ Source: e.entry.Source!, DetailType: e.entry.DetailType!, Detail: e.entry.Detail!, Time: e.entry.Time, Resources: e.entry.Resources });
    if (current.length && (current.length === BATCH_ENTRIES || bytes + size > MAX_EVENT_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(e);
    bytes += size;
  }
  if (current.length) out.push(current);
  return out;
}
