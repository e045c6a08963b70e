import type { EventEnvelope, EventType } from '../contracts/events.ts';
import type { Clock, IdSource } from '../ports/clock.ts';
import type { EventPublisher } from '../ports/events.ts';
import type { Logger } from '../ports/logger.ts';
import { ConditionFailedError, type Table, type WriteOp } from '../ports/table.ts';
import { checkEvent } from './validate.ts';
import { buildDeadLetter, HandlerTimeoutError } from './dead-letter.ts';
import { clearOutbox, DEDUPE_TTL_SECONDS, dedupeItem, dedupeKey, pendingOutbox, type OutboxEntry } from './dedupe.ts';
import type { InboundRecord, RetryScheduler } from './ports.ts';

/**
 * The consumer runner: what every consumer does with one message, whatever the
 * transport (local queue, SQS-triggered Lambda, Kafka). Validate → skip duplicates →
 * run the handler under a deadline → commit its writes with the dedupe record in one
 * transaction → publish its events (outbox) → or, on failure, publish a dead letter.
 * It resolves for every message it has dealt with, so the transport acknowledges; it
 * rejects only when even the dead letter could not be published, so the transport
 * redelivers (and the queue's own redrive catches a message that keeps doing that).
 */

/** One handler's view of the world: its deadline, and how it declares effects. */
export interface HandlerContext {
  consumer: string;
  signal: AbortSignal;
  /** Epoch milliseconds by which the handler must finish. */
  deadline: number;
  log: Logger;
  table: Table;
  clock: Clock;
  /** Deliveries of this message so far (1 on the first). */
  receiveCount: number;
  /** A table write committed atomically with the dedupe record (at most 24 per event). */
  write(op: WriteOp): void;
  /** An event published after the commit, optionally after a delay (transactional outbox). */
  emit(event: EventEnvelope, opts?: { delaySeconds?: number }): void;
  /** Work to run after the commit (alerts); failures are logged, never retried. */
  afterCommit(fn: () => Promise<void> | void): void;
}

export type EventHandler = (event: EventEnvelope, ctx: HandlerContext) => Promise<void> | void;

export interface ConsumerDefinition {
  name: string;
  handlers: Partial<Record<EventType, EventHandler>>;
  /** Handler deadline; a handler past it is abandoned and the event dead-lettered. */
  timeoutMs?: number;
}

/** Observes outcomes (metrics); optional. */
export interface ConsumerObserver {
  outcome(consumer: string, status: ProcessOutcome['status'], seconds: number): void;
  deadLettered(consumer: string, errorType: string): void;
}

export interface ConsumerDeps {
  table: Table;
  publisher: EventPublisher;
  logger: Logger;
  clock: Clock;
  ids?: IdSource;
  /** Needed only by handlers that emit with a delay (the dlq processor). */
  scheduler?: RetryScheduler;
  observer?: ConsumerObserver;
  dedupeTtlSeconds?: number;
}

export interface ProcessOutcome {
  status: 'processed' | 'duplicate' | 'ignored' | 'dead_lettered';
  event_id?: string;
  event_type?: string;
  reason?: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** Optimistic-concurrency retries when a handler's own condition loses a race. */
const CONFLICT_ATTEMPTS = 3;
/** Outboxes larger than this are published before the commit (a DynamoDB item holds 400 KB). */
const MAX_OUTBOX_CHARS = 350_000;

interface Collected {
  writes: WriteOp[];
  outbox: OutboxEntry[];
  after: (() => Promise<void> | void)[];
}

export class ConsumerRunner {
  private readonly ttl: number;
  constructor(
    readonly definition: ConsumerDefinition,
    private readonly deps: ConsumerDeps,
  ) {
    this.ttl = deps.dedupeTtlSeconds ?? DEDUPE_TTL_SECONDS;
  }

  /** Deal with one message. See the class comment for when it rejects. */
  async process(record: InboundRecord): Promise<ProcessOutcome> {
    const started = performance.now();
    const outcome = await this.processInner(record);
    this.deps.observer?.outcome(this.definition.name, outcome.status, (performance.now() - started) / 1000);
    return outcome;
  }

  private async processInner(record: InboundRecord): Promise<ProcessOutcome> {
    const { table, logger } = this.deps;
    let event: EventEnvelope;
    try {
      event = checkEvent(record.value);
    } catch (err) {
      return this.deadLetter(record, undefined, err);
    }
    const handler = this.definition.handlers[event.event_type];
    if (!handler) {
      logger.debug('event type not handled by this consumer', { consumer: this.definition.name, event_type: event.event_type });
      return { status: 'ignored', event_id: event.event_id, event_type: event.event_type };
    }
    const retryFor = event.metadata.retry_for;
    if (typeof retryFor === 'string' && retryFor !== this.definition.name) {
      // A dlq republish meant for the consumer that failed; this one already processed it.
      return { status: 'ignored', event_id: event.event_id, event_type: event.event_type, reason: `retry for ${retryFor}` };
    }
    const key = dedupeKey(this.definition.name, event.event_id);
    const seen = await table.get(key);
    if (seen) return this.duplicate(event, seen);

    for (let attempt = 1; ; attempt++) {
      let collected: Collected;
      try {
        collected = await this.run(handler, event, record);
      } catch (err) {
        return this.deadLetter(record, event, err);
      }
      let unpublished: OutboxEntry[];
      try {
        unpublished = await this.commit(event, collected);
      } catch (err) {
        if (err instanceof ConditionFailedError && (err.opIndex === 0 || err.opIndex === undefined)) {
          return this.duplicate(event, await table.get(key));
        }
        if (err instanceof ConditionFailedError && attempt < CONFLICT_ATTEMPTS) continue;
        return this.deadLetter(record, event, err);
      }
      if (unpublished.length) {
        // The effect is committed; if publishing fails now, this rejects and the
        // redelivery finds the outbox in the dedupe record and publishes it then.
        await this.publishAll(unpublished);
        await clearOutbox(table, key);
      }
      for (const fn of collected.after) {
        await Promise.resolve()
          .then(fn)
          .catch((e: unknown) => logger.error('after-commit step failed', { consumer: this.definition.name, event_id: event.event_id, error: String(e) }));
      }
      return { status: 'processed', event_id: event.event_id, event_type: event.event_type };
    }
  }

