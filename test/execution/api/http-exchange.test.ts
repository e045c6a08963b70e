import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiRequestStep } from '../../../packages/core/src/contracts/steps.ts';
import { StepFailure } from '../../../packages/core/src/execution/types.ts';
import { createHttpExchange, httpExchange } from '../../../packages/core/src/execution/api/http-exchange.ts';
import { startFixtureApi, closedPort, type FixtureApi } from './fixture-api.ts';

let api: FixtureApi;
beforeAll(async () => {
  api = await startFixtureApi();
});
afterAll(async () => {
  await api?.close();
});

const logs: string[] = [];
const ctx = (opts: { ms?: number; signal?: AbortSignal; baseUrl?: string | null } = {}) => ({
  signal: opts.signal ?? new AbortController().signal,
  deadline: Date.now() + (opts.ms ?? 5_000),
  log: (_level: string, message: string) => void logs.push(message),
  baseUrl: opts.baseUrl === null ? undefined : (opts.baseUrl ?? api.url),
});
const step = (input: Record<string, unknown>) => ApiRequestStep.parse({ type: 'request', ...input });

async function failure(p: Promise<unknown>): Promise<StepFailure> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(StepFailure);
    return err as StepFailure;
  }
  throw new Error('expected a StepFailure, the call succeeded');
}

describe('httpExchange: requests', () => {
  it('GET a relative URL against the base URL; JSON parsed, headers lower-cased, duration measured', async () => {
    const res = await httpExchange(step({ url: '/users' }), ctx());
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-request-id']).toBe('req-123');
    expect((res.body as { total: number }).total).toBe(3);
    expect(JSON.parse(res.text)).toEqual(res.body);
    expect(res.duration_ms).toBeGreaterThanOrEqual(0);
    expect(Number.isInteger(res.duration_ms)).toBe(true);
  });

  it('an absolute URL needs no base URL', async () => {
    const res = await httpExchange(step({ url: `${api.url}/users/2` }), ctx({ baseUrl: null }));
    expect(res.body).toMatchObject({ id: 2, name: 'Grace Hopper' });
  });

  it('query parameters are appended to those in the URL', async () => {
    const res = await httpExchange(step({ url: '/echo?a=1', query: { b: 'two words', c: 3, d: true } }), ctx());
    expect((res.body as { query: unknown }).query).toEqual({ a: '1', b: 'two words', c: '3', d: 'true' });
  });

  it('json body is sent as application/json', async () => {
    const res = await httpExchange(step({ method: 'POST', url: '/users', json: { name: 'Margaret', email: 'm@example.com' } }), ctx());
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe('/users/103');
    expect(res.body).toMatchObject({ id: 103, name: 'Margaret', email: 'm@example.com' });
  });

  it('the app validating the body answers 400 — a response, not a failure', async () => {
    const res = await httpExchange(step({ method: 'POST', url: '/users', json: { email: 'x@example.com' } }), ctx());
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'name is required', field: 'name' });
  });

  it('form bodies are urlencoded; raw bodies go as given with the given headers', async () => {
    const form = await httpExchange(step({ method: 'POST', url: '/echo', form: { q: 'a&b', n: 'é' } }), ctx());
    const fb = form.body as { headers: Record<string, string>; body: string };
    expect(fb.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(new URLSearchParams(fb.body).get('q')).toBe('a&b');
    expect(new URLSearchParams(fb.body).get('n')).toBe('é');

    const raw = await httpExchange(step({ method: 'PUT', url: '/echo', body: '<x>1</x>', headers: { 'Content-Type': 'application/xml', 'X-Trace': 't1' } }), ctx());
    const rb = raw.body as { method: string; headers: Record<string, string>; body: string };
    expect(rb).toMatchObject({ method: 'PUT', body: '<x>1</x>' });
    expect(rb.headers['content-type']).toBe('application/xml');
    expect(rb.headers['x-trace']).toBe('t1');
  });

  it('auth: bearer, basic (UTF-8) and a custom header', async () => {
    const headersOf = async (auth: Record<string, string>) => ((await httpExchange(step({ url: '/echo', auth }), ctx())).body as { headers: Record<string, string> }).headers;
    expect((await headersOf({ type: 'bearer', token: 'tok-1' })).authorization).toBe('Bearer tok-1');
    const basic = (await headersOf({ type: 'basic', username: 'ada', password: 'pässword' })).authorization;
    expect(Buffer.from(basic.replace(/^Basic /, ''), 'base64').toString('utf8')).toBe('ada:pässword');
    expect((await headersOf({ type: 'header', name: 'X-Api-Key', value: 'k-9' }))['x-api-key']).toBe('k-9');
  });

  it('HEAD and DELETE work; HEAD has no body', async () => {
    const head = await httpExchange(step({ method: 'HEAD', url: '/users' }), ctx());
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    const del = await httpExchange(step({ method: 'DELETE', url: '/echo' }), ctx());
    expect((del.body as { method: string }).method).toBe('DELETE');
  });
});

