/**
 * Time travel over HTTP: history, state at a checkpoint, compare, replay (resume a failed
 * run from its failing step) and fork (a new thread, optionally with edited state).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from './support/api-server.ts';
import { apiTest, startTarget, type Target } from './support/target.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let target: Target;
let api: Client;
let stranger: Client;
let projectId: string;

beforeAll(async () => {
  target = await startTarget();
  server = await startRunGraphServer();
  const user = await signUp(server.url, 'tt@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
  const other = await signUp(server.url, 'tt-other@example.com');
  stranger = client(server.url, { token: other.token, org: other.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: target.url })).body.id;
});
afterAll(async () => {
  await server?.stop();
  await target?.stop();
});

async function create(path: string) {
  return (await api.post('/api/tests', { project_id: projectId, ...apiTest(path, path), description: undefined })).body.id as string;
}
async function settle(id: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const s = (await api.get(`/api/v1/test/status/${id}`)).body;
    if (['completed', 'failed', 'cancelled'].includes(s.run.status) && !s.active) return s;
    if (Date.now() > deadline) throw new Error(`still ${s.run.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
type Summary = { checkpoint_id: string; parent_checkpoint_id: string | null; metadata: { node?: string; test_id?: string; source: string } };
async function history(threadId: string): Promise<Summary[]> {
  const res = await api.get(`/api/v1/time-travel/history/${threadId}?limit=200`);
  expect(res.status).toBe(200);
  return res.body.items;
}

describe('time travel', () => {
  it('resumes a failed run from its failing step: replay re-executes from the checkpoint before it', async () => {
    target.setBroken(true);
    const ok = await create('/ok?id=tt1');
    const flaky = await create('/flaky?id=tt2');
    const run = (await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [ok, flaky], max_concurrency: 1, healing_enabled: false })).body;
    const threadId = run.thread_id as string;
    const first = await settle(threadId);
    expect(first).toMatchObject({ passed_count: 1, failed_count: 1 });

    const items = await history(threadId);
    expect(items[0].metadata.node).toBe('report'); // newest first
    const failing = items.find((c) => c.metadata.node === 'execute_test' && c.metadata.test_id === flaky)!;
    const before = failing.parent_checkpoint_id!;

    const at = await api.get(`/api/v1/time-travel/state/${threadId}/${failing.checkpoint_id}`);
    expect(at.status).toBe(200);
    expect(at.body.state.test_results.find((r: { test_id: string }) => r.test_id === flaky).status).toBe('FAILED');
    expect(at.body.writes.map((w: { channel: string }) => w.channel)).toEqual(expect.arrayContaining(['attempt', 'result', 'failure']));
    expect(at.body.writes.find((w: { channel: string }) => w.channel === 'result').value).toMatchObject({ test_id: flaky, status: 'FAILED' });

    target.setBroken(false); // the app is fixed
    const replay = await api.post('/api/v1/time-travel/replay', { thread_id: threadId, checkpoint_id: before });
    expect(replay.status).toBe(200);
    expect(replay.body.run.status).toBe('running');
    const second = await settle(threadId);
    expect(second).toMatchObject({ run: { status: 'completed', passed_tests: 2, failed_tests: 0 }, passed_count: 2 });
    expect(target.hits('/ok?id=tt1')).toBe(1); // the passed step is not run again
    expect(target.hits('/flaky?id=tt2')).toBe(2);
    const results = (await api.get(`/api/v1/tests/${threadId}/results`)).body.items.filter((r: { test_id: string }) => r.test_id === flaky);
    expect(results.map((r: { attempt: number; status: string }) => [r.attempt, r.status])).toEqual([[1, 'failed'], [2, 'passed']]);

    // The replayed branch hangs off the chosen checkpoint; the old branch stays in history.
    const after = await history(threadId);
    const replayCp = after.find((c) => c.metadata.node === 'replay')!;
    expect(replayCp.parent_checkpoint_id).toBe(before);
    expect(after.some((c) => c.checkpoint_id === failing.checkpoint_id)).toBe(true);

    const diff = await api.get(`/api/v1/time-travel/compare?thread_id=${threadId}&checkpoint_a=${before}&checkpoint_b=${after[0].checkpoint_id}`);
    expect(diff.status).toBe(200);
    expect(diff.body.added).toEqual(expect.arrayContaining([`test_results.${flaky}`, 'graph.routes.report']));
    expect(diff.body.changed).toEqual(expect.arrayContaining(['passed_count', 'completed_at', 'iteration']));
    expect(diff.body.unchanged).toEqual(expect.arrayContaining(['test_plan', 'app_url', `test_results.${ok}`]));
    expect(diff.body.removed).toEqual([]);
  });

  it('fork: a new run on a new thread from a checkpoint, with edited state', async () => {
    const a = await create('/ok?id=f1');
    const b = await create('/ok?id=f2');
    const source = { branch: 'feature/search', commit_sha: 'def5678' };
    const run = (await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [a, b], source })).body;
    await settle(run.thread_id);
    const planned = (await history(run.thread_id)).find((c) => c.metadata.node === 'plan_tests')!;
    const plan = (await api.get(`/api/v1/time-travel/state/${run.thread_id}/${planned.checkpoint_id}`)).body.state.test_plan;

    const fork = await api.post('/api/v1/time-travel/fork', { thread_id: run.thread_id, checkpoint_id: planned.checkpoint_id, state: { test_plan: plan.filter((t: { id: string }) => t.id === b) } });
    expect(fork.status).toBe(201);
    expect(fork.body.thread_id).not.toBe(run.thread_id);
    // The fork tests the same code: it keeps the run's source.
    expect(fork.body.run).toMatchObject({ trigger: 'fork', status: 'running', source: { ...source, pull_request: null } });
    // …and the URL it tested: its report names it, and a retry of its failure tests it (found by QA: base_url null).
    expect(fork.body.run.app_url).toBe(target.url);
    const done = await settle(fork.body.thread_id);
    expect(done).toMatchObject({ passed_count: 1, run: { total_tests: 1, app_url: target.url } });
    expect(JSON.parse((await api.get(`/api/reports/${fork.body.run.id}?format=json`)).text).run.base_url).toBe(target.url);
    expect(target.hits('/ok?id=f1')).toBe(1);
    expect(target.hits('/ok?id=f2')).toBe(2);
    const forkHistory = await history(fork.body.thread_id);
    const root = forkHistory.at(-1)!;
    expect(root).toMatchObject({ parent_checkpoint_id: null, metadata: { source: 'fork', forked_from: { thread_id: run.thread_id, checkpoint_id: planned.checkpoint_id } } });
    // The original thread is untouched.
    expect((await api.get(`/api/v1/test/status/${run.thread_id}`)).body.passed_count).toBe(2);
  });

  it('fork: results are kept or removed, never added or edited; a result must be of a planned test (found by QA: 4 results counted for a plan of 2)', async () => {
    target.setBroken(true);
    const a = await create('/ok?id=fr1');
    const b = await create('/flaky?id=fr2');
    const run = (await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [a, b], max_concurrency: 1, healing_enabled: false })).body;
    await settle(run.thread_id);
    const items = await history(run.thread_id);
    const end = (await api.get(`/api/v1/time-travel/state/${run.thread_id}/${items[0].checkpoint_id}`)).body.state;
    const planned = items.find((c) => c.metadata.node === 'plan_tests')!;
    const resultOf = (id: string) => end.test_results.find((r: { test_id: string }) => r.test_id === id);
    const fork = (checkpoint: string, state: Record<string, unknown>) => api.post('/api/v1/time-travel/fork', { thread_id: run.thread_id, checkpoint_id: checkpoint, state });
    const refused = async (res: Awaited<ReturnType<typeof fork>>) => {
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      return res.body.error.details.issues as Array<{ path: string; message: string }>;
    };

    // Tests the plan does not have, and one test twice.
    const ghosts = await refused(await fork(items[0].checkpoint_id, { test_results: [resultOf(a), { test_id: 'ghost', status: 'FAILED' }, { test_id: 'ghost2', status: 'SKIPPED' }] }));
    expect(ghosts.map((i) => i.path)).toEqual(['state.test_results.1.test_id', 'state.test_results.2.test_id']);
    expect(ghosts[0].message).toMatch(/not in test_plan/);
    const twice = await refused(await fork(items[0].checkpoint_id, { test_results: [resultOf(a), resultOf(a)] }));
    expect(twice.map((i) => i.path)).toEqual(['state.test_results.1.test_id']);
    // A failure turned into a pass, and a pass made up for a test that has not run: neither ran.
    const edited = await refused(await fork(items[0].checkpoint_id, { test_results: [resultOf(a), { ...resultOf(b), status: 'PASSED' }] }));
    expect(edited.map((i) => i.path)).toEqual(['state.test_results.1.status']);
    expect(edited[0].message).toMatch(/FAILED/);
    const madeUp = await refused(await fork(planned.checkpoint_id, { test_results: [{ test_id: b, status: 'PASSED' }] }));
    expect(madeUp.map((i) => i.path)).toEqual(['state.test_results.0']);
    // A plan that leaves a result behind says so.
    const orphaned = await refused(await fork(items[0].checkpoint_id, { test_plan: end.test_plan.filter((t: { id: string }) => t.id === a) }));
    expect(orphaned.map((i) => i.path)).toEqual(['state.test_plan']);
    expect(orphaned[0].message).toContain(b);
    expect((await api.get(`/api/runs?project_id=${projectId}&trigger=fork`)).body.items.filter((r: { status: string }) => r.status === 'running')).toEqual([]);

    // Kept as they are, with the failure removed: only b runs again, and the counts add up to the plan.
    target.setBroken(false);
    const ok = await fork(items[0].checkpoint_id, { test_results: [resultOf(a)] });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const done = await settle(ok.body.thread_id);
    expect(done).toMatchObject({ passed_count: 2, failed_count: 0, skipped_count: 0, run: { status: 'completed', total_tests: 2, passed_tests: 2, failed_tests: 0 } });
    expect([target.hits('/ok?id=fr1'), target.hits('/flaky?id=fr2')]).toEqual([1, 2]);
    const report = JSON.parse((await api.get(`/api/reports/${ok.body.run.id}?format=json`)).text);
    expect(report.run).toMatchObject({ total: 2, passed: 2, failed: 0, skipped: 0 });
  });

  it('bad input: unknown checkpoint or thread → 404, foreign thread → 404, invalid edit → 400, replaying a running thread → 409', async () => {
    const a = await create('/ok?id=bad1');
    const run = (await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [a] })).body;
    await settle(run.thread_id);
    const cp = (await history(run.thread_id))[0].checkpoint_id;
    expect((await api.post('/api/v1/time-travel/fork', { thread_id: run.thread_id, checkpoint_id: 'nope' })).status).toBe(404);
    expect((await api.post('/api/v1/time-travel/replay', { thread_id: run.thread_id, checkpoint_id: 'nope' })).status).toBe(404);
    expect((await api.get(`/api/v1/time-travel/state/${run.thread_id}/nope`)).status).toBe(404);
    expect((await api.get('/api/v1/time-travel/history/nope')).status).toBe(404);
    expect((await api.get(`/api/v1/time-travel/compare?thread_id=${run.thread_id}&checkpoint_a=${cp}&checkpoint_b=nope`)).status).toBe(404);
    expect((await api.get(`/api/v1/time-travel/compare?thread_id=${run.thread_id}`)).status).toBe(400);
    for (const res of [
      await stranger.get(`/api/v1/time-travel/history/${run.thread_id}`),
      await stranger.get(`/api/v1/time-travel/state/${run.thread_id}/${cp}`),
      await stranger.post('/api/v1/time-travel/replay', { thread_id: run.thread_id, checkpoint_id: cp }),
      await stranger.post('/api/v1/time-travel/fork', { thread_id: run.thread_id, checkpoint_id: cp }),
    ]) expect(res.status).toBe(404);
    const invalid = await api.post('/api/v1/time-travel/fork', { thread_id: run.thread_id, checkpoint_id: cp, state: { passed_count: -1, run_id: 'x' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['state.run_id']);
    const invalid2 = await api.post('/api/v1/time-travel/fork', { thread_id: run.thread_id, checkpoint_id: cp, state: { passed_count: -1 } });
    expect(invalid2.status).toBe(400);
    expect(invalid2.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['state.passed_count']);

    target.closeGate();
    const g = await create('/gate?id=bad2');
    const running = (await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [g] })).body;
    const deadline = Date.now() + 5000;
    while (target.hits('/gate?id=bad2') === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const rcp = (await history(running.thread_id))[0].checkpoint_id;
    const busy = await api.post('/api/v1/time-travel/replay', { thread_id: running.thread_id, checkpoint_id: rcp });
    expect(busy.status).toBe(409);
    target.openGate();
    await settle(running.thread_id);
  });
});
