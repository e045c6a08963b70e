import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';
import { startFixtureApp } from '../fixtures/app/server.ts';

let server: TestServer;
let api: Client;
let fixture: { url: string; close(): Promise<void> };
let projectId: string;

beforeAll(async () => {
  fixture = await startFixtureApp({ version: 'v1' });
  server = await startTestServer();
  const user = await signUp(server.url, 'discoverer@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'Shop', app_url: fixture.url })).body.id;
});

afterAll(async () => {
  await server?.stop();
  await fixture?.close();
});

/** Polls the session until it leaves pending/running (bounded, so a stuck crawl fails the test instead of hanging). */
async function finished(id: string) {
  for (let i = 0; i < 240; i++) {
    const res = await api.get(`/api/discovery/${id}`);
    if (res.body.status !== 'pending' && res.body.status !== 'running') return res;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`discovery ${id} did not finish`);
}

describe('discovery API', () => {
  let sessionId: string;

  it('starts a crawl (202), runs it in the background and stores pages, elements, flows and screenshots', async () => {
    const start = await api.post('/api/v1/discovery/start', { project_id: projectId, max_pages: 6, strategy: 'breadth_first' });
    expect(start.status).toBe(202);
    expect(start.body.status).toBe('pending');
    expect(start.body.start_url).toBe(fixture.url);
    sessionId = start.body.id;
    const done = await finished(sessionId);
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    expect(done.body.session.quality_score).toBeGreaterThan(0);
    expect(done.body.pages.length).toBe(6);
    expect(done.body.pages[0].url).toBe(`${fixture.url}/`);
    expect(done.body.pages.every((p: { element_count: number; importance_score: number; risk_score: number }) => p.element_count > 0 && p.importance_score > 0 && p.risk_score > 0)).toBe(true);
    const shot = done.body.pages[0].screenshot_url as string;
    expect(shot).toMatch(/^discovery\/.+\/page-0\.png$/);
    const blob = await server.runtime.blobs.get(shot);
    expect(blob?.contentType).toBe('image/png');
    expect(done.body.session.page_graph.nodes.length).toBe(6);
    expect(done.body.session.page_graph.edges.length).toBeGreaterThan(0);
    expect(done.body.flows.some((f: { flow_type: string }) => f.flow_type === 'navigation')).toBe(true);
    const elements = await server.runtime.deps.store.discovery.listElements(done.body.session.organization_id, sessionId, done.body.pages[0].id);
    expect(elements.length).toBe(done.body.pages[0].element_count);
    expect(elements[0]).toEqual(expect.objectContaining({ page_id: done.body.pages[0].id, selector: expect.any(String), category: expect.any(String) }));
  });

  it('stores a session once however often its job is delivered (Lambda redelivers an async job whose container died)', async () => {
    const { store, discovery } = server.runtime.deps;
    const session = (await api.get(`/api/discovery/${sessionId}`)).body.session;
    const orgId = session.organization_id as string;
    const counts = async () => {
      const pages = await store.discovery.allPages(orgId, sessionId);
      return { pages: pages.length, elements: (await store.discovery.listElements(orgId, sessionId)).length, flows: (await store.discovery.listFlows(orgId, sessionId)).length };
    };
    const before = await counts();
    expect(before.elements).toBeGreaterThan(0);
    const request = { startUrl: fixture.url, maxPages: 6, strategy: 'breadth_first' as const };

    // The same job again once the session finished: nothing is crawled or written.
    await discovery!.start(orgId, session, request);
    await discovery!.settled(sessionId);
    expect(await counts()).toEqual(before);
    expect((await store.discovery.getSession(orgId, sessionId))?.completed_at).toBe(session.completed_at);

    // An attempt that died after writing its crawl but before completing the session: the
    // next delivery crawls again and replaces what the first stored instead of adding to it.
    await server.runtime.deps.store.discovery.updateSession(orgId, sessionId, { status: 'running' });
    await discovery!.start(orgId, session, request);
    await discovery!.settled(sessionId);
    const again = await store.discovery.getSession(orgId, sessionId);
    expect(again?.status).toBe('completed');
    expect(await counts()).toEqual(before);
    const pages = await store.discovery.allPages(orgId, sessionId);
    for (const page of pages) expect((await store.discovery.listElements(orgId, sessionId, page.id)).length).toBe(page.element_count);
  });

  it('lists the pages of a session', async () => {
    const res = await api.get(`/api/v1/discovery/${sessionId}/pages?limit=2`);
    expect(res.status).toBe(200);
    expect(res.body.items.length).toBe(2);
    expect(res.body.next_cursor).not.toBeNull();
  });

  it('accepts /api/discovery/run as the same start', async () => {
    const res = await api.post('/api/discovery/run', { project_id: projectId, start_url: `${fixture.url}/table`, max_pages: 1 });
    expect(res.status).toBe(202);
    const done = await finished(res.body.id);
    expect(done.body.pages.map((p: { url: string }) => p.url)).toEqual([`${fixture.url}/table`]);
  });

  it('crawls a few pages synchronously on /api/discover', async () => {
    const res = await api.post('/api/discover', { project_id: projectId, url: `${fixture.url}/`, max_pages: 3 });
    expect(res.status).toBe(200);
    expect(res.body.pages.length).toBe(3);
    expect(res.body.pages[0].elements[0]).toEqual(expect.objectContaining({ selector: expect.any(String), stability_score: expect.any(Number) }));
  });

  it('refuses a start URL outside the allowed hosts, naming the field', async () => {
    const res = await api.post('/api/v1/discovery/start', { project_id: projectId, start_url: 'http://127.0.0.2:9/' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.issues[0].path).toBe('start_url');
    const sync = await api.post('/api/discover', { project_id: projectId, url: 'https://example.com/' });
    expect(sync.body.error.details.issues[0].path).toBe('url');
    const hosts = await api.post('/api/v1/discovery/start', { project_id: projectId, allowed_hosts: ['evil.example'] });
    expect(hosts.status).toBe(400);
    expect(hosts.body.error.details.issues[0].path).toBe('allowed_hosts.0');
  });

  it('validates the body', async () => {
    const res = await api.post('/api/v1/discovery/start', { project_id: projectId, max_pages: 0 });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/max_pages/);
    const unknown = await api.get('/api/discovery/01900000-0000-7000-8000-000000000000');
    expect(unknown.status).toBe(404);
  });
});

describe('planning API', () => {
  it('plans from a discovery session and a diff, with reasons', async () => {
    const sessions = await server.runtime.deps.store.discovery.listSessions((await api.get('/api/v1/projects')).body.items[0].organization_id, 10);
    const id = sessions.items.find((s) => s.status === 'completed' && s.max_pages === 6)!.id;
    const diff = 'diff --git a/src/pages/form.tsx b/src/pages/form.tsx\n--- a/src/pages/form.tsx\n+++ b/src/pages/form.tsx\n@@ -1 +1 @@\n-old\n+new\n';
    const res = await api.post('/api/suggest', { discovery_session_id: id, diff });
    expect(res.status).toBe(200);
    expect(res.body.changed_files).toEqual(['src/pages/form.tsx']);
    const form = res.body.items.find((i: { target: string }) => i.target === `${fixture.url}/form`);
    expect(form.reasons).toContain('changed in this diff: src/pages/form.tsx');
    expect(['CRITICAL', 'HIGH']).toContain(form.priority);
    const risk = await api.post('/api/risk/score', { surfaces: [{ kind: 'http_route', method: 'POST', path: '/api/login', file: 'src/auth.ts' }], changed_files: ['src/auth.ts'] });
    expect(risk.status).toBe(200);
    expect(risk.body.priority).toBe('CRITICAL');
    expect(risk.body.reasons).toEqual(['sensitive area (auth, payment, account or admin)', 'POST changes data', 'changed in this diff: src/auth.ts']);
    // A target no surface contains has no score (it answered 200 LOW "nothing to score"; found by QA).
    let none = await api.post('/api/risk/score', { surfaces: [{ kind: 'http_route', method: 'POST', path: '/api/login', file: 'src/auth.ts' }], target: '/checkout' });
    expect(none.status).toBe(400);
    expect(none.body.error.details.issues).toEqual([{ path: 'target', message: 'no surface, page or flow contains "/checkout"; the 1 target(s) scored include "POST /api/login"' }]);
    none = await api.post('/api/risk/score', { changed_files: ['src/auth.ts'], target: '/checkout' });
    expect(none.status).toBe(400);
    expect(none.body.error.details.issues[0].path).toBe('target');
    expect((await api.post('/api/risk/score', { surfaces: [{ kind: 'http_route', method: 'POST', path: '/api/login' }], target: 'login' })).status).toBe(200);
  });

  it('needs something to plan from', async () => {
    const res = await api.post('/api/suggest', {});
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0].path).toBe('surfaces');
  });
});
