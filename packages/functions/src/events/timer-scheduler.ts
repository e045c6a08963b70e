import type { EventEnvelope } from '@svc/core/contracts/events';
import type { EventPublisher } from '@svc/core/ports/events';
import type { Logger } from '@svc/core/ports/logger';
import type { RetryScheduler } from '@svc/core/events/ports';

/** Starts a timer; returns a cancel function. Injected so tests observe delays without waiting. */
export type SetTimer = (ms: number, fn: () => void) => () => void;

export const realTimer: SetTimer = (ms, fn) => {
  const t = setTimeout(fn, ms);
  t.unref?.();
  return () => clearTimeout(t);
};

/**
 * The dlq processor's back-off locally: publish after the delay with a timer. Pending
 * republishes live in memory, so a local restart forgets them; the dead letter itself
 * is already marked processed, which is why the AWS adapter (SqsRetryScheduler) keeps
 * them in a delay queue instead.
 */
export class TimerRetryScheduler implements RetryScheduler {
  private readonly pending = new Set<() => void>();

  constructor(
    private readonly publisher: EventPublisher,
    private readonly logger: Logger,
    private readonly setTimer: SetTimer = realTimer,
  ) {}

  async schedule(event: EventEnvelope, delaySeconds: number): Promise<void> {
    let cancel: () => void = () => {};
    const fire = () => {
      this.pending.delete(cancel);
      this.publisher.publish(event).catch((err: Error) =>
        this.logger.error('scheduled republish failed', { event_id: event.event_id, event_type: event.event_type, error: err.message }),
      );
    };
    cancel = this.setTimer(delaySeconds * 1000, fire);
    this.pending.add(cancel);
  }

  /** Republishes still waiting. */
  get size(): number {
    return this.pending.size;
  }

  /** Cancels every pending republish (shutdown). */
  cancelAll(): void {
    for (const c of this.pending) c();
    this.pending.clear();
  }
}
