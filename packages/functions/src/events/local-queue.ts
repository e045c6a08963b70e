import { randomUUID } from 'node:crypto';
import type { MessageQueue, QueueMessage } from '@svc/core/events/ports';

/**
 * An in-process queue with SQS semantics, for the local runtime: a received message is
 * invisible for the visibility timeout and comes back unless acknowledged (manual ack);
 * each receive counts, and once a message has been received maxReceiveCount times
 * without being acknowledged the next receive moves it to the dead-letter queue instead
 * (SQS redrive). Delivery is in send order among visible messages; a long poll returns
 * as soon as a message arrives. Time is injectable so tests can expire visibility
 * without sleeping.
 */
export interface LocalQueueOptions {
  /** Default 30 s (SQS's default). */
  visibilityTimeoutMs?: number;
  /** Receives before redrive (the spec's dead-letter queues use 3). */
  maxReceiveCount?: number;
  deadLetterQueue?: LocalQueue;
  /** Messages older than this are dropped (SQS default: 4 days). */
  retentionMs?: number;
  /** Clock in epoch ms. */
  now?: () => number;
}

interface Stored {
  id: string;
  body: string;
  sentAt: number;
  visibleAt: number;
  receiveCount: number;
  receipt?: string;
}

export class LocalQueue implements MessageQueue {
  private readonly messages = new Map<string, Stored>();
  private readonly waiters = new Set<() => void>();
  private readonly visibilityMs: number;
  private readonly maxReceives: number;
  private readonly retentionMs: number;
  private readonly now: () => number;
  /** Messages moved to the dead-letter queue so far. */
  redriven = 0;

  constructor(
    readonly name: string,
    private readonly opts: LocalQueueOptions = {},
  ) {
    this.visibilityMs = opts.visibilityTimeoutMs ?? 30_000;
    this.maxReceives = opts.maxReceiveCount ?? 3;
    this.retentionMs = opts.retentionMs ?? 4 * 24 * 3600_000;
    this.now = opts.now ?? Date.now;
  }

  async send(body: string, opts: { delaySeconds?: number } = {}): Promise<string> {
    const id = randomUUID();
    const now = this.now();
    this.messages.set(id, { id, body, sentAt: now, visibleAt: now + (opts.delaySeconds ?? 0) * 1000, receiveCount: 0 });
    this.wake();
    return id;
  }

  async receive(opts: { max?: number; waitMs?: number; signal?: AbortSignal } = {}): Promise<QueueMessage[]> {
    const max = Math.max(1, Math.min(opts.max ?? 10, 10));
    const deadline = Date.now() + (opts.waitMs ?? 0);
    for (;;) {
      const batch = this.take(max);
      const left = deadline - Date.now();
      if (batch.length || left <= 0 || opts.signal?.aborted) return batch;
      await this.waitForChange(Math.min(left, this.msUntilNextVisible()), opts.signal);
    }
  }

  async ack(receipt: string): Promise<boolean> {
    const id = receipt.slice(0, receipt.indexOf('#'));
    const msg = this.messages.get(id);
    if (!msg || msg.receipt !== receipt) return false;
    this.messages.delete(id);
    return true;
  }

  /** Makes an in-flight message visible again after `seconds` (0: at once), as SQS ChangeMessageVisibility. */
  async changeVisibility(receipt: string, seconds: number): Promise<boolean> {
    const msg = this.messages.get(receipt.slice(0, receipt.indexOf('#')));
    if (!msg || msg.receipt !== receipt) return false;
    msg.visibleAt = this.now() + seconds * 1000;
    this.wake();
    return true;
  }

  async depth(): Promise<{ waiting: number; inFlight: number }> {
    const now = this.now();
    let waiting = 0;
    let inFlight = 0;
    for (const m of this.messages.values()) {
      if (m.receipt && m.visibleAt > now) inFlight++;
      else waiting++;
    }
    return { waiting, inFlight };
  }

  /** Every message body currently held (for inspection of dead-letter queues). */
  peekBodies(): string[] {
    return [...this.messages.values()].map((m) => m.body);
  }

  private take(max: number): QueueMessage[] {
    const now = this.now();
    const out: QueueMessage[] = [];
    for (const m of this.messages.values()) {
      if (out.length >= max) break;
      if (now - m.sentAt > this.retentionMs) {
        this.messages.delete(m.id);
        continue;
      }
      if (m.visibleAt > now) continue;
      if (this.opts.deadLetterQueue && m.receiveCount >= this.maxReceives) {
        this.messages.delete(m.id);
        this.redriven++;
        void this.opts.deadLetterQueue.send(m.body);
        continue;
      }
      m.receiveCount += 1;
      m.receipt = `${m.id}#${m.receiveCount}#${randomUUID().slice(0, 8)}`;
      m.visibleAt = now + this.visibilityMs;
      out.push({ id: m.id, receipt: m.receipt, body: m.body, receiveCount: m.receiveCount });
    }
    return out;
  }

  private msUntilNextVisible(): number {
    const now = this.now();
    let next = Infinity;
    for (const m of this.messages.values()) if (m.visibleAt > now) next = Math.min(next, m.visibleAt - now);
    return Math.max(1, next);
  }

  private waitForChange(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(ms, 2 ** 31 - 1));
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}