  /** Runs the handler against a deadline; its effects are only collected, so a late one is harmless. */
  private async run(handler: EventHandler, event: EventEnvelope, record: InboundRecord): Promise<Collected> {
    const timeoutMs = this.definition.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const controller = new AbortController();
    const collected: Collected = { writes: [], outbox: [], after: [] };
    let open = true;
    const guard = <A extends unknown[]>(fn: (...a: A) => void) => (...a: A) => {
      if (open) fn(...a);
    };
    const ctx: HandlerContext = {
      consumer: this.definition.name,
      signal: controller.signal,
      deadline: Date.now() + timeoutMs,
      log: this.deps.logger,
      table: this.deps.table,
      clock: this.deps.clock,
      receiveCount: record.receiveCount ?? 1,
      write: guard((op: WriteOp) => collected.writes.push(op)),
      emit: guard((e: EventEnvelope, opts?: { delaySeconds?: number }) => collected.outbox.push({ event: e, delaySeconds: opts?.delaySeconds })),
      afterCommit: guard((fn: () => Promise<void> | void) => collected.after.push(fn)),
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort(new HandlerTimeoutError(timeoutMs));
        reject(new HandlerTimeoutError(timeoutMs));
      }, timeoutMs);
    });
    try {
      await Promise.race([Promise.resolve().then(() => handler(event, ctx)), timeout]);
    } finally {
      open = false;
      clearTimeout(timer);
    }
    if (collected.writes.length > 24) throw new Error(`handler declared ${collected.writes.length} writes; at most 24 fit a transaction with the dedupe record`);
    return collected;
  }

  /** Commits the writes with the dedupe record; returns the outbox entries still to publish. */
  private async commit(event: EventEnvelope, collected: Collected): Promise<OutboxEntry[]> {
    const { table, clock } = this.deps;
    let outbox = collected.outbox;
    if (outbox.length && JSON.stringify(outbox).length > MAX_OUTBOX_CHARS) {
      // Too big to keep in the dedupe record: publish first (at-least-once instead of once).
      await this.publishAll(outbox);
      outbox = [];
    }
    const item = dedupeItem({ consumer: this.definition.name, event, now: clock.now(), ttlSeconds: this.ttl, outbox });
    if (collected.writes.length === 0) await table.put(item, { kind: 'notExists' });
    else await table.transact([{ type: 'put', item, condition: { kind: 'notExists' } }, ...collected.writes]);
    return outbox;
  }

  /** A redelivery: the effect exists. Finish an outbox a crash left behind, then acknowledge. */
  private async duplicate(event: EventEnvelope, seen: Awaited<ReturnType<Table['get']>>): Promise<ProcessOutcome> {
    const pending = pendingOutbox(seen);
    if (pending.length) {
      await this.publishAll(pending);
      await clearOutbox(this.deps.table, dedupeKey(this.definition.name, event.event_id));
    }
    this.deps.logger.debug('duplicate event skipped', { consumer: this.definition.name, event_id: event.event_id });
    return { status: 'duplicate', event_id: event.event_id, event_type: event.event_type };
  }

  private async publishAll(outbox: OutboxEntry[]): Promise<void> {
    for (const { event, delaySeconds } of outbox) {
      if (delaySeconds && delaySeconds > 0) {
        if (!this.deps.scheduler) throw new Error(`consumer ${this.definition.name} emitted a delayed event but has no scheduler`);
        await this.deps.scheduler.schedule(event, delaySeconds);
      } else {
        await this.deps.publisher.publish(event);
      }
    }
  }

  private async deadLetter(record: InboundRecord, event: EventEnvelope | undefined, err: unknown): Promise<ProcessOutcome> {
    const error = err instanceof Error ? err : new Error(String(err));
    const fields = { consumer: this.definition.name, event_id: event?.event_id, event_type: event?.event_type, error_type: error.name, error: error.message };
    if (event?.event_type === 'dlq') {
      // No dead letter of a dead letter: let the queue's redrive take it (alarmed DLQ depth).
      this.deps.logger.error('dead-letter processing failed; leaving it to the queue redrive', fields);
      throw error;
    }
    const dlq = buildDeadLetter({ consumer: this.definition.name, record, event, error }, { clock: this.deps.clock, ids: this.deps.ids });
    this.deps.logger.warn('event dead-lettered', { ...fields, dlq_event_id: dlq.event_id, retry_count: dlq.metadata.retry_count });
    await this.deps.publisher.publish(dlq);
    this.deps.observer?.deadLettered(this.definition.name, error.name);
    return { status: 'dead_lettered', event_id: event?.event_id, event_type: event?.event_type, reason: `${error.name}: ${error.message}` };
  }
}
