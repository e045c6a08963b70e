/**
 * The issue's "done when": a run with both approvals on, driven entirely over HTTP —
 * start (streamed), approve, modify, reject, replay, fork, compare — with real Chromium
 * for the UI tests and a healer behind the Healer port.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, signUp, type Client } from '../support/server.ts';
import { createPlaywrightDriver } from '../../packages/functions/src/execution/browser/playwright-driver.ts';
import { startRunGraphServer } from './support/api-server.ts';
import { openSse, type SseEvent } from './support/sse-client.ts';
import { apiTest, startTarget, uiTest, type Target } from './support/target.ts';
import { selectorHealer } from './support/selector-healer.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let target: Target;
let api: Client;
let token: string;
let orgId: string;

beforeAll(async () => {
  target = await startTarget();
  // Confidence 0.5: below the threshold, so even without healing approval a fix would wait.
  server = await startRunGraphServer({ healer: selectorHealer(0.5), browser: () => createPlaywrightDriver({ locateTimeoutMs: 500, assertTimeoutMs: 1000 }) });
  const user = await signUp(server.url, 'e2e@example.com');
  token = user.token;
  orgId = user.orgId;
  api = client(server.url, { token, org: orgId });
});
afterAll(async () => {
  await server?.stop();
  await target?.stop();
});

const headers = () => ({ authorization: `Bearer ${token}`, 'x-organization-id': orgId, 'content-type': 'application/json' });

describe('a run with both approvals on, entirely over HTTP', () => {
  it('start → approve plan → modify one fix, reject another → replay → fork → compare', { timeout: 180_000 }, async () => {
    // Project-level settings: both approvals on.
    const project = (await api.post('/api/v1/projects', { name: 'shop', app_url: target.url, config: { require_test_plan_approval: true, require_healing_approval: true } })).body;
    const mk = async (body: Record<string, unknown>) => (await api.post('/api/tests', { project_id: project.id, ...body, description: undefined })).body.id as string;
    const buy = await mk(uiTest('buy', '#buy'));
    const purchase = await mk(uiTest('purchase', '#purchase'));
    const health = await mk(apiTest('health', '/ok?id=e2e'));

    // 1. start, streamed
    const s = await openSse(`${server.url}/api/v1/stream/test`, { method: 'POST', headers: headers(), body: JSON.stringify({ project_id: project.id, test_ids: [buy, purchase, health], max_concurrency: 3 }) });
    const threadId = s.res.headers.get('x-thread-id')!;
    await s.waitFor((e) => e.event === 'interrupt' && e.data.node === 'execute_test');

    // 2. approve the plan
    expect((await api.post(`/api/v1/approvals/${threadId}/approve`, { comment: 'go' })).status).toBe(200);

    // 3. both UI tests fail on their selector; each fix waits for approval
    const fixes = new Map<string, SseEvent>();
    for (const id of [buy, purchase]) fixes.set(id, await s.waitFor((e) => e.event === 'interrupt' && e.data.node === 'self_heal' && e.data.test_id === id, 60_000));
    // Two pending on one thread: a decision must name which.
    expect((await api.post(`/api/v1/approvals/${threadId}/approve`, {})).status).toBe(409);

    // 4. modify the fix for "buy": the reviewer edits the proposed test (a fix of their own) …
    const cp = (await api.get(`/api/v1/test/status/${threadId}`)).body.checkpoint_id;
    const plan = (await api.get(`/api/v1/time-travel/state/${threadId}/${cp}`)).body.state.test_plan;
    const edited = plan.map((t: { id: string; steps: Array<Record<string, unknown>> }) => (t.id === buy ? { ...t, steps: [t.steps[0], { type: 'click', selector: { role: 'button', name: 'Buy' } }] } : t));
    const modified = await api.post(`/api/v1/approvals/${threadId}/modify`, { approval_id: fixes.get(buy)!.data.approval_id, state: { test_plan: edited }, comment: 'use the role' });
    expect(modified.status).toBe(200);
    // … and reject the fix for "purchase"
    expect((await api.post(`/api/v1/approvals/${threadId}/reject`, { approval_id: fixes.get(purchase)!.data.approval_id, comment: 'purchase flow is gone' })).status).toBe(200);

    const done = await s.waitFor((e) => e.event === 'complete', 60_000);
    expect(done.data.summary).toMatchObject({ status: 'completed', total: 3, passed: 1, healed: 1, failed: 1 });
    expect(s.events.filter((e) => e.event === 'resume').map((e) => e.data.decision).sort()).toEqual(['approved', 'modified', 'rejected']);
    s.close();
    const st = (await api.get(`/api/v1/time-travel/state/${threadId}/${(await api.get(`/api/v1/test/status/${threadId}`)).body.checkpoint_id}`)).body.state;
    expect(st.test_plan.find((t: { id: string }) => t.id === buy).steps[1].selector).toEqual({ role: 'button', name: 'Buy' });
    expect(st.healed_tests).toEqual([expect.objectContaining({ test_id: buy, fix: expect.objectContaining({ modified_by_reviewer: true }) })]);

    // 5. replay from before "purchase"'s fix was rejected: the fix is asked for again; approve it (and anything else asked) this time
    const history = (await api.get(`/api/v1/time-travel/history/${threadId}?limit=200`)).body.items as Array<{ checkpoint_id: string; parent_checkpoint_id: string; metadata: { node: string; test_id?: string; approval?: { decision: string } } }>;
    const rejection = history.find((c) => c.metadata.approval?.decision === 'rejected')!;
    const replay = await api.post('/api/v1/time-travel/replay', { thread_id: threadId, checkpoint_id: rejection.parent_checkpoint_id });
    expect(replay.status).toBe(200);
    // Reattach after the last event seen: the stream carries on with the replay's events.
    const r = await openSse(`${server.url}${replay.body.stream_url}`, { headers: { authorization: `Bearer ${token}`, 'last-event-id': String(done.id) } });
    const approved = new Set<string>();
    let replayed: SseEvent | undefined;
    while (!replayed) {
      const next = await r.waitFor((e) => e.event === 'complete' || (e.event === 'interrupt' && !approved.has(e.data.approval_id)), 60_000);
      if (next.event === 'complete') replayed = next;
      else {
        approved.add(next.data.approval_id);
        expect((await api.post(`/api/v1/approvals/${threadId}/approve`, { approval_id: next.data.approval_id })).status).toBe(200);
      }
    }
    expect([...approved].length).toBeGreaterThanOrEqual(1);
    expect(replayed.data.summary).toMatchObject({ status: 'completed', failed: 0, healed: 2, passed: 1 });
    expect(Number(r.events[0].id)).toBe(Number(done.id) + 1); // the stream went on from where it was
    r.close();

    // 6. fork from the plan, keeping only the API test; the fork asks for its own plan approval
    const planned = history.find((c) => c.metadata.node === 'plan_tests')!;
    const planState = (await api.get(`/api/v1/time-travel/state/${threadId}/${planned.checkpoint_id}`)).body.state;
    const fork = await api.post('/api/v1/time-travel/fork', { thread_id: threadId, checkpoint_id: planned.checkpoint_id, state: { test_plan: planState.test_plan.filter((t: { id: string }) => t.id === health) } });
    expect(fork.status).toBe(201);
    const f = await openSse(`${server.url}/stream/${fork.body.thread_id}`, { headers: { authorization: `Bearer ${token}` } });
    await f.waitFor((e) => e.event === 'interrupt');
    expect((await api.post(`/api/v1/approvals/${fork.body.thread_id}/approve`, {})).status).toBe(200);
    const forked = await f.waitFor((e) => e.event === 'complete', 30_000);
    expect(forked.data.summary).toMatchObject({ total: 1, passed: 1 });
    f.close();

    // 7. compare the plan with the end of the replayed run
    const latest = (await api.get(`/api/v1/time-travel/history/${threadId}?limit=1`)).body.items[0].checkpoint_id;
    const diff = (await api.get(`/api/v1/time-travel/compare?thread_id=${threadId}&checkpoint_a=${planned.checkpoint_id}&checkpoint_b=${latest}`)).body;
    expect(diff.added).toEqual(expect.arrayContaining([`test_results.${buy}`, `test_results.${purchase}`, `test_results.${health}`, 'graph.routes.report', `graph.heal.${buy}`]));
    expect(diff.changed).toEqual(expect.arrayContaining(['test_plan', 'passed_count', 'graph.approvals']));
    expect(diff.unchanged).toEqual(expect.arrayContaining(['app_url', 'testable_surfaces', 'graph.routes.analyze_code']));

    const results = (await api.get(`/api/v1/tests/${threadId}/results`)).body.items as Array<{ test_id: string; attempt: number; status: string }>;
    const of = (id: string) => results.filter((x) => x.test_id === id).sort((a, b) => a.attempt - b.attempt).map((x) => x.status);
    expect(of(buy).at(-1)).toBe('healed');
    expect(of(purchase)).toEqual(['failed', 'healed']); // the rejected branch's FAILED was never stored: report had not run on it
    expect(of(health)).toEqual(['passed']);
  });
});