describe('httpExchange: response bodies', () => {
  it('HTML stays text', async () => {
    const res = await httpExchange(step({ url: '/html' }), ctx());
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(typeof res.body).toBe('string');
    expect(res.body).toBe(res.text);
    expect(res.text).toMatch(/^<!doctype html>/);
  });

  it('a JSON content type with an invalid body keeps the text and leaves body undefined', async () => {
    const res = await httpExchange(step({ url: '/invalid-json' }), ctx());
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();
    expect(res.text).toBe('{"items": [1, 2,');
  });

  it('problem+json is JSON; 204 has no body; unlabelled JSON text is parsed', async () => {
    const problem = await httpExchange(step({ url: '/users/99' }), ctx());
    expect(problem.status).toBe(404);
    expect(problem.body).toEqual({ title: 'Not Found', detail: 'no user 99' });
    const empty = await httpExchange(step({ url: '/no-content' }), ctx());
    expect(empty.status).toBe(204);
    expect(empty.body).toBe('');
    const plain = await httpExchange(step({ url: '/plain-json' }), ctx());
    expect(plain.body).toEqual({ ok: true });
  });
});

describe('httpExchange: redirects', () => {
  it('follows a redirect and reports the final response', async () => {
    const res = await httpExchange(step({ url: '/redirect' }), ctx());
    expect(res.status).toBe(200);
    expect((res.body as { total: number }).total).toBe(3);
  });

  it('303 after POST becomes a GET without body; 307 keeps method and body', async () => {
    const see = await httpExchange(step({ method: 'POST', url: '/redirect-303', json: { a: 1 } }), ctx());
    expect(see.body).toMatchObject({ method: 'GET', body: '' });
    expect((see.body as { headers: Record<string, string> }).headers['content-type']).toBeUndefined();
    const temp = await httpExchange(step({ method: 'POST', url: '/redirect-307', json: { a: 1 } }), ctx());
    expect(temp.body).toMatchObject({ method: 'POST', body: '{"a":1}' });
  });

  it('drops Authorization when a redirect changes origin, keeps it on the same origin', async () => {
    const same = await httpExchange(step({ url: `/redirect-to?url=${encodeURIComponent('/echo')}`, auth: { type: 'bearer', token: 's' } }), ctx());
    expect((same.body as { headers: Record<string, string> }).headers.authorization).toBe('Bearer s');
    const other = `http://localhost:${api.port}/echo`;
    const cross = await httpExchange(step({ url: `/redirect-to?url=${encodeURIComponent(other)}`, auth: { type: 'bearer', token: 's' } }), ctx());
    expect((cross.body as { headers: Record<string, string> }).headers.authorization).toBeUndefined();
  });

  it('follow_redirects: false answers the redirect itself: its status, Location and Set-Cookie', async () => {
    const res = await httpExchange(step({ method: 'POST', url: '/sign-in', form: { email: 'a@b.c' }, follow_redirects: false }), ctx());
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/users');
    expect(res.headers['set-cookie']).toContain('session=abc');
    // Followed (the default), the same request ends at the list.
    expect((await httpExchange(step({ method: 'POST', url: '/sign-in', form: { email: 'a@b.c' } }), ctx())).status).toBe(200);
  });

  it('too many redirects is a network failure', async () => {
    const f = await failure(httpExchange(step({ url: '/loop' }), ctx()));
    expect(f.kind).toBe('network');
    expect(f.message).toBe(`GET ${api.url}/loop: more than 20 redirects`);
  });
});

describe('httpExchange: response size', () => {
  it('a body past the cap fails the step, read no further; one under it is read whole', async () => {
    const capped = createHttpExchange({ maxBodyBytes: 2 * 1024 * 1024 });
    const f = await failure(capped(step({ url: '/stream?mb=8' }), ctx({ ms: 20_000 })));
    expect(f.kind).toBe('http');
    expect(f.message).toBe(`GET ${api.url}/stream?mb=8: the response body is larger than 2097152 bytes (2 MiB), more than svc reads; assert on its status and headers (a HEAD request), or ask for less`);
    const ok = await capped(step({ url: '/stream?mb=1' }), ctx({ ms: 20_000 }));
    expect(ok.status).toBe(200);
    expect(ok.text.length).toBe(1024 * 1024 + 2);
  });
});

