/**
 * Chat over the real local runtime, without a model: the deterministic answers about
 * what failed, healed, is flaky, how many tests, the last run and the slowest tests —
 * each with the rows behind it — plus history, the SSE stream and bad input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';
import { parseSse, seedProject, type Seeded } from './support.ts';

let server: TestServer;
let api: Client;
let orgId: string;
let token: string;
let seeded: Seeded;

beforeAll(async () => {
  server = await startTestServer({ runtime: { llmEnv: {} } });
  const user = await signUp(server.url, 'chat@example.com', 'Chat Org');
  orgId = user.orgId;
  token = user.token;
  api = client(server.url, { token, org: orgId });
  seeded = await seedProject(api, server.runtime.deps.store, orgId);
});
afterAll(() => server?.stop());

const ask = async (message: string, extra: Record<string, unknown> = {}) => {
  const res = await api.post('/api/v1/chat', { message, project_id: seeded.projectId, ...extra });
  expect(res.status).toBe(200);
  expect(res.body.model).toBeNull();
  expect(res.body.usage).toBeNull();
  return res.body;
};

describe('chat without a model', () => {
  it('what failed: the last run\'s failures, with the rows', async () => {
    const reply = await ask('What failed in the last run?');
    expect(reply.intent).toBe('failed');
    expect(reply.answer).toContain(`In the last run (${seeded.runs[2]}, completed) 1 test failed: "Login"`);
    expect(reply.answer).toContain('Across the last 3 runs, 2 tests failed at least once');
    expect(reply.data.rows).toEqual([{ run_id: seeded.runs[2], test_id: seeded.tests.login, test_name: 'Login', status: 'failed', duration_ms: 2000, error_message: 'expected heading "Welcome"', quarantined: false }]);
    expect(reply.data.runs_considered).toEqual([...seeded.runs].reverse());
  });

  it('what is flaky: tests that both passed and failed', async () => {
    const reply = await ask('Which tests are flaky?');
    expect(reply.intent).toBe('flaky');
    expect(reply.data.rows.map((r: { test_name: string }) => r.test_name).sort()).toEqual(['Checkout', 'Login']);
    expect(reply.data.rows.find((r: { test_name: string }) => r.test_name === 'Login')).toMatchObject({ runs: 3, passed: 2, failed: 1 });
    expect(reply.answer).toMatch(/^2 tests both passed and failed across the last 3 runs/);
  });

  it('what healed: healed results with their selectors; healing patterns when the store has them', async () => {
    const reply = await ask('What got healed recently?');
    expect(reply.intent).toBe('healed');
    expect(reply.data.rows).toEqual([expect.objectContaining({ run_id: seeded.runs[1], test_name: 'Search', status: 'healed', healed_selector: '[data-testid=search]', original_selector: '#search' })]);
    expect(reply.answer).toMatch(/^1 test execution healed in the last 3 runs: "Search"\./);
    expect(Array.isArray(reply.data.healing_patterns) || reply.data.healing_patterns === null).toBe(true);
  });

  it('how many tests, the last run, the slowest tests', async () => {
    const count = await ask('How many tests do we have?');
    expect([count.intent, count.answer]).toEqual(['test_count', 'There are 3 tests in this project.']);
    expect(count.data.rows).toEqual([{ test_count: 3, capped: false }]);

    const last = await ask('status of the latest run');
    expect(last.intent).toBe('last_run');
    expect(last.answer).toMatch(new RegExp(`^The last run \\(${seeded.runs[2]}, started by api at .+\\) is completed: 2 passed, 1 failed of 3\\.$`));

    const slow = await ask('what are the slowest tests?');
    expect(slow.intent).toBe('slowest');
    expect(slow.data.rows.map((r: { test_name: string; duration_ms: number }) => [r.test_name, r.duration_ms])).toEqual([['Checkout', 5000], ['Login', 2000], ['Search', 400]]);
  });

  it('a question the matcher does not recognise is answered by semantic search (the vector tier) when something matches it well enough', async () => {
    const reply = await ask('Do we have anything covering the checkout?');
    expect(reply.intent).toBe('search');
    expect(reply.answer).toMatch(/^I did not recognise the question, but these match it by meaning \(semantic search over tests, recent failures and heals\):\n1\. test "Checkout" \(0\.\d\d\): Checkout$/);
    // Only matches scoring 0.2 or more answer: the weaker failure of Checkout (~0.14) is left out.
    expect(reply.data.rows).toEqual([expect.objectContaining({ kind: 'test', id: seeded.tests.checkout, title: 'Checkout', project_id: seeded.projectId, links: { test: `/api/tests/${seeded.tests.checkout}` } })]);
    expect(reply.data.rows[0].score).toBeGreaterThanOrEqual(0.2);
    // Asking what chat can do is not a search.
    expect((await ask('help')).intent).toBe('help');
  });

  it('anything else (nothing matches it either): says what it can answer', async () => {
    const reply = await ask('Write me a poem about selectors');
    expect(reply.intent).toBe('help');
    expect(reply.answer).toMatch(/^I can answer: what failed .*; what healed; which tests are flaky; how many tests there are; the status of the last run; the slowest tests\./);
  });

  it('without project_id it answers for the whole organization; /api/chat and `query` work too', async () => {
    const res = await api.post('/api/chat', { query: 'how many tests are there' });
    expect(res.status).toBe(200);
    expect(res.body.answer).toBe('There are 3 tests in this organization.');
  });

  it('a conversation keeps its messages in order; history is scoped to the organization', async () => {
    const first = await ask('what failed?');
    const second = await ask('and what is flaky?', { conversation_id: first.conversation_id });
    expect(second.conversation_id).toBe(first.conversation_id);
    const history = await api.get(`/api/v1/chat/history/${first.conversation_id}`);
    expect(history.status).toBe(200);
    expect(history.body.conversation).toMatchObject({ id: first.conversation_id, project_id: seeded.projectId, message_count: 4, title: 'what failed?' });
    expect(history.body.conversation.organization_id).toBeUndefined();
    expect(history.body.messages.map((m: { role: string; content: string }) => [m.role, m.role === 'user' ? m.content : m.content.slice(0, 10)])).toEqual([
      ['user', 'what failed?'],
      ['assistant', first.answer.slice(0, 10)],
      ['user', 'and what is flaky?'],
      ['assistant', second.answer.slice(0, 10)],
    ]);
    expect(history.body.messages[1]).toMatchObject({ id: first.message_id, intent: 'failed', model: null, data: first.data });

    const other = await signUp(server.url, 'other@example.com', 'Other Org');
    const otherApi = client(server.url, { token: other.token, org: other.orgId });
    expect((await otherApi.get(`/api/v1/chat/history/${first.conversation_id}`)).status).toBe(404);
    expect((await otherApi.post('/api/v1/chat', { message: 'what failed?', conversation_id: first.conversation_id })).status).toBe(404);
  });

  it('a failure of a quarantined test is said to be in quarantine, in what failed and in the last run', async () => {
    const project = (await api.post('/api/v1/projects', { name: 'Quarantine corner', app_url: 'http://127.0.0.1:1' })).body.id as string;
    const make = async (name: string) => (await api.post('/api/tests', { project_id: project, name, type: 'ui' })).body.id as string;
    const [shaky, broken] = [await make('Shaky banner'), await make('Broken cart')];
    const store = server.runtime.deps.store;
    const run = await store.testRuns.create(orgId, { project_id: project, trigger: 'api', total_tests: 2 });
    await store.testRuns.setStatus(orgId, run.id, 'running', { started_at: new Date().toISOString() });
    await store.testRuns.recordResult(orgId, { test_id: shaky, test_run_id: run.id, status: 'failed', duration_ms: 900, error_message: 'banner late', screenshots: [], metadata: { quarantined: 'flaky banner, SHOP-12' } });
    await store.testRuns.recordResult(orgId, { test_id: broken, test_run_id: run.id, status: 'failed', duration_ms: 800, error_message: 'no #cart', screenshots: [], metadata: {} });
    await store.testRuns.setStatus(orgId, run.id, 'failed', { completed_at: new Date().toISOString(), passed_tests: 0, failed_tests: 2, results: { quarantined_failed: 1 } });

    const failed = await ask('What failed in the last run?', { project_id: project });
    expect(failed.answer).toContain(`In the last run (${run.id}, failed) 2 tests failed (1 in quarantine): `);
    expect(failed.data.quarantined_failures).toBe(1);
    expect(Object.fromEntries(failed.data.rows.map((r: { test_name: string; quarantined: boolean }) => [r.test_name, r.quarantined]))).toEqual({ 'Shaky banner': true, 'Broken cart': false });

    const last = await ask('status of the latest run', { project_id: project });
    expect(last.answer).toMatch(/is failed: 0 passed, 2 failed \(1 in quarantine\) of 2\.$/);
    expect(last.data.rows[0]).toMatchObject({ failed_tests: 2, quarantined_failed_tests: 1 });
  });

  it("a parameterised test's sets are cases of their own, and heals are read from the run's metadata.heals", async () => {
    const project = (await api.post('/api/v1/projects', { name: 'Sets corner', app_url: 'http://127.0.0.1:1' })).body.id as string;
    const make = async (name: string) => (await api.post('/api/tests', { project_id: project, name, type: 'ui' })).body.id as string;
    const [signIn, buy] = [await make('Sign in'), await make('Buy')];
    const store = server.runtime.deps.store;
    for (let n = 0; n < 2; n++) {
      const run = await store.testRuns.create(orgId, { project_id: project, trigger: 'api', total_tests: 2 });
      await store.testRuns.setStatus(orgId, run.id, 'running', { started_at: new Date().toISOString() });
      const result = (test_id: string, status: 'passed' | 'failed' | 'healed', extra: Record<string, unknown> = {}) =>
        store.testRuns.recordResult(orgId, { test_id, test_run_id: run.id, status, duration_ms: 100, error_message: status === 'failed' ? 'wrong role' : null, screenshots: [], metadata: {}, ...extra });
      // The viewer set fails every time, the admin set always passes: a broken case, not a flaky test.
      await result(signIn, 'passed', { parameter_set: { index: 1, name: 'admin' } });
      await result(signIn, 'failed', { parameter_set: { index: 2, name: 'viewer' } });
      await result(buy, 'healed', { metadata: { heals: [{ index: 2, original: '#buy', healed: '[data-testid=buy]', confidence: 0.91, strategy: 'similarity' }] } });
      await store.testRuns.setStatus(orgId, run.id, 'failed', { completed_at: new Date().toISOString(), passed_tests: 1, failed_tests: 1 });
    }

    const failed = await ask('What failed in the last run?', { project_id: project });
    expect(failed.answer).toContain('1 test failed: "Sign in [viewer]"');
    const flaky = await ask('Which tests are flaky?', { project_id: project });
    expect(flaky.data.rows).toEqual([]);
    const healed = await ask('What got healed recently?', { project_id: project });
    expect(healed.data.rows[0]).toMatchObject({ test_name: 'Buy', original_selector: '#buy', healed_selector: '[data-testid=buy]', heals: [{ step: 2, original: '#buy', healed: '[data-testid=buy]', confidence: 0.91 }] });
  });

  it('bad input: a clear error naming the field', async () => {
    const empty = await api.post('/api/v1/chat', { message: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('VALIDATION_FAILED');
    expect(empty.body.error.message).toMatch(/message/);
    const unknown = await api.post('/api/v1/chat', { message: 'hi', conversation_id: '01900000-0000-7000-8000-000000000000' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('conversation not found');
    const badId = await api.get('/api/v1/chat/history/not-a-uuid');
    expect(badId.status).toBe(400);
    const extra = await api.post('/api/v1/chat', { message: 'hi', model: 'gpt-5' });
    expect(extra.status).toBe(400);
    expect(extra.body.error.message).toMatch(/model/);
    expect((await client(server.url).post('/api/v1/chat', { message: 'hi' })).status).toBe(401);
  });
});

describe('chat as server-sent events', () => {
  it('message_start, deltas that add up to the answer, message_end with the data; every event has an id', async () => {
    const res = await fetch(`${server.url}/api/v1/stream/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-organization-id': orgId, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Which tests failed recently?', project_id: seeded.projectId }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = parseSse(await res.text());
    expect(events[0].event).toBe('message_start');
    expect(events.at(-1)!.event).toBe('message_end');
    expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => i + 1));
    const text = events.filter((e) => e.event === 'delta').map((e) => e.data.text).join('');
    expect(text).toContain('"Login"');
    const end = events.at(-1)!.data;
    expect(end.data.rows[0]).toMatchObject({ test_name: 'Login', status: 'failed' });
    const history = await api.get(`/api/v1/chat/history/${events[0].data.conversation_id}`);
    expect(history.body.messages[1].content).toBe(text);
  });

  it('an unknown conversation is a JSON 404 before the stream opens', async () => {
    const res = await api.post('/api/v1/stream/chat', { message: 'hi', conversation_id: '01900000-0000-7000-8000-000000000000' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });
});
