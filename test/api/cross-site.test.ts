import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestServer, client, type TestServer } from '../support/server.ts';

/**
 * Cross-site request forgery on cookie sign-in. QA's case: a page on another origin
 * posted an empty form to /api/auth/device/<code>/approve with the admin's cookie and got
 * 200, so the attacker's device code turned into an admin token. Every change a cookie
 * signs in must now come from svc's own pages (Sec-Fetch-Site, else Origin); API keys and
 * bearer tokens are not checked.
 */
const LISTED = 'https://app.example.test';
const ATTACKER = 'http://127.0.0.1:18950';
let server: TestServer;
let cookie: string;
let refreshCookie: string;

beforeAll(async () => {
  server = await startTestServer({ env: { SVC_CORS_ORIGINS: LISTED } });
  const res = await fetch(`${server.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: server.admin.email, password: server.admin.password }) });
  const cookies = res.headers.getSetCookie().map((c) => c.split(';')[0]!);
  cookie = cookies.find((c) => c.startsWith('svc_session='))!;
  refreshCookie = cookies.find((c) => c.startsWith('svc_refresh='))!;
});
afterAll(async () => server?.stop());

async function deviceCode() {
  const res = await fetch(`${server.url}/oauth/device/code`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'client_id=attacker-agent' });
  return (await res.json()) as { device_code: string; user_code: string };
}

const poll = async (deviceCodeValue: string) =>
  (await (await fetch(`${server.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCodeValue }) })).json()) as Record<string, string>;

const post = (path: string, headers: Record<string, string>, body?: string) => fetch(server.url + path, { method: 'POST', headers: { cookie, ...headers }, body });

describe('changes signed in by the session cookie', () => {
  it("QA's case: a cross-origin form post approving a device sign-in → 403, and the agent gets no token", async () => {
    const { device_code, user_code } = await deviceCode();
    const res = await post(`/api/auth/device/${user_code}/approve`, { origin: ATTACKER, 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(403);
    const body = await res.json();
    expect(body.error).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'CROSS_SITE_REQUEST' } });
    expect(body.error.message).toContain(`Origin: ${ATTACKER}`);
    expect((await poll(device_code)).error).toBe('authorization_pending');
    const lookup = await fetch(`${server.url}/api/auth/device/${user_code}`, { headers: { cookie } });
    expect((await lookup.json()).status).toBe('pending');
  });

  it('Sec-Fetch-Site decides when sent: same-site and cross-site refused, same-origin passes', async () => {
    const { user_code } = await deviceCode();
    for (const site of ['cross-site', 'same-site']) {
      const refused = await post(`/api/auth/device/${user_code}/approve`, { 'sec-fetch-site': site });
      expect(refused.status, site).toBe(403);
      expect((await refused.json()).error.message).toContain(`Sec-Fetch-Site: ${site}`);
    }
    // Even with the organization header and a JSON body: a sibling subdomain's fetch carries the Lax cookie.
    const project = await post('/api/v1/projects', { 'sec-fetch-site': 'same-site', 'x-organization-id': server.admin.organizationId, 'content-type': 'application/json' }, '{"name":"forged"}');
    expect(project.status).toBe(403);
    const denied = await post(`/api/auth/device/${user_code}/deny`, { 'sec-fetch-site': 'same-origin', origin: server.url });
    expect(denied.status).toBe(200);
    expect((await denied.json()).status).toBe('denied');
  });

  it("without Sec-Fetch-Site (an older browser) the Origin must be svc's own, its public URL or a listed CORS origin", async () => {
    const { user_code } = await deviceCode();
    for (const origin of ['null', 'https://evil.example', `${server.url}.evil.example`]) {
      expect((await post(`/api/auth/device/${user_code}/approve`, { origin })).status, origin).toBe(403);
    }
    const own = await post('/api/v1/projects', { origin: server.url, 'x-organization-id': server.admin.organizationId, 'content-type': 'application/json' }, '{"name":"from the dashboard"}');
    expect(own.status).toBe(201);
    // SVC_CORS_ORIGINS may call with credentials: its cross-site requests pass.
    const listed = await post('/api/v1/projects', { origin: LISTED, 'sec-fetch-site': 'cross-site', 'x-organization-id': server.admin.organizationId, 'content-type': 'application/json' }, '{"name":"from the listed app"}');
    expect(listed.status).toBe(201);
  });

  it('the refresh cookie too: a cross-site refresh is refused; a same-origin one renews', async () => {
    const refused = await fetch(`${server.url}/api/auth/refresh`, { method: 'POST', headers: { cookie: refreshCookie, origin: ATTACKER, 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(403);
    const renewed = await fetch(`${server.url}/api/auth/refresh`, { method: 'POST', headers: { cookie: refreshCookie, origin: server.url, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' }, body: '{}' });
    expect(renewed.status).toBe(200);
  });

  it('bearer tokens and API keys are not checked; reads are not; a client sending neither header is no browser', async () => {
    const { user_code } = await deviceCode();
    const token = (await client(server.url).post('/api/auth/login', { email: server.admin.email, password: server.admin.password })).body.access_token;
    const bearer = await fetch(`${server.url}/api/v1/projects`, { method: 'POST', headers: { authorization: `Bearer ${token}`, cookie, origin: ATTACKER, 'sec-fetch-site': 'cross-site', 'x-organization-id': server.admin.organizationId, 'content-type': 'application/json' }, body: '{"name":"by token"}' });
    expect(bearer.status).toBe(201);
    const key = await fetch(`${server.url}/api/v1/projects`, { method: 'POST', headers: { 'x-api-key': server.admin.apiKey, cookie, origin: ATTACKER, 'content-type': 'application/json' }, body: '{"name":"by key"}' });
    expect(key.status).toBe(201);
    expect((await fetch(`${server.url}/api/auth/device/${user_code}`, { headers: { cookie, origin: ATTACKER, 'sec-fetch-site': 'cross-site' } })).status).toBe(200);
    const script = await post(`/api/auth/device/${user_code}/deny`, {});
    expect(script.status).toBe(200);
  });
});

describe('an empty body on a JSON route', () => {
  it('with a non-JSON content type → 415 like a non-empty one; with none, or JSON, it is {}', async () => {
    const api = client(server.url, { token: server.admin.apiKey });
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
      const res = await api.call('POST', '/api/auth/logout', undefined, { raw: '', headers: { 'content-type': type } });
      expect(res.status, type).toBe(415);
      expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    expect((await fetch(`${server.url}/api/auth/logout`, { method: 'POST' })).status).toBe(204);
    expect((await fetch(`${server.url}/api/auth/logout`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '' })).status).toBe(204);
  });
});
