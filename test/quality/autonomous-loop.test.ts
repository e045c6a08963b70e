/**
 * The autonomous loop through the real local server: POST /api/quality/autonomous-loop
 * crawls the fixture app in Chromium, writes tests from its pages and flows, and starts a
 * run of them on the run graph, which executes them in Chromium and reports. Nothing is
 * stubbed: what passes passed in the browser.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { DEMO_USER } from '../fixtures/app/login.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let fixture: FixtureApp;
let api: Client;
let viewer: Client;
let stranger: Client;
let projectId: string;

beforeAll(async () => {
  fixture = await startFixtureApp();
  server = await startRunGraphServer();
  const owner = await signUp(server.url, 'loop@example.com');
  api = client(server.url, { token: owner.token, org: owner.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: fixture.url })).body.id;
  const invite = await api.post('/api/teams/invitations', { email: 'loop-viewer@example.com', role: 'viewer' });
  const joined = await signUp(server.url, 'loop-viewer@example.com');
  const accepted = await client(server.url, { token: joined.token }).post('/api/teams/invitations/accept', { token: invite.body.token });
  viewer = client(server.url, { token: joined.token, org: owner.orgId });
  expect(accepted.status, accepted.text).toBeLessThan(300);
  const them = await signUp(server.url, 'loop-stranger@example.com');
  stranger = client(server.url, { token: them.token, org: them.orgId });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await fixture?.close();
});

const loop = (body: Record<string, unknown>, as: Client = api) => as.post('/api/quality/autonomous-loop', { project_id: projectId, ...body });

describe('POST /api/quality/autonomous-loop', () => {
  let firstTests: Array<{ id: string; name: string; kind: string; created: boolean }>;

  it('discovers the app, writes tests from its pages and flows, runs them in Chromium and reports', async () => {
    const res = await loop({ max_pages: 4 });
    expect(res.status, res.text).toBe(201);
    expect(res.body.pages).toBe(4);
    expect(res.body.run).toMatchObject({ project_id: projectId, trigger: 'autonomous' });
    expect(res.body.stream_url).toBe(`/stream/${encodeURIComponent(res.body.thread_id)}`);
    firstTests = res.body.tests;
    expect(firstTests.filter((t) => t.kind === 'smoke').length).toBeGreaterThanOrEqual(3);
    expect(firstTests.every((t) => t.created)).toBe(true);
    // The sign-in flow needs the project's test account; it says so instead of vanishing.
    expect(res.body.skipped).toContainEqual({ name: expect.stringMatching(/log ?in|sign ?in/i), reason: expect.stringMatching(/needs the project secret (USERNAME|PASSWORD)/) });

    await server.graph.settled(res.body.thread_id);
    const status = await api.get(`/api/v1/test/status/${res.body.run.id}`);
    expect(status.body.run.status).toBe('completed');
    expect(status.body.passed_count).toBeGreaterThanOrEqual(3);
    const report = await api.get(`/api/reports/${res.body.run.id}?format=json`);
    expect(report.status).toBe(200);
    expect(JSON.stringify(report.body)).toContain(firstTests[0]!.name);

    // The tests are the project's now, tagged so the next loop finds them.
    const stored = await api.get(`/api/tests?project_id=${projectId}&limit=100`);
    const mine = stored.body.items.filter((t: { tags: string[] }) => t.tags.includes('autonomous'));
    expect(mine.map((t: { id: string }) => t.id).sort()).toEqual(firstTests.map((t) => t.id).sort());
    // Pages of the project's app are paths, so the tests run against whatever app URL a run gives.
    const gotos = mine.flatMap((t: { steps: Array<{ type: string; url?: string }> }) => t.steps.filter((s) => s.type === 'goto').map((s) => s.url!));
    expect(gotos.length).toBeGreaterThanOrEqual(3);
    expect(gotos.every((u: string) => u.startsWith('/')), gotos.join(' ')).toBe(true);
    // And the crawl is a discovery session like any other.
    const session = await api.get(`/api/discovery/${res.body.discovery_session_id}`);
    expect(session.body.status).toBe('completed');
    expect(session.body.pages).toHaveLength(4);
  }, 180_000);

  it('a second loop updates its earlier tests instead of duplicating them, and signs in once the project has the account', async () => {
    expect((await api.put(`/api/v1/projects/${projectId}/environment/USERNAME`, { value: DEMO_USER.email, secret: true })).status).toBe(200);
    expect((await api.put(`/api/v1/projects/${projectId}/environment/PASSWORD`, { value: DEMO_USER.password, secret: true })).status).toBe(200);
    // A person's edit of a loop test, which the loop writes over: both are in the test's history.
    const edited = firstTests[0].id;
    const tags = (await api.get(`/api/tests/${edited}`)).body.tags as string[];
    expect((await api.patch(`/api/tests/${edited}`, { tags: [...tags, 'mine'] })).status).toBe(200);
    const res = await loop({ max_pages: 4 });
    expect(res.status, res.text).toBe(201);
    const again = res.body.tests.filter((t: { created: boolean }) => !t.created).map((t: { id: string }) => t.id).sort();
    expect(again).toEqual(firstTests.map((t) => t.id).sort());
    const history = (await api.get(`/api/tests/${edited}/revisions`)).body.items as Array<{ source: string; changed_by: string; changed_fields: string[] }>;
    expect(history[0]).toMatchObject({ source: 'autonomous_loop', changed_by: 'system:autonomous_loop' });
    expect(history[0].changed_fields).toContain('tags');
    expect(history[1]).toMatchObject({ source: 'edited', changed_fields: ['tags'] });
    expect(history.at(-1)).toMatchObject({ source: 'created', changed_by: 'system:autonomous_loop' });
    const signIn = res.body.tests.find((t: { kind: string }) => t.kind === 'authentication');
    expect(signIn, JSON.stringify(res.body.tests)).toMatchObject({ created: true });
    await server.graph.settled(res.body.thread_id);
    const results = await api.get(`/api/v1/tests/${res.body.run.id}/results`);
    const signInResult = results.body.items.find((r: { test_id: string }) => r.test_id === signIn.id);
    expect(signInResult?.status, JSON.stringify(signInResult)).toBe('passed');
  }, 180_000);

  it('a loop that signs in writes tests of the pages behind the sign-in that sign in first, and they pass in Chromium', async () => {
    // The project has the test account since the test above. Signed out, /dashboard sends the browser to /login.
    const login = { url: `${fixture.url}/login`, username: DEMO_USER.email, password: DEMO_USER.password };
    const res = await loop({ start_url: `${fixture.url}/dashboard`, max_pages: 1, login });
    expect(res.status, res.text).toBe(201);
    const dashboard = res.body.tests.find((t: { kind: string; name: string }) => t.kind === 'smoke' && t.name.includes('(/dashboard)'));
    expect(dashboard, JSON.stringify(res.body.tests)).toBeTruthy();
    const stored = (await api.get(`/api/tests/${dashboard.id}`)).body as { steps: Array<{ type: string; url?: string; assertion?: { type: string; matches?: string } }> };
    expect(stored.steps[0]).toMatchObject({ type: 'goto', url: '/login' });
    expect(stored.steps.map((st) => st.type)).toEqual(expect.arrayContaining(['fill', 'click']));
    // No page-status GET: it has no cookie jar, so it would ask signed out.
    expect(stored.steps.filter((st) => st.type === 'request')).toEqual([]);
    const stays = stored.steps.find((st) => st.assertion?.type === 'url' && st.assertion.matches?.includes('dashboard'));
    expect(stays, JSON.stringify(stored.steps)).toBeTruthy();
    // /login?next=/dashboard is not /dashboard: the check is on the path.
    expect(new RegExp(stays!.assertion!.matches!).test(`${fixture.url}/login?next=%2Fdashboard`)).toBe(false);
    expect(new RegExp(stays!.assertion!.matches!).test(`${fixture.url}/dashboard`)).toBe(true);
    await server.graph.settled(res.body.thread_id);
    const results = await api.get(`/api/v1/tests/${res.body.run.id}/results`);
    const result = results.body.items.find((r: { test_id: string }) => r.test_id === dashboard.id);
    expect(result?.status, JSON.stringify(result)).toBe('passed');
  }, 180_000);

  it('bad input names the field; another organization, a viewer and a host nobody allowed are refused', async () => {
    const outside = await loop({ start_url: 'https://example.com/' });
    expect(outside.status).toBe(400);
    expect(outside.body.error.details.issues[0].path).toBe('start_url');
    const pages = await loop({ max_pages: 50 });
    expect(pages.status).toBe(400);
    expect(pages.body.error.details.issues[0].path).toBe('max_pages');
    expect((await loop({}, viewer)).status).toBe(403);
    expect((await loop({}, stranger)).status).toBe(404);
  });
});