describe('httpExchange: SSRF guard', () => {
  const guarded = createHttpExchange({ allowHost: (host) => host === '127.0.0.1' });

  it('allows listed hosts and refuses others before connecting', async () => {
    expect((await guarded(step({ url: '/users' }), ctx())).status).toBe(200);
    const f = await failure(guarded(step({ url: `http://localhost:${api.port}/users` }), ctx()));
    expect(f.kind).toBe('configuration');
    expect(f.message).toBe('requests to host localhost are not allowed on this runner');
  });

  it('checks every redirect target too', async () => {
    const f = await failure(guarded(step({ url: `/redirect-to?url=${encodeURIComponent(`http://localhost:${api.port}/echo`)}` }), ctx()));
    expect(f.kind).toBe('configuration');
    expect(f.message).toMatch(/host localhost are not allowed/);
  });

  it('sees IPv6 hosts without brackets', async () => {
    const seen: string[] = [];
    const probe = createHttpExchange({ allowHost: (h) => (seen.push(h), false) });
    await failure(probe(step({ url: 'http://[::1]:1/x' }), ctx()));
    expect(seen).toEqual(['::1']);
  });
});

describe('httpExchange: failures', () => {
  it('connection refused → network, naming method, URL and ECONNREFUSED', async () => {
    const port = await closedPort();
    const f = await failure(httpExchange(step({ method: 'POST', url: `http://127.0.0.1:${port}/users`, json: {} }), ctx()));
    expect(f.kind).toBe('network');
    expect(f.message).toMatch(new RegExp(`^POST http://127\\.0\\.0\\.1:${port}/users failed: ECONNREFUSED`));
    expect(f.details).toEqual({ code: 'ECONNREFUSED' });
  });

  it('an unresolvable host → network with the DNS code', async () => {
    const f = await failure(httpExchange(step({ url: 'http://no-such-host.invalid/x' }), ctx()));
    expect(f.kind).toBe('network');
    expect(f.message).toMatch(/^GET http:\/\/no-such-host\.invalid\/x failed: (ENOTFOUND|EAI_AGAIN)/);
  });

  it('an untrusted TLS certificate → network with the certificate code', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
    let server: HttpsServer | undefined;
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
      server = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => res.end('{}'));
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      const f = await failure(httpExchange(step({ url: `https://127.0.0.1:${port}/` }), ctx()));
      expect(f.kind).toBe('network');
      expect(f.message).toMatch(new RegExp(`^GET https://127\\.0\\.0\\.1:${port}/ failed: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_TLS_CERT_ALTNAME_INVALID)`));
    } finally {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('https to a plain http server, and a blocked port, are said in words, not as OpenSSL or undici text', async () => {
    const tls = await failure(httpExchange(step({ url: `https://127.0.0.1:${api.port}/users` }), ctx()));
    expect(tls.kind).toBe('network');
    expect(tls.message).toBe(`GET https://127.0.0.1:${api.port}/users failed: ERR_SSL_WRONG_VERSION_NUMBER (the server does not speak TLS on that port (an http:// server?))`);
    const blocked = await failure(httpExchange(step({ url: 'http://127.0.0.1:1/' }), ctx()));
    expect(blocked.message).toBe('GET http://127.0.0.1:1/ failed: port 1 is one browsers and fetch refuse to use (a blocked port)');
  });

  it('a slow response past the deadline → timeout', async () => {
    const started = Date.now();
    const f = await failure(httpExchange(step({ url: '/slow?ms=3000' }), ctx({ ms: 300 })));
    expect(f.kind).toBe('timeout');
    expect(f.message).toMatch(new RegExp(`^GET ${api.url.replace(/\./g, '\\.')}/slow\\?ms=3000: no complete response within \\d+ ms \\(the step deadline\\)$`));
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('a body that stalls past the deadline → timeout too', async () => {
    const f = await failure(httpExchange(step({ url: '/slow-body?ms=3000' }), ctx({ ms: 300 })));
    expect(f.kind).toBe('timeout');
  });

  it('a deadline already passed → timeout without a request', async () => {
    const f = await failure(httpExchange(step({ url: '/users' }), { ...ctx(), deadline: Date.now() - 1 }));
    expect(f.kind).toBe('timeout');
  });

  it('the caller aborting → cancelled', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const f = await failure(httpExchange(step({ url: '/slow?ms=3000' }), ctx({ signal: controller.signal })));
    expect(f.kind).toBe('cancelled');
    expect(f.message).toBe(`GET ${api.url}/slow?ms=3000 was cancelled`);
  });

  it('a relative URL without a base URL, or a non-HTTP URL → configuration', async () => {
    const rel = await failure(httpExchange(step({ url: '/users' }), ctx({ baseUrl: null })));
    expect(rel.kind).toBe('configuration');
    expect(rel.message).toBe('request URL "/users" is relative and no base URL is configured (a server run takes it from the project\'s app URL or the run\'s app_url; svc run from --url)');
    const ftp = await failure(httpExchange(step({ url: 'ftp://example.com/x' }), ctx()));
    expect(ftp.kind).toBe('configuration');
    expect(ftp.message).toBe('request URL must be http or https, got ftp: ftp://example.com/x');
  });

  it('credentials in the URL become Basic auth and never appear in messages', async () => {
    const res = await httpExchange(step({ url: `http://ada:hunter2@127.0.0.1:${api.port}/echo` }), ctx());
    const headers = (res.body as { headers: Record<string, string> }).headers;
    expect(headers.authorization).toBe(`Basic ${Buffer.from('ada:hunter2').toString('base64')}`);
    const port = await closedPort();
    const f = await failure(httpExchange(step({ url: `http://ada:hunter2@127.0.0.1:${port}/` }), ctx()));
    expect(f.kind).toBe('network');
    expect(f.message).not.toContain('hunter2');
    expect(f.message).toMatch(new RegExp(`^GET http://127\\.0\\.0\\.1:${port}/ failed: ECONNREFUSED`));
  });
});
