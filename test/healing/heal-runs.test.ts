/**
 * Heal requests end to end on the local runtime (docs/healing.md "Heal runs"): POST
 * /api/heal publishes healing.requested; the healer consumer starts a heal run of the test
 * (trigger heal, thread heal-<event id>); the run executes the test in Chromium, heals the
 * broken locator on the page and validates it by the step passing, and publishes
 * healing.completed, which the API consumer puts in the organization's activity. A test
 * that passes as it is concludes `not_needed`. A redelivered request starts nothing twice;
 * a project with healing off starts nothing; a run_id of another project is a 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../packages/core/src/contracts/events.ts';
import { checkEvent } from '../../packages/core/src/events/validate.ts';
import { healRunStarter } from '../../packages/functions/src/run-graph/heal-runs.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { client, runEnded, signUp, type Client } from '../support/server.ts';

let v1: FixtureApp;
let v2: FixtureApp;
let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let api: Client;
let orgId: string;
let projectId: string;
let testId: string;
let firstRunId: string;
let healedRunId: string;
let failingRunId: string;
const seen: EventEnvelope[] = [];

beforeAll(async () => {
  v1 = await startFixtureApp({ version: 'v1' });
  v2 = await startFixtureApp({ version: 'v2' });
  server = await startRunGraphServer();
  server.runtime.bus.subscribe((e) => void seen.push(e));
  const user = await signUp(server.url, 'heal-runs@example.com');
  orgId = user.orgId;
  api = client(server.url, { token: user.token, org: orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: v1.url })).body.id;
  const created = await api.post('/api/tests', {
    project_id: projectId,
    name: 'fill the email field by its v1 id',
    type: 'ui',
    steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#email', value: 'demo@example.com' }],
    assertions: [],
    priority: 'high',
    tags: [],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  testId = created.body.id;
  // A first run on v1 records the element fingerprints the healer ranks against.
  const first = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [testId] });
  expect(first.status, JSON.stringify(first.body)).toBe(201);
  firstRunId = first.body.run.id;
  expect((await runEnded(api, firstRunId, 120_000)).status).toBe('completed');
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await v1?.close();
  await v2?.close();
});

/** Asks for a heal; returns the answer and, once it has ended, the heal run. */
async function heal(body: Record<string, unknown>) {
  const res = await api.post('/api/heal', { test_id: testId, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const { heal_run: healRun, event_id: eventId } = res.body;
  expect(healRun).toEqual({ thread_id: `heal-${eventId}`, status_url: `/api/v1/test/status/heal-${eventId}`, stream_url: `/stream/heal-${eventId}` });
  // The consumer starts the run a moment after the request: until then the thread is unknown.
  await expect.poll(async () => (await api.get(healRun.status_url)).status, { timeout: 30_000 }).toBe(200);
  const runId: string = (await api.get(healRun.status_url)).body.run.id;
  const run = await runEnded(api, runId, 120_000);
  return { answer: res.body, run, threadId: healRun.thread_id as string };
}

/** The thread id the heal request gave for the run that healed (svc_heal's heal_run.thread_id). */
let healThreadId: string;

const completedFor = (runId: string) => seen.filter((e) => e.event_type === 'healing.completed' && e.payload.run_id === runId);

describe('a heal request starts a heal run', () => {
  it('concludes not_needed when the test passes as it is', async () => {
    const { answer, run } = await heal({ step_index: 1 });
    expect(answer.decision).toBe('queued');
    expect(run).toMatchObject({ status: 'completed', trigger: 'heal', project_id: projectId, passed_tests: 1 });
    await expect.poll(() => completedFor(run.id).length, { timeout: 10_000 }).toBe(1);
    const [done] = completedFor(run.id);
    expect(() => checkEvent(done!)).not.toThrow();
    expect(done).toMatchObject({ source: 'svc.healer', tenant_id: orgId, correlation_id: run.id });
    expect(done!.payload).toMatchObject({ test_id: testId, run_id: run.id, success: false, healed_selector: null, applied: false, outcome: 'not_needed', reason: 'the test passed as it is: nothing to heal' });
    await expect.poll(async () => (await api.get('/api/activity')).body.items.find((i: { event_id: string }) => i.event_id === done!.event_id)?.summary, { timeout: 15_000 }).toBe('heal run: the test passed as it was, nothing to heal');
  }, 180_000);

  it('heals the renamed field on v2, validated by the step passing, and the heal is in the activity', async () => {
    expect((await api.patch(`/api/v1/projects/${projectId}`, { app_url: v2.url })).status).toBe(200);
    // The failure the heal is asked for: a run on v2 without healing (the heal run tests that run's URL).
    const failing = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [testId], healing_enabled: false });
    expect((await runEnded(api, failing.body.run.id, 120_000)).failed_tests).toBe(1);
    failingRunId = failing.body.run.id;
    const { answer, run, threadId } = await heal({ step_index: 1, run_id: failing.body.run.id, error_message: 'locator #email matched 0 elements' });
    healThreadId = threadId;
    expect(answer.target).toMatchObject({ step_index: 1, path: 'steps.1.selector' });
    expect(run).toMatchObject({ status: 'completed', trigger: 'heal', passed_tests: 1, failed_tests: 0 });
    const results = (await api.get(`/api/v1/tests/${run.id}/results`)).body.items;
    expect(results.at(-1)).toMatchObject({ status: 'healed' });

    await expect.poll(() => completedFor(run.id).length, { timeout: 10_000 }).toBeGreaterThan(0);
    const [done] = completedFor(run.id);
    expect(() => checkEvent(done!)).not.toThrow();
    // Healed in-step (the run's healer had the v1 fingerprint), or failing that by self_heal and a re-run.
    expect(done!.payload).toMatchObject({ test_id: testId, run_id: run.id, success: true, applied: true, original_selector: '#email', healed_selector: 'test_id=login-email' });
    expect(done!.payload.confidence).toBeGreaterThanOrEqual(0.8);

    await expect.poll(async () => (await api.get('/api/activity')).body.items.filter((i: { event_type: string; refs: { run_id?: string } }) => i.event_type === 'healing.completed' && i.refs.run_id === run.id).length, { timeout: 15_000 }).toBeGreaterThan(0);
    healedRunId = run.id;
  }, 240_000);

  it('writes the heal into the test (a new revision, source healed); the next run on v2 passes without healing', async () => {
    const before = (await api.get(`/api/tests/${testId}`)).body;
    // A run that healed nothing, a stale revision, another project's run: refused, nothing written.
    expect((await api.post(`/api/tests/${testId}/apply-heal`, { run_id: firstRunId })).status).toBe(409);
    // A failure the run did not heal is not called a heal that did not hold.
    const unhealed = await api.post(`/api/tests/${testId}/apply-heal`, { run_id: failingRunId });
    expect(unhealed.status).toBe(409);
    expect(unhealed.body.error.message).toMatch(new RegExp(`^the test's last execution in run ${failingRunId} failed, and the run healed nothing in it \\(step 2 .*\\): nothing to write$`));
    expect((await api.post(`/api/tests/${testId}/apply-heal`, { run_id: healedRunId, expected_revision: before.revision + 1 })).status).toBe(412);
    expect((await api.post(`/api/tests/${testId}/apply-heal`, { run_id: crypto.randomUUID() })).status).toBe(404);
    expect((await api.post(`/api/tests/${testId}/apply-heal`, { run_id: 'heal-no-such-thread' })).body.error.message).toContain('heal-no-such-thread (run_id)');

    // The heal run named as the heal request named it (heal_run.thread_id), as agents have it.
    const applied = await api.post(`/api/tests/${testId}/apply-heal`, { run_id: healThreadId, expected_revision: before.revision });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.changes).toEqual([{ path: 'steps.1.selector', from: '#email', to: 'test_id=login-email' }]);
    expect(applied.body.test).toMatchObject({ revision: before.revision + 1, steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: { test_id: 'login-email' }, value: 'demo@example.com' }] });
    const revisions = (await api.get(`/api/tests/${testId}/revisions`)).body.items;
    expect(revisions[0]).toMatchObject({ revision: before.revision + 1, source: 'healed', changed_fields: expect.arrayContaining(['steps']) });
    // Applying it again would undo nothing and invent nothing: the test no longer has the broken locator.
    const again = await api.post(`/api/tests/${testId}/apply-heal`, { run_id: healedRunId });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe("steps.1.selector is already test_id=login-email: this run's heal of it is in the test (applied before)");

    const next = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [testId] });
    expect((await runEnded(api, next.body.run.id, 120_000)).status).toBe('completed');
    expect((await api.get(`/api/v1/tests/${next.body.run.id}/results`)).body.items.map((r: { status: string }) => r.status)).toEqual(['passed']);
  }, 180_000);

  it('starts nothing twice for one request, and nothing when healing is off for the project', async () => {
    const start = healRunStarter({ store: server.runtime.deps.store, runGraph: server.runtime.deps.runGraph });
    const eventId = crypto.randomUUID();
    const first = await start(orgId, { event_id: eventId, test_id: testId });
    expect(first).toMatchObject({ status: 'started', thread_id: `heal-${eventId}` });
    const again = await start(orgId, { event_id: eventId, test_id: testId });
    expect(again).toEqual({ status: 'already_started', thread_id: `heal-${eventId}`, run_id: (first as { run_id: string }).run_id });
    await runEnded(api, (first as { run_id: string }).run_id, 120_000);
    // Another organization's test does not exist for this one.
    expect(await start(crypto.randomUUID(), { event_id: crypto.randomUUID(), test_id: testId })).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/does not exist/) });

    expect((await api.patch(`/api/v1/projects/${projectId}`, { config: { healing: { enabled: false } } })).status).toBe(200);
    const off = await api.post('/api/heal', { test_id: testId, step_index: 1 });
    expect(off.body.decision).toBe('disabled');
    await server.runtime.events.drain();
    expect((await api.get(`/api/v1/test/status/heal-${off.body.event_id}`)).status).toBe(404);
    expect(await start(orgId, { event_id: crypto.randomUUID(), test_id: testId })).toEqual({ status: 'skipped', reason: 'healing is disabled for the project (config.healing.enabled)' });
  }, 180_000);

  it("heals at the failed run's app URL, not the project's (a run given app_url); a retry of the run tests there too", async () => {
    const own = (await api.post('/api/v1/projects', { name: 'preview', app_url: v1.url })).body.id;
    const t = (await api.post('/api/tests', { project_id: own, name: 'email by its v1 id', type: 'ui', steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#email', value: 'demo@example.com' }], assertions: [] })).body.id;
    expect((await runEnded(api, (await api.post('/api/v1/test/run', { project_id: own, test_ids: [t] })).body.run.id, 120_000)).app_url).toBe(v1.url);
    // A preview build (v2) is tested by naming its URL in the run; the project keeps v1's.
    const preview = await api.post('/api/v1/test/run', { project_id: own, test_ids: [t], app_url: v2.url, healing_enabled: false });
    const failed = await runEnded(api, preview.body.run.id, 120_000);
    expect(failed).toMatchObject({ app_url: v2.url, failed_tests: 1 });

    const res = await api.post('/api/heal', { test_id: t, step_index: 1, run_id: failed.id });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await expect.poll(async () => (await api.get(res.body.heal_run.status_url)).status, { timeout: 30_000 }).toBe(200);
    const healRun = await runEnded(api, (await api.get(res.body.heal_run.status_url)).body.run.id, 120_000);
    expect(healRun).toMatchObject({ app_url: v2.url, trigger: 'heal', passed_tests: 1 });
    expect((await api.get(`/api/v1/tests/${healRun.id}/results`)).body.items.at(-1)).toMatchObject({ status: 'healed' });

    const retry = await api.post(`/api/tests/${t}/retry`, { run_id: failed.id, healing_enabled: false });
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.body.run.app_url).toBe(v2.url);
    expect((await runEnded(api, retry.body.run.id, 120_000)).failed_tests).toBe(1);
    // A URL given with the retry wins.
    const onV1 = await api.post(`/api/tests/${t}/retry`, { run_id: failed.id, app_url: v1.url });
    expect(onV1.body.run.app_url).toBe(v1.url);
    expect((await runEnded(api, onV1.body.run.id, 120_000)).passed_tests).toBe(1);
  }, 300_000);

  it('refuses a run_id the organization does not have (404) or of another project (400, naming run_id)', async () => {
    expect((await api.post('/api/heal', { test_id: testId, step_index: 1, run_id: crypto.randomUUID() })).status).toBe(404);
    const other = (await api.post('/api/v1/projects', { name: 'other' })).body.id;
    const otherTest = (await api.post('/api/tests', { project_id: other, name: 'other', type: 'api', steps: [{ type: 'request', method: 'GET', url: 'http://127.0.0.1:9/' }], assertions: [], priority: 'low', tags: [] })).body.id;
    const res = await api.post('/api/heal', { test_id: otherTest, original_selector: '#x', run_id: firstRunId });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/run_id/);
  });
});
