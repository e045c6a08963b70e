/**
 * POST /api/execute (the spec's route for svc_test, "execute a single test") over real HTTP
 * on the local runtime: a run of just that test, executed for real against the fixture app;
 * a parameterised test's one case; bad input names the field; another organization's test
 * is a 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from './support/api-server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let app: FixtureApp;
let api: Client;
let other: Client;
let projectId: string;

beforeAll(async () => {
  app = await startFixtureApp();
  server = await startRunGraphServer();
  const user = await signUp(server.url, 'execute@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
  const stranger = await signUp(server.url, 'execute-stranger@example.com');
  other = client(server.url, { token: stranger.token, org: stranger.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'execute', app_url: app.url })).body.id;
});
afterAll(async () => {
  await server?.stop();
  await app?.close();
});

async function createTest(body: Record<string, unknown>): Promise<string> {
  const res = await api.post('/api/tests', { project_id: projectId, type: 'api', assertions: [{ type: 'status', equals: 200 }], ...body });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

async function finished(runId: string) {
  await expect.poll(async () => (await api.get(`/api/v1/test/status/${runId}`)).body.run.status, { timeout: 30_000 }).toBe('completed');
  return (await api.get(`/api/v1/tests/${runId}/results`)).body.items as Array<{ test_id: string; status: string; parameter_set?: { index: number } }>;
}

describe('POST /api/execute', () => {
  it('runs just that test, for real, and answers like a run start', async () => {
    const wanted = await createTest({ name: 'items answer', steps: [{ type: 'request', url: '/api/items' }] });
    await createTest({ name: 'not this one', steps: [{ type: 'request', url: '/api/items' }] });
    const res = await api.post('/api/execute', { test_id: wanted, healing_enabled: false });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ run: { project_id: projectId, total_tests: 1 }, thread_id: expect.any(String), stream_url: expect.stringMatching(/^\/stream\//) });
    const results = await finished(res.body.run.id);
    expect(results.map((r) => [r.test_id, r.status])).toEqual([[wanted, 'passed']]);
  });

  it("runs one case of a parameterised test; a set it does not have is a 400 naming parameter_set", async () => {
    const id = await createTest({
      name: 'items by path',
      steps: [{ type: 'request', url: '{{path}}' }],
      parameter_sets: [{ name: 'list', values: { path: '/api/items' } }, { name: 'missing', values: { path: '/api/no-such-thing' } }],
    });
    const res = await api.post('/api/execute', { test_id: id, parameter_set: 2, healing_enabled: false });
    expect(res.status, res.text).toBe(201);
    const results = await finished(res.body.run.id);
    expect(results.map((r) => [r.status, r.parameter_set?.index])).toEqual([['failed', 2]]);
    const bad = await api.post('/api/execute', { test_id: id, parameter_set: 3 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues).toEqual([{ path: 'parameter_set', message: 'the test has 2 parameter sets' }]);
  });

  it('names a missing or malformed test_id; another organization\'s test is a 404', async () => {
    const missing = await api.post('/api/execute', {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.issues.map((i: { path: string }) => i.path)).toContain('test_id');
    expect((await api.post('/api/execute', { test_id: 'nope' })).status).toBe(400);
    const id = await createTest({ name: 'mine', steps: [{ type: 'request', url: '/api/items' }] });
    const theirs = await other.post('/api/execute', { test_id: id });
    expect(theirs.status).toBe(404);
  });
});
