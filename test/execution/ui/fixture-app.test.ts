import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startFixtureApp, API_TOKEN, DEMO_USER, SESSION_COOKIE, SESSION_TOKEN, type FixtureApp } from '../../fixtures/app/server.ts';

/** The fixture app over plain HTTP (no browser): routes, the JSON API, auth, v1 vs v2 markup. */

let v1: FixtureApp;
let v2: FixtureApp;

beforeAll(async () => {
  [v1, v2] = await Promise.all([startFixtureApp(), startFixtureApp({ version: 'v2' })]);
});
afterAll(async () => {
  await Promise.all([v1?.close(), v2?.close()]);
});

const get = (app: FixtureApp, path: string, init?: RequestInit) => fetch(`${app.url}${path}`, { redirect: 'manual', ...init });

describe('pages', () => {
  it('binds 127.0.0.1 and serves every page as HTML', async () => {
    expect(v1.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const path of ['/', '/login', '/form', '/table', '/flag', '/flag?variant=b', '/hover', '/scroll', '/dblclick', '/keys', '/console', '/slow?ms=1']) {
      const res = await get(v1, path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await res.text()).toContain('<nav aria-label="Main">');
    }
    expect((await get(v1, '/nope')).status).toBe(404);
  });

  it('login: valid credentials redirect to the dashboard with a cookie; invalid ones show an error', async () => {
    const ok = await get(v1, '/login', { method: 'POST', body: new URLSearchParams({ email: DEMO_USER.email, password: DEMO_USER.password, remember: '1' }) });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/dashboard');
    expect(ok.headers.get('set-cookie')).toBe(`${SESSION_COOKIE}=${SESSION_TOKEN}; Path=/; HttpOnly; SameSite=Lax; Max-Age=2592000`);
    const bad = await get(v1, '/login', { method: 'POST', body: new URLSearchParams({ email: DEMO_USER.email, password: 'nope' }) });
    expect(bad.status).toBe(200);
    expect(await bad.text()).toContain('Invalid email or password');
    const badV2 = await get(v2, '/login', { method: 'POST', body: new URLSearchParams({ email: 'x@example.com', password: DEMO_USER.password }) });
    expect(await badV2.text()).toContain('Wrong email or password');
  });

  it('dashboard requires the cookie; logout clears it', async () => {
    const anon = await get(v1, '/dashboard');
    expect([anon.status, anon.headers.get('location')]).toEqual([302, '/login?next=%2Fdashboard']);
    const signed = await get(v1, '/dashboard', { headers: { cookie: `${SESSION_COOKIE}=${SESSION_TOKEN}` } });
    expect(signed.status).toBe(200);
    expect(await signed.text()).toContain('Welcome, Demo User!');
    const out = await get(v1, '/logout');
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
  });

  it('/slow answers after the delay, capped at 15 s', async () => {
    const t = Date.now();
    const res = await get(v1, '/slow?ms=300');
    expect(await res.text()).toContain('Slow page (300 ms)');
    expect(Date.now() - t).toBeGreaterThanOrEqual(290);
  });

  it('v2 changes /login and /form only', async () => {
    const [l1, l2, f1, f2, t1, t2] = await Promise.all([get(v1, '/login'), get(v2, '/login'), get(v1, '/form'), get(v2, '/form'), get(v1, '/table'), get(v2, '/table')].map((p) => p.then((r) => r.text())));
    expect(l1).toContain('id="email"');
    expect(l2).not.toContain('id="email"');
    expect(l2).toContain('id="user-email"');
    expect(l1).toContain('>Sign in</button>');
    expect(l2).toContain('>Log in</button>');
    expect(f1).toContain('id="newsletter"');
    expect(f2).not.toContain('id="newsletter"');
    expect(f2).not.toContain('Subscribe to the newsletter');
    expect(f2).toContain('id="send-button"');
    expect(t1).toBe(t2);
  });
});

describe('JSON API', () => {
  it('GET /api/items lists, filters with ?q= and limits with ?limit=', async () => {
    const all = await (await get(v1, '/api/items')).json();
    expect(all.total).toBe(5);
    expect(all.items[0]).toEqual({ id: 1, name: 'Widget', price: 9.99, tags: ['tools'] });
    const q = await (await get(v1, '/api/items?q=GAD')).json();
    expect(q).toEqual({ items: [{ id: 2, name: 'Gadget', price: 24.5, tags: ['electronics'] }], total: 1 });
    const lim = await (await get(v1, '/api/items?limit=2')).json();
    expect([lim.items.length, lim.total]).toEqual([2, 5]);
    const bad = await get(v1, '/api/items?limit=-1');
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe('validation');
  });

  it('GET /api/items/:id, and a JSON 404 when missing', async () => {
    const one = await get(v1, '/api/items/3');
    expect([one.status, await one.json()]).toEqual([200, { id: 3, name: 'Gizmo', price: 5, tags: [] }]);
    const missing = await get(v1, '/api/items/999');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await missing.json()).toEqual({ error: { code: 'not_found', message: 'no item with id 999' } });
  });

  it('POST /api/items: bearer token required, JSON validated, 201 with Location', async () => {
    const body = JSON.stringify({ name: 'Sprocket', price: 3.5 });
    const noAuth = await get(v2, '/api/items', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(noAuth.status).toBe(401);
    const auth = { 'content-type': 'application/json', authorization: `Bearer ${API_TOKEN}` };
    const invalid = await get(v2, '/api/items', { method: 'POST', body: JSON.stringify({ name: '', price: 'free' }), headers: auth });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toEqual({ error: { code: 'validation', message: 'name must be a non-empty string; price must be a number >= 0', details: { problems: ['name must be a non-empty string', 'price must be a number >= 0'] } } });
    const notJson = await get(v2, '/api/items', { method: 'POST', body: '{oops', headers: auth });
    expect([notJson.status, (await notJson.json()).error.code]).toEqual([400, 'invalid_json']);
    const created = await get(v2, '/api/items', { method: 'POST', body, headers: auth });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/api/items/6');
    expect(await created.json()).toEqual({ id: 6, name: 'Sprocket', price: 3.5, tags: [] });
    expect((await (await get(v2, '/api/items/6')).json()).name).toBe('Sprocket');
    // state is per server: v1 did not get it
    expect((await get(v1, '/api/items/6')).status).toBe(404);
  });

  it('/api/html answers 200 with HTML where a client may expect JSON', async () => {
    const res = await get(v1, '/api/html');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    await expect(res.clone().json()).rejects.toThrow();
    expect(await res.text()).toContain('This is HTML, not JSON');
  });
});
