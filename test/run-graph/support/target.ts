import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A tiny app under test for API tests: /ok answers 200 JSON, /fail 500, /slow?ms=N waits
 * N ms, /gate waits until released (to hold a test mid-run). It counts the requests per
 * path so tests can tell how often a test really ran.
 */
export async function startTarget() {
  const hits = new Map<string, number>();
  let gate: { promise: Promise<void>; release: () => void } | undefined;
  let broken = true;
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const key = url.pathname + (url.searchParams.get('id') ? `?id=${url.searchParams.get('id')}` : '');
    hits.set(key, (hits.get(key) ?? 0) + 1);
    if (url.pathname === '/slow') await new Promise((r) => setTimeout(r, Number(url.searchParams.get('ms') ?? 100)));
    if (url.pathname === '/gate' && gate) await gate.promise;
    if (url.pathname === '/page') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Shop</title><button id="buy-now" onclick="document.getElementById(\'done\').hidden=false">Buy</button><p id="done" hidden>Thanks</p>');
      return;
    }
    const status = url.pathname === '/fail' || (url.pathname === '/flaky' && broken) ? 500 : 200;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: status === 200, path: url.pathname, id: url.searchParams.get('id') }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    hits: (key: string) => hits.get(key) ?? 0,
    /** /flaky answers 500 while broken (the default), 200 once fixed. */
    setBroken(value: boolean) {
      broken = value;
    },
    closeGate() {
      let release!: () => void;
      const promise = new Promise<void>((r) => (release = r));
      gate = { promise, release };
    },
    openGate() {
      gate?.release();
      gate = undefined;
    },
    async stop() {
      gate?.release();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export type Target = Awaited<ReturnType<typeof startTarget>>;

/** A UI test on /page: clicks `selector` (the page's button is #buy-now), then expects the thanks. */
export function uiTest(name: string, selector: string) {
  return {
    name,
    description: null,
    type: 'ui' as const,
    steps: [{ type: 'goto' as const, url: '/page' }, { type: 'click' as const, selector }],
    assertions: [{ type: 'visible' as const, selector: '#done' }],
    priority: 'high' as const,
    tags: ['ui'],
  };
}

/** An API test: GET path, expect 200 and ok=true. */
export function apiTest(name: string, path: string, extra: { priority?: 'critical' | 'high' | 'medium' | 'low' } = {}) {
  return {
    name,
    description: null,
    type: 'api' as const,
    steps: [{ type: 'request' as const, method: 'GET' as const, url: path }],
    assertions: [{ type: 'status' as const, equals: 200 }, { type: 'json' as const, path: '$.ok', equals: true }],
    priority: extra.priority ?? ('medium' as const),
    tags: [],
  };
}
