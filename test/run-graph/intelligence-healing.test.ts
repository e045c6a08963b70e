/**
 * Server runs heal in-step with the store's healing knowledge (issue #4 wiring): a UI test
 * recorded on the fixture app's v1 is run through the API on v2, where the email field's
 * id changed. The run's StepHealer (serverStepHealer) ranks the page against the v1
 * fingerprint, heals inside execute_test, and the heal is learned: a healing pattern
 * appears at GET /api/v1/healing/patterns and healing.completed is published. The next
 * run is healed from what was learned (the cache) and bumps the pattern. A run that
 * requires healing approval never heals in-step: its fix waits for a person in self_heal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '@svc/core/contracts/events';
import { createPlaywrightDriver } from '../../packages/functions/src/execution/browser/playwright-driver.ts';
import { client, signUp, startTestServer, type Client, type TestServer } from '../support/server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

let server: TestServer;
let v1: FixtureApp;
let v2: FixtureApp;
let api: Client;
const events: EventEnvelope[] = [];

beforeAll(async () => {
  v1 = await startFixtureApp({ version: 'v1' });
  v2 = await startFixtureApp({ version: 'v2' });
  server = await startTestServer({ runtime: { runGraph: { browser: () => createPlaywrightDriver({ locateTimeoutMs: 1500, assertTimeoutMs: 1500 }) } } });
  server.runtime.bus.subscribe((e) => void events.push(e));
  const user = await signUp(server.url, 'healing-runs@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
});
afterAll(async () => {
  await server?.stop();
  await v1?.close();
  await v2?.close();
});

type Result = { test_id: string; status: string; error_message: string | null; metadata: Record<string, unknown> };
type State = { run_id: string; test_results: Result[]; graph: { heal: Record<string, { status: string }> } };

async function start(body: Record<string, unknown>): Promise<string> {
  const started = await api.post('/api/v1/test/run', body);
  expect(started.status, started.text).toBe(201);
  return started.body.thread_id as string;
}

async function waitFor(threadId: string, statuses: string[]) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = (await api.get(`/api/v1/test/status/${threadId}`)).body;
    if (statuses.includes(status.run.status)) return status;
    if (Date.now() > deadline) throw new Error(`run ${threadId} is still ${status.run.status}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

async function run(body: Record<string, unknown>): Promise<{ threadId: string; state: State }> {
  const threadId = await start(body);
  const status = await waitFor(threadId, ['completed', 'failed', 'cancelled']);
  return { threadId, state: (await api.get(`/api/v1/time-travel/state/${threadId}/${status.checkpoint_id}`)).body.state };
}

const patternsOf = async (projectId: string) => (await api.get(`/api/v1/healing/patterns?project_id=${projectId}`)).body.items as Array<{ original_selector: string; healed_selector: string; success_count: number; project_id: string }>;
const completed = (testId: string) => events.filter((e) => e.event_type === 'healing.completed' && e.payload.test_id === testId).map((e) => e.payload);

describe('in-step healing of API-triggered runs', () => {
  it('heals a v1 test on v2 in-step, learns a pattern, and heals the next run from the cache', { timeout: 240_000 }, async () => {
    const project = (await api.post('/api/v1/projects', { name: 'shop', app_url: v1.url })).body.id as string;
    const test = (await api.post('/api/tests', {
      project_id: project, name: 'fill the email field by its v1 id', type: 'ui', priority: 'high', tags: [],
      steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#email', value: 'demo@example.com' }],
      assertions: [],
    })).body.id as string;

    // v1: passes, and the element's fingerprint is recorded.
    const first = await run({ project_id: project, test_ids: [test] });
    expect(first.state.test_results.map((r) => r.status)).toEqual(['PASSED']);
    expect(await patternsOf(project)).toEqual([]);

    // v2: #email is gone; the in-step healer finds the field (data-testid=login-email) and the step passes.
    const second = await run({ project_id: project, test_ids: [test], app_url: v2.url });
    const healed = second.state.test_results[0];
    expect(healed.status).toBe('HEALED');
    expect(healed.metadata.attempt).toBe(1); // healed inside the first execution, not by self_heal's re-run
    expect(second.state.graph.heal[test]).toBeUndefined();
    expect(healed.metadata.heals).toEqual([expect.objectContaining({ index: 1, original: '#email', healed: 'test_id=login-email' })]);
    const learned = await patternsOf(project);
    expect(learned).toEqual([expect.objectContaining({ project_id: project, original_selector: '#email', healed_selector: 'test_id=login-email', success_count: 1 })]);
    expect(completed(test)).toEqual([expect.objectContaining({ success: true, original_selector: '#email', healed_selector: 'test_id=login-email', from_cache: false, healing_method: 'dom_similarity', run_id: second.state.run_id })]);

    // v2 again: the fix comes from what the first heal taught (the cache), and the pattern counts a second success.
    const third = await run({ project_id: project, test_ids: [test], app_url: v2.url });
    expect(third.state.test_results[0].status).toBe('HEALED');
    expect(completed(test)[1]).toMatchObject({ success: true, healed_selector: 'test_id=login-email', from_cache: true, healing_method: 'cache' });
    expect(await patternsOf(project)).toEqual([expect.objectContaining({ healed_selector: 'test_id=login-email', success_count: 2 })]);

    // Healing approval required: nothing is healed in-step; the fix waits in self_heal, and a reject leaves the test FAILED.
    const threadId = await start({ project_id: project, test_ids: [test], app_url: v2.url, require_healing_approval: true });
    const waiting = await waitFor(threadId, ['awaiting_approval', 'completed', 'failed']);
    expect(waiting.run.status).toBe('awaiting_approval');
    expect(waiting.pending_approvals).toEqual([expect.objectContaining({ node: 'self_heal', test_id: test })]);
    expect((await api.post(`/api/v1/approvals/${threadId}/reject`, { comment: 'not now' })).status).toBe(200);
    const rejected = await waitFor(threadId, ['completed', 'failed']);
    const state = (await api.get(`/api/v1/time-travel/state/${threadId}/${rejected.checkpoint_id}`)).body.state as State;
    expect(state.test_results[0].status).toBe('FAILED');
    expect(state.test_results[0].error_message).not.toMatch(/not healed/); // the in-step healer was not there to try
    // The rejected fix ends that test's healing: healing.completed says so, naming the fix that was refused.
    expect(completed(test)).toHaveLength(3);
    expect(completed(test)[2]).toMatchObject({ success: false, applied: false, healed_selector: null, outcome: 'rejected', original_selector: '#email', proposed_selector: 'test_id=login-email', reason: expect.stringMatching(/^fix rejected: not now/) });

    // Healing off for the run: no heal, no new knowledge.
    const off = await run({ project_id: project, test_ids: [test], app_url: v2.url, healing_enabled: false });
    expect(off.state.test_results[0].status).toBe('FAILED');
    expect(await patternsOf(project)).toEqual([expect.objectContaining({ success_count: 2 })]);
  });
  it("an approved fix of self_heal is written into the test by apply-heal, from the run's checkpoint", { timeout: 240_000 }, async () => {
    const project = (await api.post('/api/v1/projects', { name: 'approvals', app_url: v1.url })).body.id as string;
    const test = (await api.post('/api/tests', {
      project_id: project, name: 'fill the email field (reviewed fixes)', type: 'ui', priority: 'high', tags: [],
      steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#email', value: 'demo@example.com' }],
      assertions: [],
    })).body.id as string;
    expect((await run({ project_id: project, test_ids: [test] })).state.test_results[0].status).toBe('PASSED');

    // Approval required: no in-step heal; self_heal proposes the fix, a person approves it, the re-run passes on it.
    const threadId = await start({ project_id: project, test_ids: [test], app_url: v2.url, require_healing_approval: true });
    expect((await waitFor(threadId, ['awaiting_approval', 'completed', 'failed'])).run.status).toBe('awaiting_approval');
    expect((await api.post(`/api/v1/approvals/${threadId}/approve`, { comment: 'right field' })).status).toBe(200);
    const done = await waitFor(threadId, ['completed', 'failed']);
    const state = (await api.get(`/api/v1/time-travel/state/${threadId}/${done.checkpoint_id}`)).body.state as State;
    expect(state.test_results[0].status).toBe('HEALED');
    expect(state.graph.heal[test].status).toBe('applied');
    expect(completed(test).at(-1)).toMatchObject({ success: true, applied: true, outcome: 'healed', original_selector: '#email', healed_selector: 'test_id=login-email', healing_method: 'dom_similarity', run_id: state.run_id });

    const applied = await api.post(`/api/tests/${test}/apply-heal`, { run_id: state.run_id });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.changes).toEqual([{ path: 'steps.1.selector', from: '#email', to: 'test_id=login-email' }]);
    expect(applied.body.test.steps[1].selector).toEqual({ test_id: 'login-email' });
  });
});
