/**
 * A run's retries over real HTTP on the local runtime: a failed test is run again through
 * the run graph (ASL: execute_test → retry → execute_test), each attempt stored; one that
 * passes on a retry is passed and flaky — in its result, the reports and the flaky ranking;
 * one that keeps failing stays failed after 1 + retries executions; a configuration
 * failure is not retried. The fixture app's /api/flaky/<key> fails every even call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseJUnit } from 'junit2json';
import { client, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from './support/api-server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let app: FixtureApp;
let api: Client;
let projectId: string;

beforeAll(async () => {
  app = await startFixtureApp();
  server = await startRunGraphServer();
  const user = await signUp(server.url, 'retries@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'retries', app_url: app.url })).body.id;
});
afterAll(async () => {
  await server?.stop();
  await app?.close();
});

async function createTest(name: string, url: string): Promise<string> {
  const res = await api.post('/api/tests', { project_id: projectId, name, type: 'api', steps: [{ type: 'request', method: 'GET', url }], assertions: [{ type: 'status', equals: 200 }] });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

async function runToEnd(body: Record<string, unknown>) {
  const started = await api.post('/api/v1/test/run', { project_id: projectId, healing_enabled: false, ...body });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const runId = started.body.run.id as string;
  await expect.poll(async () => (await api.get(`/api/v1/test/status/${runId}`)).body.run.status, { timeout: 30_000 }).toBe('completed');
  const results = (await api.get(`/api/v1/tests/${runId}/results`)).body.items as Array<{ test_id: string; status: string; metadata: Record<string, unknown> } & { attempt: number }>;
  return { runId, run: (await api.get(`/api/v1/test/status/${runId}`)).body.run, results: results.sort((a, b) => a.attempt - b.attempt) };
}

/** Calls /api/flaky/<key> once, so the next call (a test's first attempt) is an even one and fails. */
const primeFlaky = async (key: string) => expect((await fetch(`${app.url}/api/flaky/${key}`)).status).toBe(200);

describe('retries', () => {
  it('a test that fails once passes on its retry: passed, flaky, both attempts stored, and the reports say so', async () => {
    await primeFlaky('retry-once');
    const testId = await createTest('flaky endpoint', '/api/flaky/retry-once');
    const { runId, run, results } = await runToEnd({ test_ids: [testId], retries: 2 });
    expect(run).toMatchObject({ total_tests: 1, passed_tests: 1, failed_tests: 0 });
    expect(results.map((r) => [r.attempt, r.status])).toEqual([[1, 'failed'], [2, 'passed']]);
    expect(results[1].metadata).toMatchObject({ retries: 1, flaky: true });

    const junit = (await api.get(`/api/reports/${runId}?format=junit`)).text;
    expect(junit).toContain('name="svc.flaky" value="passed after 1 failed attempt"');
    expect(await parseJUnit(junit)).toMatchObject({ tests: 1, failures: 0 });
    expect((await api.get(`/api/reports/${runId}?format=md`)).text).toContain('### 🔁 Flaky: passed on a retry (1)');
    expect((await api.get(`/api/reports/${runId}?format=html`)).text).toContain('Flaky: passed on attempt 2, after 1 failed attempt in this run.');

    // The flaky ranking counts a pass on a retry within one run.
    const ranking = await api.get(`/api/quality/flaky-ranking?project_id=${projectId}`);
    expect(ranking.body.items).toEqual(expect.arrayContaining([expect.objectContaining({ test_id: testId, retry_flakes: 1, flaky: true })]));
  });

  it('a test that keeps failing runs 1 + retries times and stays failed; without retries it runs once', async () => {
    const testId = await createTest('always down', '/api/items/999');
    const retried = await runToEnd({ test_ids: [testId], retries: 2 });
    expect(retried.run).toMatchObject({ passed_tests: 0, failed_tests: 1 });
    expect(retried.results.map((r) => r.status)).toEqual(['failed', 'failed', 'failed']);
    // An assertion failure is the test's, not svc's: no stack of svc's own code comes with it.
    expect(retried.results[0].metadata).toMatchObject({ failure_kind: 'assertion' });
    expect(retried.results[0].metadata.stack_trace).toBeUndefined();
    const once = await runToEnd({ test_ids: [testId] });
    expect(once.results.map((r) => r.status)).toEqual(['failed']);
  });

  it('a configuration failure is not retried; a project sets retries for its runs; bad values name the field', async () => {
    const created = await api.post('/api/tests', { project_id: projectId, name: 'unknown variable', type: 'api', steps: [{ type: 'request', method: 'GET', url: '/api/items/{{nope}}' }] });
    const config = await runToEnd({ test_ids: [created.body.id], retries: 3 });
    expect(config.results).toHaveLength(1);
    expect(config.results[0].metadata.failure_kind).toBe('configuration');

    // A test that cannot start (no steps yet: a draft) fails as configuration and is still reported by its name and kind.
    const draft = await api.post('/api/tests', { project_id: projectId, name: 'draft with no steps', type: 'ui' });
    expect(draft.status, draft.text).toBe(201);
    const drafted = await runToEnd({ test_ids: [draft.body.id], retries: 1 });
    expect(drafted.results).toHaveLength(1);
    expect(drafted.results[0]).toMatchObject({ status: 'failed', error_message: 'the test has no steps', metadata: { name: 'draft with no steps', type: 'ui', failure_kind: 'configuration' } });
    const junit = await parseJUnit((await api.get(`/api/reports/${drafted.runId}?format=junit`)).text);
    expect(JSON.stringify(junit)).toContain('"name":"draft with no steps"');
    expect(JSON.stringify(junit)).toContain('"classname":"ui"');
    const md = (await api.get(`/api/reports/${drafted.runId}?format=md`)).text;
    expect(md).toContain('draft with no steps');
    expect((await api.get(`/api/reports/${drafted.runId}?format=markdown`)).text).toBe(md); // both names, as the downloads take

    await primeFlaky('project-retries');
    const testId = await createTest('flaky by project setting', '/api/flaky/project-retries');
    expect((await api.patch(`/api/v1/projects/${projectId}`, { config: { retries: 1 } })).status).toBe(200);
    const byProject = await runToEnd({ test_ids: [testId] });
    expect(byProject.results.map((r) => r.status)).toEqual(['failed', 'passed']);
    expect((await api.patch(`/api/v1/projects/${projectId}`, { config: { retries: 0 } })).status).toBe(200);

    const bad = await api.post('/api/v1/test/run', { project_id: projectId, retries: 9 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].path).toBe('retries');
  });
});
