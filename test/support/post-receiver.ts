import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedPost {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, any>;
  /** The body as received (a signature is over these bytes). */
  raw: string;
  answered: number;
}

/**
 * A receiver of svc's outbound POSTs (Slack's response_url, an automation callback_url) on
 * 127.0.0.1: takes a JSON POST on any path under `prefix` and answers 200 (or the next
 * scripted status, `answerNext(500)`), keeping what it received — the raw bytes too, for
 * checking a signature.
 */
export async function startPostReceiver(prefix: string) {
  const received: ReceivedPost[] = [];
  const script: number[] = [];
  const waiters: Array<{ path: string; resolve: (p: ReceivedPost) => void }> = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const path = req.url ?? '/';
      if (req.method !== 'POST' || !path.startsWith(prefix)) {
        res.writeHead(404).end('no_such_url');
        return;
      }
      let body: Record<string, any> = {};
      try {
        body = JSON.parse(raw);
      } catch {
        res.writeHead(400).end('invalid_payload');
        return;
      }
      const answered = script.shift() ?? 200;
      res.writeHead(answered, { 'content-type': 'text/plain' }).end(answered === 200 ? 'ok' : 'internal_error');
      const post = { path, headers: req.headers, body, raw, answered };
      received.push(post);
      if (answered === 200) for (const w of waiters.filter((w) => w.path === path)) w.resolve(post);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    answerNext(...statuses: number[]) {
      script.push(...statuses);
    },
    /** The first 200-answered POST to `path` (one already received, or the next). */
    delivered(path: string, timeoutMs = 60_000): Promise<ReceivedPost> {
      const done = received.find((p) => p.path === path && p.answered === 200);
      if (done) return Promise.resolve(done);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`nothing was posted to ${path}`)), timeoutMs);
        waiters.push({ path, resolve: (p) => (clearTimeout(timer), resolve(p)) });
      });
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export type PostReceiver = Awaited<ReturnType<typeof startPostReceiver>>;
