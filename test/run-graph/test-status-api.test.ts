/**
 * A stored test's `status` is the outcome of its latest run, over real HTTP on the local
 * runtime: pending until it runs, then passed, failed or healed as the run's report node
 * stores it. A parameterised test's cases are folded into one status (any failed case fails
 * it); a retry of one case sets the status from that case. Recording an outcome is not an
 * edit: `updated_at` stays (the flaky ranking reads it as the last change of the test).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from './support/api-server.ts';
import { startTarget, type Target } from './support/target.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let target: Target;
let api: Client;
let projectId: string;

beforeAll(async () => {
  target = await startTarget();
  server = await startRunGraphServer();
  const user = await signUp(server.url, 'test-status@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'statuses', app_url: target.url })).body.id;
});
afterAll(async () => {
  await server?.stop();
  await target?.stop();
});

/** A test of GET /<path> expecting 200; with sets, {{path}} comes from each set. */
async function createTest(name: string, path: string, sets?: Array<{ name: string; values: Record<string, string> }>): Promise<string> {
  const created = await api.post('/api/tests', {
    project_id: projectId,
    name,
    type: 'api',
    steps: [{ type: 'request', method: 'GET', url: `/${path}` }],
    assertions: [{ type: 'status', equals: 200 }],
    ...(sets ? { parameter_sets: sets } : {}),
  });
  expect(created.status, created.text).toBe(201);
  return created.body.id as string;
}

async function waitForEnd(runId: string) {
  await expect
    .poll(async () => (await api.get(`/api/v1/test/status/${runId}`)).body.run.status, { timeout: 30_000, interval: 50 })
    .toMatch(/^(completed|failed|cancelled)$/);
}

async function run(testIds: string[]) {
  const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: testIds });
  expect(started.status, started.text).toBe(201);
  await waitForEnd(started.body.run.id);
}

const statusOf = async (testId: string) => (await api.get(`/api/tests/${testId}`)).body as { status: string; updated_at: string };

describe('a test keeps the outcome of its latest run', () => {
  let passing: string;
  let failing: string;
  let cases: string;

  it('is pending before any run, then passed or failed; a parameterised test fails when one case does', async () => {
    passing = await createTest('ok endpoint', 'ok');
    failing = await createTest('failing endpoint', 'fail');
    cases = await createTest('by set', '{{path}}', [
      { name: 'good', values: { path: 'ok' } },
      { name: 'flaky', values: { path: 'flaky' } },
    ]);
    expect((await statusOf(passing)).status).toBe('pending');
    const before = await statusOf(cases);

    target.setBroken(true);
    await run([passing, failing, cases]);
    expect((await statusOf(passing)).status).toBe('passed');
    expect((await statusOf(failing)).status).toBe('failed');
    const after = await statusOf(cases);
    expect(after.status).toBe('failed');
    // Not an edit of the test.
    expect(after.updated_at).toBe(before.updated_at);

    // The list says the same, and filters by it.
    const failed = await api.get(`/api/tests?project_id=${projectId}&status=failed`);
    expect(failed.body.items.map((t: { id: string }) => t.id).sort()).toEqual([failing, cases].sort());
  });

  it('a retry of the failed case, now passing, makes the test passed', async () => {
    target.setBroken(false);
    const retry = await api.post(`/api/tests/${cases}/retry`, { parameter_set: 2 });
    expect(retry.status, retry.text).toBe(201);
    await waitForEnd(retry.body.run.id);
    expect((await statusOf(cases)).status).toBe('passed');
    // Tests outside the run keep theirs.
    expect((await statusOf(failing)).status).toBe('failed');
  });

  it('a test deleted before its run reports stays deleted', async () => {
    const doomed = await createTest('slow and deleted', 'slow?ms=300');
    const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [doomed] });
    expect(started.status, started.text).toBe(201);
    expect((await api.delete(`/api/tests/${doomed}`)).status).toBe(204);
    await waitForEnd(started.body.run.id);
    expect((await api.get(`/api/tests/${doomed}`)).status).toBe(404);
  });
});
