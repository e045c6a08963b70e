/**
 * A stored test's own timeout and shared parameters, over real HTTP on the local runtime:
 * the fields default (10 minutes, none), are validated naming the field, are kept in the
 * test's revisions, and a server run uses them — the timeout ends a slow test, and shared
 * values fill {{name}} variables under each parameter set's own.
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
  const user = await signUp(server.url, 'timeouts@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'timeouts', app_url: target.url })).body.id;
});
afterAll(async () => {
  await server?.stop();
  await target?.stop();
});

const requestTest = (name: string, url: string, extra: Record<string, unknown> = {}) => ({
  project_id: projectId,
  name,
  type: 'api',
  steps: [{ type: 'request', method: 'GET', url, query: { id: '{{id}}' } }],
  assertions: [{ type: 'status', equals: 200 }],
  ...extra,
});

async function runToEnd(testIds: string[]) {
  const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: testIds });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const runId = started.body.run.id as string;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await api.get(`/api/v1/test/status/${runId}`);
    if (res.body.run.status === 'completed' || res.body.run.status === 'failed') break;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${res.body.run.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return (await api.get(`/api/v1/tests/${runId}/results`)).body.items as Array<{ status: string; error_message: string | null; parameter_set?: { index: number } }>;
}

describe("a stored test's timeout_ms and parameters", () => {
  it('default to the 10-minute maximum and none, and bad values are refused naming the field', async () => {
    const plain = await api.post('/api/tests', requestTest('plain', '/ok'));
    expect(plain.status, JSON.stringify(plain.body)).toBe(201);
    expect(plain.body).toMatchObject({ timeout_ms: 600_000, parameters: {} });

    const cases: Array<[Record<string, unknown>, string]> = [
      [{ timeout_ms: 500 }, 'timeout_ms'],
      [{ timeout_ms: 600_001 }, 'timeout_ms'],
      [{ timeout_ms: '30s' }, 'timeout_ms'],
      [{ parameters: { secrets: 'x' } }, 'parameters.secrets'],
      [{ parameters: { id: { nested: true } } }, 'parameters.id'],
      [{ parameters: ['a'] }, 'parameters'],
    ];
    for (const [extra, field] of cases) {
      const res = await api.post('/api/tests', requestTest('bad', '/ok', extra));
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path), JSON.stringify(res.body)).toContain(field);
    }
    const badPatch = await api.patch(`/api/tests/${plain.body.id}`, { timeout_ms: 0 });
    expect(badPatch.status).toBe(400);
    expect((await api.get(`/api/tests/${plain.body.id}`)).body.timeout_ms).toBe(600_000);
  });

  it("a run ends a test at its own timeout, naming it, and the other tests go on", async () => {
    const slow = await api.post('/api/tests', requestTest('slow', '/slow?ms=6000', { timeout_ms: 1500, parameters: { id: 'slow' } }));
    expect(slow.body.timeout_ms).toBe(1500);
    const quick = await api.post('/api/tests', requestTest('quick', '/ok', { parameters: { id: 'quick' } }));
    const results = await runToEnd([slow.body.id, quick.body.id]);
    const byStatus = results.map((r) => r.status).sort();
    expect(byStatus, JSON.stringify(results)).toEqual(['failed', 'passed']);
    const failed = results.find((r) => r.status === 'failed')!;
    // The test's deadline, not the default 10 minutes: 1.5 s rounded up to whole seconds (the
    // run's test spec counts seconds). Which of the step's deadline and the test's fires first is a race.
    expect(failed.error_message).toMatch(/^step 1 \(GET \/slow\?ms=6000\): (.*no complete response within (1\d{3}|2000) ms \(the step deadline\)|test exceeded its timeout of 2000 ms)$/);
  });

  it('shared parameters fill {{name}} variables; a parameter set wins over them; a PATCH is a revision', async () => {
    const shared = await api.post('/api/tests', requestTest('shared', '/{{path}}', { parameters: { path: 'ok', id: 'shared-1' } }));
    expect(shared.status, JSON.stringify(shared.body)).toBe(201);
    const cases = await api.post('/api/tests', requestTest('cases', '/{{path}}', { parameters: { path: 'ok', id: 'never' }, parameter_sets: [{ values: { id: 'case-a' } }, { values: { id: 'case-b' } }] }));
    expect(cases.status, JSON.stringify(cases.body)).toBe(201);

    const results = await runToEnd([shared.body.id, cases.body.id]);
    expect(results.map((r) => r.status)).toEqual(['passed', 'passed', 'passed']);
    expect([target.hits('/ok?id=shared-1'), target.hits('/ok?id=case-a'), target.hits('/ok?id=case-b'), target.hits('/ok?id=never')]).toEqual([1, 1, 1, 0]);

    const patched = await api.patch(`/api/tests/${shared.body.id}`, { parameters: { path: 'fail', id: 'shared-2' }, timeout_ms: 30_000 });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ revision: 2, timeout_ms: 30_000, parameters: { path: 'fail', id: 'shared-2' } });
    const history = await api.get(`/api/tests/${shared.body.id}/revisions`);
    expect(history.body.items[0].changed_fields.sort()).toEqual(['parameters', 'timeout_ms']);
    const [again] = await runToEnd([shared.body.id]);
    expect(again.status).toBe('failed');
    expect(target.hits('/fail?id=shared-2')).toBe(1);

    const restored = await api.post(`/api/tests/${shared.body.id}/revisions/1/restore`, {});
    expect(restored.body).toMatchObject({ revision: 3, timeout_ms: 600_000, parameters: { path: 'ok', id: 'shared-1' } });
  });
});
