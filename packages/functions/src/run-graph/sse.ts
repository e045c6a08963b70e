import type { SSEStreamingApi } from 'hono/streaming';
import { limits } from '@svc/core/contracts/limits';
import type { EventLog } from '@svc/core/run-graph/event-log';

export interface SseOptions {
  /** A comment line after this long without a write (spec: 15 s). */
  keepAliveMs: number;
  /** The stream ends after this long; the client reconnects with Last-Event-ID (spec: 3600 s; on Lambda, less than the function's limit). */
  maxStreamMs: number;
  /** A client that does not take a write for this long is dropped (its events stay in the log). */
  writeTimeoutMs: number;
  /** Poll the Store this often for events appended by other processes (Lambda). */
  pollMs: number;
  /** Client reconnection delay sent as `retry:`. */
  retryMs: number;
  pageSize: number;
}

export const defaultSseOptions: SseOptions = {
  keepAliveMs: limits.STREAM_KEEPALIVE_SECONDS * 1000,
  maxStreamMs: limits.STREAM_TIMEOUT_SECONDS * 1000,
  writeTimeoutMs: 30_000,
  pollMs: 1_000,
  retryMs: 1_000,
  pageSize: 100,
};

class WriteTimeout extends Error {}

/**
 * Streams a thread's event log from `afterId`: what is stored first (replay), then new
 * events as they are appended — woken in-process by the log, or by polling for appends
 * from other processes. The loop reads one page at a time and awaits every write, so a
 * client that reads slowly holds at most one page and one chunk in memory, and one that
 * stops reading is dropped after writeTimeoutMs. Ends when the run has finished and
 * everything was sent, at maxStreamMs, or when the client goes away.
 */
export async function pumpEvents(
  stream: SSEStreamingApi,
  o: { events: EventLog; threadId: string; afterId: number; isFinished: () => Promise<boolean>; options?: Partial<SseOptions> },
): Promise<{ lastId: number; reason: 'finished' | 'timeout' | 'closed' | 'slow_client' }> {
  const opts = { ...defaultSseOptions, ...o.options };
  const until = Date.now() + opts.maxStreamMs;
  let last = o.afterId;
  let lastWrite = Date.now();
  let woke = false;
  let wake: (() => void) | undefined;
  const unwatch = o.events.watch(o.threadId, () => {
    woke = true;
    wake?.();
  });
  stream.onAbort(() => wake?.());

  const timed = async (write: Promise<unknown>) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([write, new Promise((_, reject) => (timer = setTimeout(() => reject(new WriteTimeout()), opts.writeTimeoutMs)))]);
      lastWrite = Date.now();
    } finally {
      clearTimeout(timer);
    }
  };

  try {
    await timed(stream.write(`retry: ${opts.retryMs}\n\n`));
    while (!stream.aborted && !stream.closed) {
      woke = false;
      const page = await o.events.after(o.threadId, last, opts.pageSize);
      for (const e of page) {
        if (stream.aborted) break;
        await timed(stream.writeSSE({ event: e.type, id: String(e.id), data: JSON.stringify(e.data) }));
        last = e.id;
      }
      if (page.length === opts.pageSize) continue;
      if ((await o.isFinished()) && last >= (await o.events.lastId(o.threadId))) return { lastId: last, reason: 'finished' };
      const now = Date.now();
      if (now >= until) return { lastId: last, reason: 'timeout' };
      if (!woke && !stream.aborted) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, Math.max(1, Math.min(opts.pollMs, opts.keepAliveMs - (now - lastWrite), until - now)));
        });
        clearTimeout(timer);
        wake = undefined;
      }
      if (!stream.aborted && Date.now() - lastWrite >= opts.keepAliveMs) await timed(stream.write(': keep-alive\n\n'));
    }
    return { lastId: last, reason: 'closed' };
  } catch (err) {
    if (err instanceof WriteTimeout) {
      stream.abort();
      return { lastId: last, reason: 'slow_client' };
    }
    throw err;
  } finally {
    unwatch();
  }
}

/** Last-Event-ID (header, or a query/body fallback for clients that cannot set it) as a number. */
export function parseLastEventId(...candidates: Array<string | number | undefined | null>): number {
  for (const c of candidates) {
    if (c === undefined || c === null || c === '') continue;
    const n = Number(c);
    if (Number.isInteger(n) && n >= 0) return n;
  }
  return 0;
}
