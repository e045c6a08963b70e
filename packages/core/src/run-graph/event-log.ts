import type { Table } from '../ports/table.ts';
import { ConditionFailedError } from '../ports/table.ts';
import type { Clock } from '../ports/clock.ts';
import { runGraphKeys as k } from '../store/run-graph-keys.ts';
import { stripLayout } from '../store/keys.ts';
import { runEventPayloads, type RunEvent, type RunEventInput } from './events.ts';

/** Events stay replayable for a week (the stream itself times out after an hour). */
const EVENT_TTL_SECONDS = 7 * 24 * 3600;
const MAX_APPEND_ATTEMPTS = 200;

/**
 * The event log of each thread, in the Store: every SSE event gets the next id of its
 * thread, so a client that reconnects with Last-Event-ID gets exactly what it missed,
 * from any process. An event and the counter move in one transaction, so ids have no
 * gaps and a reader never skips an event still being written. Appends from one process
 * are queued per thread (no lost races among them); across processes the conditional
 * write decides.
 *
 * Listeners (`watch`) are only woken up: they read the log themselves, at their own
 * pace, so a slow client costs one bounded page, never a growing queue.
 */
export function createEventLog(table: Table, clock: Clock, opts: { onAppend?: (threadId: string, event: RunEvent) => void } = {}) {
  const queues = new Map<string, Promise<unknown>>();
  const watchers = new Map<string, Set<() => void>>();

  async function appendNow(threadId: string, input: RunEventInput): Promise<RunEvent> {
    const data = fitEvent(input.type, runEventPayloads[input.type].parse(input.data) as Record<string, unknown>);
    for (let attempt = 0; attempt < MAX_APPEND_ATTEMPTS; attempt++) {
      const counter = await table.get(k.eventCounter(threadId));
      const last = (counter?.seq as number | undefined) ?? 0;
      const event: RunEvent = { id: last + 1, type: input.type, data, created_at: clock.now().toISOString() };
      try {
        await table.transact([
          counter
            ? { type: 'update', update: { key: k.eventCounter(threadId), set: { seq: event.id }, condition: { kind: 'equals', attr: 'seq', value: last } } }
            : { type: 'put', item: { ...k.eventCounter(threadId), entity: 'event_counter', seq: event.id }, condition: { kind: 'notExists' } },
          { type: 'put', item: { ...k.event(threadId, event.id), entity: 'run_event', ...event, expiresAt: Math.floor(clock.now().getTime() / 1000) + EVENT_TTL_SECONDS } },
        ]);
        return event;
      } catch (err) {
        if (!(err instanceof ConditionFailedError)) throw err;
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(20, 2 ** attempt)));
      }
    }
    throw new Error(`could not append an event to thread ${threadId}: the log kept moving`);
  }

  return {
    /** Appends an event; resolves with it once it is stored and watchers are woken. */
    append(threadId: string, input: RunEventInput): Promise<RunEvent> {
      const previous = queues.get(threadId) ?? Promise.resolve();
      const next = previous.catch(() => {}).then(() => appendNow(threadId, input));
      queues.set(threadId, next);
      return next.then(
        (event) => {
          if (queues.get(threadId) === next) queues.delete(threadId);
          opts.onAppend?.(threadId, event);
          for (const wake of watchers.get(threadId) ?? []) wake();
          return event;
        },
        (err) => {
          if (queues.get(threadId) === next) queues.delete(threadId);
          throw err;
        },
      );
    },

    /** Events with an id greater than `afterId`, oldest first, at most `limit`. */
    async after(threadId: string, afterId: number, limit = 100): Promise<RunEvent[]> {
      const page = await table.query({ pk: k.eventPartition(threadId), skFrom: k.event(threadId, afterId + 1).sk, limit });
      return page.items.map((i) => {
        const { expiresAt: _e, ...event } = stripLayout<RunEvent & { expiresAt?: number }>(i);
        return event;
      });
    },

    /** Id of the thread's newest event (0 when none). */
    async lastId(threadId: string): Promise<number> {
      const counter = await table.get(k.eventCounter(threadId));
      return (counter?.seq as number | undefined) ?? 0;
    },

    /** Calls `wake` after each append to the thread in this process; returns the unsubscribe. */
    watch(threadId: string, wake: () => void): () => void {
      let set = watchers.get(threadId);
      if (!set) watchers.set(threadId, (set = new Set()));
      set.add(wake);
      return () => {
        set.delete(wake);
        if (!set.size) watchers.delete(threadId);
      };
    },

    /** Watchers currently registered (for status and leak checks). */
    watcherCount(threadId?: string): number {
      if (threadId) return watchers.get(threadId)?.size ?? 0;
      let n = 0;
      for (const s of watchers.values()) n += s.size;
      return n;
    },
  };
}

export type EventLog = ReturnType<typeof createEventLog>;

/** Below DynamoDB's 400 KB item limit, with room for the item's other attributes. */
const MAX_EVENT_CHARS = 350_000;

/**
 * Keeps an event within one item: a state_update sheds the per-result details (steps,
 * fingerprints) and then the conversation; a screenshot too large is sent without its
 * pixels (the artifact stays with the result); other text is truncated. Each says so.
 */
export function fitEvent(type: string, data: Record<string, unknown>): Record<string, unknown> {
  if (JSON.stringify(data).length <= MAX_EVENT_CHARS) return data;
  if (type === 'state_update') {
    const state = structuredClone(data.state) as Record<string, unknown> & { test_results?: Array<{ metadata?: unknown }>; messages?: unknown[] };
    for (const r of state.test_results ?? []) r.metadata = { omitted: true };
    const slim = { state, truncated: 'test_results[].metadata' };
    if (JSON.stringify(slim).length <= MAX_EVENT_CHARS) return slim;
    state.messages = [];
    state.testable_surfaces = [];
    return { state, truncated: 'test_results[].metadata, messages, testable_surfaces' };
  }
  if (type === 'screenshot') return { ...data, base64: '', truncated: `screenshot of ${String(data.base64).length} base64 characters not sent` };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) out[k] = typeof v === 'string' && v.length > 100_000 ? `${v.slice(0, 100_000)}… (truncated)` : v;
  return out;
}
