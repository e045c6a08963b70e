/**
 * Approvals over HTTP with real Chromium: plan approval before execute_test, healing
 * approval before self_heal applies a fix; approve, modify (validated), reject, expiry,
 * and the bad inputs. Everything is driven through the API and observed on the stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, signUp, type Client } from '../support/server.ts';
import { createPlaywrightDriver } from '../../packages/functions/src/execution/browser/playwright-driver.ts';
import { startRunGraphServer } from './support/api-server.ts';
import { openSse } from './support/sse-client.ts';
import { apiTest, startTarget, uiTest, type Target } from './support/target.ts';
import { selectorHealer } from './support/selector-healer.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let target: Target;
let api: Client;
let stranger: Client;
let token: string;
let orgId: string;
let projectId: string;
const healer = selectorHealer();

beforeAll(async () => {
  target = await startTarget();
  server = await startRunGraphServer({ healer, browser: () => createPlaywrightDriver({ locateTimeoutMs: 500, assertTimeoutMs: 1000 }) });
  const user = await signUp(server.url, 'approver@example.com');
  token = user.token;
  orgId = user.orgId;
  api = client(server.url, { token, org: orgId });
  const other = await signUp(server.url, 'other-approver@example.com');
  stranger = client(server.url, { token: other.token, org: other.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: target.url })).body.id;
});
afterAll(async () => {
  await server?.stop();
  await target?.stop();
});

async function create(body: Record<string, unknown>) {
  const res = await api.post('/api/tests', { project_id: projectId, ...body, description: undefined });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

function stream(body: Record<string, unknown>) {
  return openSse(`${server.url}/api/v1/stream/test`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'x-organization-id': orgId, 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: projectId, require_test_plan_approval: true, require_healing_approval: true, ...body }),
  });
}

describe('approvals', () => {
  it('both approvals on: plan interrupt → approve → locator failure → fix interrupt → approve → HEALED', async () => {
    const broken = await create(uiTest('buy (old selector)', '#buy'));
    const fine = await create(apiTest('api ok', '/ok?id=ap1'));
    const s = await stream({ test_ids: [broken, fine] });
    const threadId = s.res.headers.get('x-thread-id')!;

    const plan = await s.waitFor((e) => e.event === 'interrupt');
    expect(plan.data).toMatchObject({ node: 'execute_test', reason: expect.stringMatching(/test plan approval required/), approval_id: expect.any(String) });
    expect(s.events.some((e) => e.event === 'node_start' && e.data.node === 'execute_test')).toBe(false);
    const status = await api.get(`/api/v1/test/status/${threadId}`);
    expect(status.body.run.status).toBe('awaiting_approval');
    const pending = await api.get('/api/v1/approvals/pending');
    expect(pending.body.items).toEqual([expect.objectContaining({ thread_id: threadId, node: 'execute_test', status: 'pending', proposal: { tests: expect.any(Array) } })]);
    expect(pending.body.items[0]).not.toHaveProperty('task_token');

    const approved = await api.post(`/api/v1/approvals/${threadId}/approve`, { comment: 'plan looks right' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ decision: 'approved', approval: { node: 'execute_test', status: 'approved', comment: 'plan looks right' } });
    await s.waitFor((e) => e.event === 'resume' && e.data.node === 'execute_test');

    const fix = await s.waitFor((e) => e.event === 'interrupt' && e.data.node === 'self_heal', 60_000);
    expect(fix.data).toMatchObject({ test_id: broken, reason: expect.stringMatching(/healing approval is required/) });
    const pendingFix = (await api.get('/api/v1/approvals/pending')).body.items.find((a: { node: string }) => a.node === 'self_heal');
    expect(pendingFix.proposal).toMatchObject({ kind: 'locator', confidence: 0.9, changes: [{ from: '#buy', to: '#buy-now' }] });
    // The failing result is already stored; the fix is not applied yet.
    expect((await api.get(`/api/v1/tests/${threadId}/results`)).body.items.find((r: { test_id: string }) => r.test_id === broken)).toMatchObject({ status: 'failed', attempt: 1 });

    expect((await api.post(`/api/v1/approvals/${threadId}/approve`, {})).status).toBe(200);
    const done = await s.waitFor((e) => e.event === 'complete', 60_000);
    expect(done.data.summary).toMatchObject({ status: 'completed', total: 2, passed: 1, healed: 1, failed: 0 });
    const results = (await api.get(`/api/v1/tests/${threadId}/results`)).body.items.filter((r: { test_id: string }) => r.test_id === broken);
    expect(results.map((r: { status: string; attempt: number }) => [r.attempt, r.status])).toEqual([[1, 'failed'], [2, 'healed']]);
    expect((await api.get('/api/v1/approvals/pending')).body.items).toEqual([]);
    s.close();
  });

  it('modify: an invalid state is a 400 and changes nothing; a valid one resumes with it', async () => {
    const a = await create(apiTest('a', '/ok?id=m1'));
    const b = await create(apiTest('b', '/gate?id=m2'));
    const s = await stream({ test_ids: [a, b] });
    const threadId = s.res.headers.get('x-thread-id')!;
    await s.waitFor((e) => e.event === 'interrupt');

    const invalid = await api.post(`/api/v1/approvals/${threadId}/modify`, { state: { test_plan: [{ id: a, type: 'NOPE', name: '' }], graph: {} } });
    expect(invalid.status).toBe(400);
    const paths = invalid.body.error.details.issues.map((i: { path: string }) => i.path);
    expect(paths).toEqual(['state.graph']);
    const invalid2 = await api.post(`/api/v1/approvals/${threadId}/modify`, { state: { test_plan: [{ id: a, type: 'NOPE', name: '' }] } });
    expect(invalid2.status).toBe(400);
    expect(invalid2.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(expect.arrayContaining(['state.test_plan.0.type', 'state.test_plan.0.name']));
    expect((await api.post(`/api/v1/approvals/${threadId}/modify`, { state: {} })).status).toBe(400);
    expect((await api.get(`/api/v1/test/status/${threadId}`)).body.run.status).toBe('awaiting_approval');

    // Keep only test b in the plan.
    const state = (await api.get(`/api/v1/time-travel/state/${threadId}/${(await api.get(`/api/v1/test/status/${threadId}`)).body.checkpoint_id}`)).body.state;
    const onlyB = state.test_plan.filter((t: { id: string }) => t.id === b);
    // {id} may be the approval's id as well as the thread's.
    const approvalId = (await api.get('/api/v1/approvals/pending')).body.items.find((x: { thread_id: string }) => x.thread_id === threadId).approval_id;
    target.closeGate();
    const modified = await api.post(`/api/v1/approvals/${approvalId}/modify`, { state: { test_plan: onlyB }, comment: 'a is flaky today' });
    expect(modified.status).toBe(200);
    expect(modified.body).toMatchObject({ decision: 'modified', approval: { status: 'modified' } });
    // While b runs, the run record already counts the shortened plan (it said 2 until the run ended; noted by QA).
    await s.waitFor((e) => e.event === 'node_start' && e.data.node === 'execute_test');
    expect((await api.get(`/api/v1/test/status/${threadId}`)).body.run).toMatchObject({ status: 'running', total_tests: 1 });
    target.openGate();
    const done = await s.waitFor((e) => e.event === 'complete');
    expect(done.data.summary).toMatchObject({ total: 1, passed: 1 });
    expect(target.hits('/ok?id=m1')).toBe(0);
    expect(target.hits('/gate?id=m2')).toBe(1);
    s.close();
  });

  it('modify: results of tests not in the plan, or results no test produced, are refused naming the field; the run counts only its plan (found by QA)', async () => {
    const a = await create(apiTest('a', '/ok?id=g1'));
    const b = await create(apiTest('b', '/fail?id=g2'));
    const s = await stream({ test_ids: [a, b] });
    const threadId = s.res.headers.get('x-thread-id')!;
    await s.waitFor((e) => e.event === 'interrupt');
    const paths = (res: { body: { error: { details: { issues: Array<{ path: string }> } } } }) => res.body.error.details.issues.map((i) => i.path);

    // A result for a test the plan does not have: it was counted and stored (a run of 2 said 1 passed, 2 failed, 1 skipped).
    const ghost = await api.post(`/api/v1/approvals/${threadId}/modify`, { state: { test_results: [{ test_id: 'ghost', status: 'FAILED' }, { test_id: 'ghost2', status: 'SKIPPED' }] } });
    expect(ghost.status).toBe(400);
    expect(paths(ghost)).toEqual(['state.test_results.0.test_id', 'state.test_results.1.test_id']);
    expect(ghost.body.error.details.issues[0].message).toMatch(/not in test_plan/);
    // A result for a planned test that has not run: it would count as passed and never run.
    const injected = await api.post(`/api/v1/approvals/${threadId}/modify`, { state: { test_results: [{ test_id: b, status: 'PASSED' }] } });
    expect(injected.status).toBe(400);
    expect(paths(injected)).toEqual(['state.test_results.0']);
    expect(injected.body.error.details.issues[0].message).toMatch(/has no result/);
    // Nothing of it was kept: the run still waits, and its state has no result.
    const status = (await api.get(`/api/v1/test/status/${threadId}`)).body;
    expect(status).toMatchObject({ run: { status: 'awaiting_approval' }, passed_count: 0, failed_count: 0, skipped_count: 0 });

    expect((await api.post(`/api/v1/approvals/${threadId}/approve`, {})).status).toBe(200);
    const done = await s.waitFor((e) => e.event === 'complete');
    expect(done.data.summary).toMatchObject({ status: 'completed', total: 2, passed: 1, failed: 1, skipped: 0 });
    expect([target.hits('/ok?id=g1'), target.hits('/fail?id=g2')]).toEqual([1, 1]);
    expect((await api.get(`/api/v1/test/status/${threadId}`)).body.run).toMatchObject({ total_tests: 2, passed_tests: 1, failed_tests: 1 });
    s.close();
  });

  it('reject: the plan is skipped (every test SKIPPED); a rejected fix leaves the test FAILED', async () => {
    const a = await create(apiTest('a', '/ok?id=j1'));
    const s = await stream({ test_ids: [a] });
    const threadId = s.res.headers.get('x-thread-id')!;
    await s.waitFor((e) => e.event === 'interrupt');
    const rejected = await api.post(`/api/v1/approvals/${threadId}/reject`, { comment: 'not today' });
    expect(rejected.body).toMatchObject({ decision: 'rejected' });
    const done = await s.waitFor((e) => e.event === 'complete');
    expect(done.data.summary).toMatchObject({ total: 1, skipped: 1, passed: 0 });
    expect(target.hits('/ok?id=j1')).toBe(0);
    const results = (await api.get(`/api/v1/tests/${threadId}/results`)).body.items;
    expect(results).toEqual([expect.objectContaining({ status: 'skipped', error_message: expect.stringMatching(/test plan was rejected \(not today\)/) })]);
    s.close();

    const broken = await create(uiTest('buy (old selector)', '#buy'));
    const h = await stream({ test_ids: [broken], require_test_plan_approval: false });
    const t2 = h.res.headers.get('x-thread-id')!;
    await h.waitFor((e) => e.event === 'interrupt' && e.data.node === 'self_heal', 60_000);
    expect((await api.post(`/api/v1/approvals/${t2}/reject`, {})).status).toBe(200);
    const end = await h.waitFor((e) => e.event === 'complete', 60_000);
    expect(end.data.summary).toMatchObject({ failed: 1, healed: 0 });
    const st = (await api.get(`/api/v1/time-travel/state/${t2}/${(await api.get(`/api/v1/test/status/${t2}`)).body.checkpoint_id}`)).body.state;
    expect(st.graph.heal[broken]).toMatchObject({ status: 'rejected', reason: expect.stringMatching(/stays failed/) });
    h.close();
  });

  it('an approval that times out counts as a reject, with the reason recorded', async () => {
    const a = await create(apiTest('a', '/ok?id=e1'));
    const s = await stream({ test_ids: [a], approval_timeout_seconds: 1 });
    const threadId = s.res.headers.get('x-thread-id')!;
    await s.waitFor((e) => e.event === 'interrupt');
    const resume = await s.waitFor((e) => e.event === 'resume', 10_000);
    expect(resume.data).toMatchObject({ decision: 'expired', comment: 'approval timed out after 1 s; treated as a reject' });
    const done = await s.waitFor((e) => e.event === 'complete');
    expect(done.data.summary).toMatchObject({ skipped: 1 });
    const st = (await api.get(`/api/v1/time-travel/state/${threadId}/${(await api.get(`/api/v1/test/status/${threadId}`)).body.checkpoint_id}`)).body.state;
    expect(st.graph.approvals[0]).toMatchObject({ status: 'expired', comment: expect.stringMatching(/timed out/) });
    s.close();
  });

  it('bad input: approving a run that is not waiting → 409; another organization → 404; unknown approval id → 409', async () => {
    const a = await create(apiTest('a', '/ok?id=x1'));
    const run = (await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [a] })).body;
    const deadline = Date.now() + 10_000;
    while ((await api.get(`/api/v1/test/status/${run.thread_id}`)).body.run.status !== 'completed' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const notWaiting = await api.post(`/api/v1/approvals/${run.thread_id}/approve`, {});
    expect(notWaiting.status).toBe(409);
    expect(notWaiting.body.error.message).toMatch(/not waiting for approval/);
    expect((await api.post(`/api/v1/approvals/${run.thread_id}/modify`, { state: { codebase_summary: 'x' } })).status).toBe(409);

    const s = await stream({ test_ids: [a] });
    const threadId = s.res.headers.get('x-thread-id')!;
    await s.waitFor((e) => e.event === 'interrupt');
    expect((await stranger.post(`/api/v1/approvals/${threadId}/approve`, {})).status).toBe(404);
    expect((await stranger.get('/api/v1/approvals/pending')).body.items).toEqual([]);
    expect((await api.post(`/api/v1/approvals/${threadId}/approve`, { approval_id: 'nope' })).status).toBe(409);
    expect((await api.post(`/api/v1/approvals/nope/approve`, {})).status).toBe(404);
    expect((await api.post(`/api/v1/approvals/${threadId}/approve`, {})).status).toBe(200);
    expect((await api.post(`/api/v1/approvals/${threadId}/approve`, {})).status).toBe(409); // twice
    await s.waitFor((e) => e.event === 'complete');
    s.close();
  });

  it('a run on a named thread is decided by its run id as well as its thread id (approve, reject, modify); not by another organization', async () => {
    const a = await create(apiTest('a', '/ok?id=n1'));
    const parked = async (name: string) => {
      const s = await stream({ test_ids: [a], thread_id: name });
      await s.waitFor((e) => e.event === 'interrupt');
      const runId = (await api.get(`/api/v1/test/status/${s.res.headers.get('x-thread-id')!}`)).body.run.id as string;
      return { s, runId, threadId: s.res.headers.get('x-thread-id')! };
    };
    for (const [decision, body] of [['approve', {}], ['reject', { comment: 'by run id' }], ['modify', { state: { codebase_summary: 'by run id' } }]] as const) {
      const { s, runId, threadId } = await parked(`nightly-by-run-${decision}`);
      expect(threadId).not.toBe(runId);
      expect((await stranger.post(`/api/v1/approvals/${runId}/${decision}`, body)).status).toBe(404);
      const decided = await api.post(`/api/v1/approvals/${runId}/${decision}`, body);
      expect(decided.status, decided.text).toBe(200);
      expect(decided.body).toMatchObject({ thread_id: threadId, decision: { approve: 'approved', reject: 'rejected', modify: 'modified' }[decision] });
      await s.waitFor((e) => e.event === 'complete');
      s.close();
    }
  });
});
