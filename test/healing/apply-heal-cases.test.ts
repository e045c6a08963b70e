/**
 * Keeping a parameterised test's heals: each case (parameter set) runs and heals on its
 * own, and POST /api/tests/{id}/apply-heal writes what every case healed, once — not only
 * what the first case did — and refuses when a case's heals did not hold.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { client, runEnded, signUp, type Client } from '../support/server.ts';

let v1: FixtureApp;
let v2: FixtureApp;
let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let api: Client;
let projectId: string;

beforeAll(async () => {
  v1 = await startFixtureApp({ version: 'v1' });
  v2 = await startFixtureApp({ version: 'v2' });
  server = await startRunGraphServer();
  const user = await signUp(server.url, 'heal-cases@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'cases', app_url: v1.url })).body.id;
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await v1?.close();
  await v2?.close();
});

async function runOn(appUrl: string, testId: string) {
  expect((await api.patch(`/api/v1/projects/${projectId}`, { app_url: appUrl })).status).toBe(200);
  const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [testId] });
  expect(started.status, started.text).toBe(201);
  await runEnded(api, started.body.run.id, 120_000);
  const results = (await api.get(`/api/v1/tests/${started.body.run.id}/results`)).body.items as Array<{ status: string; parameter_set?: { name: string } }>;
  return { runId: started.body.run.id as string, results };
}

describe('apply-heal of a parameterised test', () => {
  it('writes the locator both cases healed once; a run where a case failed is refused', async () => {
    const created = await api.post('/api/tests', {
      project_id: projectId, name: 'sign-in emails', type: 'ui', priority: 'high', tags: [],
      parameter_sets: [{ name: 'demo', values: { email: 'demo@example.com' } }, { name: 'other', values: { email: 'other@example.com' } }],
      steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#email', value: '{{email}}' }],
      assertions: [],
    });
    expect(created.status, created.text).toBe(201);
    const testId = created.body.id as string;
    // v1 records the fingerprints; on v2 #email is gone and each case heals it on the page.
    expect((await runOn(v1.url, testId)).results.map((r) => r.status)).toEqual(['passed', 'passed']);
    const healed = await runOn(v2.url, testId);
    expect(healed.results.map((r) => [r.parameter_set?.name, r.status])).toEqual([['demo', 'healed'], ['other', 'healed']]);

    const applied = await api.post(`/api/tests/${testId}/apply-heal`, { run_id: healed.runId });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.changes).toEqual([{ path: 'steps.1.selector', from: '#email', to: 'test_id=login-email' }]);
    expect(applied.body.test.steps[1]).toEqual({ type: 'fill', selector: { test_id: 'login-email' }, value: '{{email}}' });
    // Both cases now pass on v2 without healing.
    expect((await runOn(v2.url, testId)).results.map((r) => r.status)).toEqual(['passed', 'passed']);

    // A case whose last execution failed: its heals did not hold, and nothing is written.
    const broken = await api.post('/api/tests', {
      project_id: projectId, name: 'one case breaks', type: 'ui', priority: 'high', tags: [],
      parameter_sets: [{ name: 'fine', values: { path: '/login' } }, { name: 'gone', values: { path: '/no-such-page' } }],
      steps: [{ type: 'goto', url: '{{path}}' }, { type: 'fill', selector: '#email', value: 'x@example.com' }],
      assertions: [],
    });
    const brokenId = broken.body.id as string;
    await runOn(v1.url, brokenId);
    const mixed = await runOn(v2.url, brokenId);
    expect(mixed.results.map((r) => [r.parameter_set?.name, r.status])).toEqual([['fine', 'healed'], ['gone', 'failed']]);
    const refused = await api.post(`/api/tests/${brokenId}/apply-heal`, { run_id: mixed.runId });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toBe(`the test's last execution (case gone) in run ${mixed.runId} failed: its heals did not hold`);
    expect((await api.get(`/api/tests/${brokenId}`)).body.steps[1].selector).toBe('#email');
  }, 300_000);
});
