/** A minimal SSE client over fetch: parses events, keeps ids, can stop early. */
export interface SseEvent {
  id?: string;
  event: string;
  data: any;
  receivedAt: number;
}

export async function openSse(url: string, init: RequestInit & { headers?: Record<string, string> }) {
  const controller = new AbortController();
  const res = await fetch(url, { ...init, signal: controller.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let retry: number | undefined;
  const waiters: Array<{ pred: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }> = [];
  const done = (async () => {
    if (!res.body) return;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const e: Partial<SseEvent> = { event: 'message' };
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('event: ')) e.event = line.slice(7);
            else if (line.startsWith('id: ')) e.id = line.slice(4);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
            else if (line.startsWith('retry: ')) retry = Number(line.slice(7));
          }
          if (!data.length) continue;
          const ev: SseEvent = { ...(e as SseEvent), data: JSON.parse(data.join('\n')), receivedAt: performance.timeOrigin + performance.now() };
          events.push(ev);
          for (const w of [...waiters]) if (w.pred(ev)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(ev);
          }
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    res,
    events,
    comments,
    get retry() {
      return retry;
    },
    done,
    waitFor(pred: (e: SseEvent) => boolean, timeoutMs = 30_000): Promise<SseEvent> {
      const found = events.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no matching SSE event within ${timeoutMs} ms; got ${events.map((e) => e.event).join(',')}`)), timeoutMs);
        waiters.push({ pred, resolve: (e) => (clearTimeout(t), resolve(e)) });
      });
    },
    close() {
      controller.abort();
    },
  };
}
