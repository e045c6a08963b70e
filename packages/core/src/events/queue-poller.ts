import type { Logger } from '../ports/logger.ts';
import { envelopeText } from './bus-event.ts';
import type { ConsumerRunner } from './consumer.ts';
import type { InboundRecord, MessageQueue, QueueMessage } from './ports.ts';

/**
 * Drives a consumer from a queue (spec rule 7): up to 10 records per poll, processed in
 * order, each acknowledged only after it was dealt with (manual commit). A message whose
 * processing rejected is left alone: it reappears after the visibility timeout, and the
 * queue moves it to its dead-letter queue after maxReceiveCount receives. Nothing a
 * message does stops the loop.
 */
export interface PollerOptions {
  logger: Logger;
  /** Records per poll (spec: 10; SQS's maximum). */
  batchSize?: number;
  /** Long-poll wait for the first message. */
  waitMs?: number;
  /** Pause after a receive error (the queue itself failing). */
  errorBackoffMs?: number;
  /**
   * Called after every poll that reached the queue, with or without messages: the
   * consumer is alive (svc_worker_last_heartbeat_seconds). Not after a failed receive.
   */
  onAlive?: () => void;
}

/** The record a consumer sees for a queue message (the bus wrapper removed). */
export function recordFromMessage(msg: QueueMessage): InboundRecord {
  return { value: envelopeText(msg.body), partition: 0, offset: msg.id, receiveCount: msg.receiveCount };
}

export class QueuePoller {
  private controller?: AbortController;
  private loop?: Promise<void>;
  private readonly batchSize: number;

  constructor(
    readonly queue: MessageQueue,
    readonly runner: ConsumerRunner,
    private readonly opts: PollerOptions,
  ) {
    this.batchSize = Math.min(opts.batchSize ?? 10, 10);
  }

  /** Starts polling in the background (idempotent). */
  start(): void {
    if (this.loop) return;
    this.controller = new AbortController();
    const signal = this.controller.signal;
    this.loop = (async () => {
      while (!signal.aborted) {
        try {
          await this.pollOnce(signal);
          this.opts.onAlive?.();
        } catch (err) {
          if (signal.aborted) break;
          this.opts.logger.error('queue receive failed', { queue: this.queue.name, error: (err as Error).message });
          await sleep(this.opts.errorBackoffMs ?? 1000, signal);
        }
      }
    })();
  }

  /** Stops polling; resolves once the batch in hand is finished. */
  async stop(): Promise<void> {
    this.controller?.abort();
    await this.loop;
    this.loop = undefined;
  }

  /** One poll: receive, process each in order, acknowledge the ones dealt with. Returns how many were received. */
  async pollOnce(signal?: AbortSignal, waitMs = this.opts.waitMs ?? 1000): Promise<number> {
    const messages = await this.queue.receive({ max: this.batchSize, waitMs, signal });
    for (const msg of messages) {
      try {
        await this.runner.process(recordFromMessage(msg));
        await this.queue.ack(msg.receipt);
      } catch (err) {
        this.opts.logger.error('message not processed; it will be redelivered', {
          queue: this.queue.name, message_id: msg.id, receive_count: msg.receiveCount, error: (err as Error).message,
        });
      }
    }
    return messages.length;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
  });
}
