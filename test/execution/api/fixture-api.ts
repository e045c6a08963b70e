import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small real JSON API on 127.0.0.1 for API-step tests:
 *   GET  /users              list (x-request-id, etag, cache-control headers)
 *   GET  /users/:id          one user, or 404 problem+json
 *   POST /users              JSON body; 400 {error} without a name, 201 + location otherwise
 *   ANY  /echo               what the server received: method, url, query, headers, body text
 *   GET  /html               an HTML page (text/html)
 *   GET  /slow?ms=N          answers after N ms
 *   GET  /slow-body?ms=N     sends headers at once, the body after N ms
 *   GET  /redirect           302 → /users
 *   POST /redirect-303       303 → /echo (the client switches to GET)
 *   POST /redirect-307       307 → /echo (method and body kept)
 *   GET  /redirect-to?url=U  302 → U
 *   GET  /loop               302 → /loop, forever
 *   POST /sign-in            303 → /users with a Set-Cookie (a form login)
 *   GET  /stream?mb=N        N MiB of JSON text, chunked (no content-length)
 *   GET  /invalid-json       application/json with a body that is not JSON
 *   GET  /no-content         204
 *   GET  /plain-json         JSON text without a content type
 *   GET  /big-id             {"id": 9007199254740993}: an integer beyond 2^53
 *   GET  /broken?status=N    a server error: status N (default 500), {"error": "database unavailable"}
 */
export interface FixtureApi {
  url: string;
  port: number;
  close(): Promise<void>;
}

const users = [
  { id: 1, name: 'Ada Lovelace', email: 'ada@example.com', roles: ['admin', 'dev'], active: true, manager: null },
  { id: 2, name: 'Grace Hopper', email: 'grace@example.com', roles: ['dev'], active: true, manager: 1 },
  { id: 3, name: 'Linus', email: 'linus@example.com', roles: [], active: false, manager: 1 },
];

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

async function handle(req: IncomingMessage, res: ServerResponse, base: () => string) {
  const url = new URL(req.url ?? '/', base());
  const path = url.pathname;
  const method = req.method ?? 'GET';
  const body = await readBody(req);

  if (path === '/users' && (method === 'GET' || method === 'HEAD')) {
    return json(res, 200, { total: users.length, items: users }, { 'x-request-id': 'req-123', etag: 'W/"abc"', 'cache-control': 'no-store, max-age=0' });
  }
  const one = /^\/users\/(\d+)$/.exec(path);
  if (one && method === 'GET') {
    const user = users.find((u) => u.id === Number(one[1]));
    if (!user) return json(res, 404, { title: 'Not Found', detail: `no user ${one[1]}` }, { 'content-type': 'application/problem+json' });
    return json(res, 200, user);
  }
  if (path === '/users' && method === 'POST') {
    if (!/application\/json/.test(req.headers['content-type'] ?? '')) return json(res, 415, { error: 'send JSON' });
    let input: { name?: unknown; email?: unknown };
    try {
      input = JSON.parse(body);
    } catch {
      return json(res, 400, { error: 'malformed JSON' });
    }
    if (typeof input.name !== 'string' || input.name === '') return json(res, 400, { error: 'name is required', field: 'name' });
    const created = { id: 100 + users.length, name: input.name, email: input.email ?? null, roles: [] as string[], created_at: '2024-05-01T12:00:00.000Z' };
    return json(res, 201, created, { location: `/users/${created.id}` });
  }
  if (path === '/echo') {
    return json(res, 200, { method, url: req.url, query: Object.fromEntries(url.searchParams), headers: req.headers, body });
  }
  if (path === '/broken') {
    return json(res, Number(url.searchParams.get('status') ?? 500), { error: 'database unavailable' });
  }
  if (path === '/big-id') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end('{"id": 9007199254740993, "name": "order"}');
  }
  if (path === '/html') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    return res.end('<!doctype html>\n<html><head><title>Login</title></head>\n<body><h1>Please sign in</h1></body></html>');
  }
  if (path === '/slow') {
    const ms = Number(url.searchParams.get('ms') ?? 1000);
    const timer = setTimeout(() => json(res, 200, { slept: ms }), ms);
    res.on('close', () => clearTimeout(timer));
    return;
  }
  if (path === '/slow-body') {
    const ms = Number(url.searchParams.get('ms') ?? 1000);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"part":');
    const timer = setTimeout(() => res.end('1}'), ms);
    res.on('close', () => clearTimeout(timer));
    return;
  }
  if (path === '/redirect') {
    res.writeHead(302, { location: '/users' });
    return res.end();
  }
  if (path === '/redirect-303') {
    res.writeHead(303, { location: '/echo' });
    return res.end();
  }
  if (path === '/redirect-307') {
    res.writeHead(307, { location: '/echo' });
    return res.end();
  }
  if (path === '/redirect-to') {
    res.writeHead(302, { location: url.searchParams.get('url') ?? '/' });
    return res.end();
  }
  if (path === '/sign-in') {
    res.writeHead(303, { location: '/users', 'set-cookie': 'session=abc; Path=/; HttpOnly' });
    return res.end();
  }
  if (path === '/stream') {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let left = Number(url.searchParams.get('mb') ?? 1);
    const pump = () => {
      while (left > 0) {
        left--;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end('{}');
    };
    res.on('close', () => (left = 0));
    return pump();
  }
  if (path === '/loop') {
    res.writeHead(302, { location: '/loop' });
    return res.end();
  }
  if (path === '/invalid-json') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end('{"items": [1, 2,');
  }
  if (path === '/no-content') {
    res.writeHead(204);
    return res.end();
  }
  if (path === '/plain-json') {
    res.writeHead(200, {});
    return res.end('{"ok":true}');
  }
  json(res, 404, { error: 'not found' });
}

export async function startFixtureApi(): Promise<FixtureApi> {
  let url = '';
  const server: Server = createServer((req, res) => {
    handle(req, res, () => url).catch((err) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
