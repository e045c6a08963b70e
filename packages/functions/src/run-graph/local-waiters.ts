import { randomUUID } from 'node:crypto';

export interface WaitOptions {
  threadId: string;
  expiresAt: string;
  /** Called once the approval's time is up; it decides "expired", which resolves the wait. */
  onExpire: () => Promise<void>;
  /** Checks the Store for a decision made elsewhere (another process, or before this wait began). */
  poll: () => Promise<Record<string, unknown> | undefined>;
}

interface Waiter {
  threadId: string;
  resolve: (output: Record<string, unknown>) => void;
  reject: (err: Error) => void;
  timers: NodeJS.Timeout[];
}

/** Longest single setTimeout (2^31-1 ms); longer waits re-arm. */
const MAX_TIMER_MS = 2_147_000_000;

/**
 * .waitForTaskToken, locally: a waiting approval Task holds a promise under its task
 * token until SendTaskSuccess (the approval endpoints) resolves it. Same semantics as
 * Step Functions: the token is stored with the approval, a decision made before the wait
 * is picked up, expiry is a decision ("expired"), and a cancelled run rejects its waits.
 */
export function createLocalWaiters(opts: { pollMs?: number } = {}) {
  const waiters = new Map<string, Waiter>();
  /** Decisions delivered before their wait registered (a race the Store poll would also catch). */
  const early = new Map<string, Record<string, unknown>>();
  const pollMs = opts.pollMs ?? 2_000;

  return {
    newToken(): string {
      return `local:${randomUUID()}`;
    },

    wait(token: string, o: WaitOptions): Promise<Record<string, unknown>> {
      const already = early.get(token);
      if (already) {
        early.delete(token);
        return Promise.resolve(already);
      }
      return new Promise((resolve, reject) => {
        const w: Waiter = { threadId: o.threadId, resolve, reject, timers: [] };
        const done = () => {
          for (const t of w.timers) clearTimeout(t);
          waiters.delete(token);
        };
        w.resolve = (out) => (done(), resolve(out));
        w.reject = (err) => (done(), reject(err));
        waiters.set(token, w);
        const armExpiry = () => {
          const left = Date.parse(o.expiresAt) - Date.now();
          if (left > MAX_TIMER_MS) w.timers.push(setTimeout(armExpiry, MAX_TIMER_MS));
          else w.timers.push(setTimeout(() => void o.onExpire().catch(() => {}), Math.max(0, left)));
        };
        armExpiry();
        const poll = async () => {
          if (!waiters.has(token)) return;
          const out = await o.poll().catch(() => undefined);
          if (out) w.resolve(out);
          else if (waiters.has(token)) w.timers.push(setTimeout(() => void poll(), pollMs));
        };
        void poll();
      });
    },

    /** SendTaskSuccess: false when no wait holds the token (the decision is kept briefly for one). */
    resolve(token: string, output: Record<string, unknown>): boolean {
      const w = waiters.get(token);
      if (w) {
        w.resolve(output);
        return true;
      }
      early.set(token, output);
      setTimeout(() => early.delete(token), 60_000).unref();
      return false;
    },

    /** Rejects every wait of a thread (cancel, shutdown). */
    rejectThread(threadId: string, err: Error): void {
      for (const w of [...waiters.values()]) if (w.threadId === threadId) w.reject(err);
    },

    rejectAll(err: Error): void {
      for (const w of [...waiters.values()]) w.reject(err);
    },

    size(): number {
      return waiters.size;
    },
  };
}

export type LocalWaiters = ReturnType<typeof createLocalWaiters>;
