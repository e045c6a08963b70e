/**
 * svc's outbound fetch (webhook deliveries, chat replies, commit statuses) and a redirect:
 * a 302 from an ordinary host to the metadata address was followed by fetch itself, and a
 * non-2xx answer came back in the delivery's error (found by QA). Real HTTP on loopback;
 * the metadata address is refused before any connection, so nothing needs to listen there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { metadataSafeFetch, deliveryFetch } from '../../packages/functions/src/net/metadata-safe-fetch.ts';
import { deliver } from '../../packages/core/src/notifications/deliver.ts';
import { METADATA_ADDRESS_CODE } from '../../packages/core/src/net/metadata-hosts.ts';

let server: Server;
let base: string;
const seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/redir') {
      res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to') ?? '/' });
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`landed ${req.method}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

const codeOf = (p: Promise<unknown>) => p.then(() => 'resolved', (e: { cause?: { code?: string } }) => e.cause?.code);

describe('the metadata-safe fetch', () => {
  it('refuses an IP literal of the metadata address by its text, before connecting (no lookup is made for one)', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/', 'http://[::a9fe:a9fe]/']) expect(await codeOf(metadataSafeFetch(url)), url).toBe(METADATA_ADDRESS_CODE);
  });

  it('checks every redirect target it follows: a 302 to the metadata address is refused', async () => {
    const to = encodeURIComponent('http://169.254.169.254/latest/meta-data/iam/security-credentials/role');
    expect(await codeOf(metadataSafeFetch(`${base}/redir?to=${to}`))).toBe(METADATA_ADDRESS_CODE);
    expect(await codeOf(metadataSafeFetch(`${base}/redir?to=${encodeURIComponent(`${base}/redir?to=${to}`)}`))).toBe(METADATA_ADDRESS_CODE);
  });

  it('follows ordinary redirects as fetch does: 303 becomes a GET, a credential stays on its origin', async () => {
    seen.length = 0;
    const other = base.replace('127.0.0.1', 'localhost');
    const res = await metadataSafeFetch(`${base}/redir?status=303&to=${encodeURIComponent(`${other}/final`)}`, { method: 'POST', body: '{"a":1}', headers: { authorization: 'Bearer secret', 'content-type': 'application/json' } });
    expect(await res.text()).toBe('landed GET');
    expect(seen.map((s) => [s.method, s.url])).toEqual([['POST', expect.stringMatching(/^\/redir/)], ['GET', '/final']]);
    expect(seen[1].headers.authorization).toBeUndefined();
    const kept = await metadataSafeFetch(`${base}/redir?status=307&to=%2Fsame`, { method: 'POST', body: 'x', headers: { authorization: 'Bearer secret' } });
    expect(await kept.text()).toBe('landed POST');
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/same', headers: { authorization: 'Bearer secret' } });
  });
});

describe('a webhook delivery', () => {
  it('does not follow a redirect: it fails naming where it pointed, and requests nothing there', async () => {
    seen.length = 0;
    const target = 'http://169.254.169.254/latest/meta-data/iam/security-credentials/role';
    const outcome = await deliver(deliveryFetch, `${base}/redir?to=${encodeURIComponent(target)}`, '{"event":"run.completed"}', {});
    expect(outcome).toEqual({ status: 'failed', attempts: 1, http_status: 302, error: `the endpoint answered 302, a redirect to ${target}: deliveries do not follow redirects; give the endpoint's final URL` });
    expect(seen).toHaveLength(1);
  });

  it('to the metadata address itself fails without a connection, naming why', async () => {
    const outcome = await deliver(deliveryFetch, 'http://169.254.169.254/hook', '{}', {});
    expect(outcome).toEqual({ status: 'failed', attempts: 1, http_status: null, error: '169.254.169.254 is a link-local / cloud metadata address, which svc never requests (server-side request forgery)' });
  });
});
