/**
 * Parameterised tests on the server, over real HTTP on the local runtime: a test with
 * parameter sets runs once per set through the run graph, each case with its own stored
 * result (under the test, with its set), its own line in the reports, and its own place
 * in the flaky ranking; bad sets are refused naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseJUnit } from 'junit2json';
import { client, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from './support/api-server.ts';
import { startTarget, type Target } from './support/target.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let target: Target;
let api: Client;
let other: Client;
let projectId: string;

beforeAll(async () => {
  target = await startTarget();
  server = await startRunGraphServer();
  const user = await signUp(server.url, 'params@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
  const stranger = await signUp(server.url, 'params-stranger@example.com');
  other = client(server.url, { token: stranger.token, org: stranger.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'params', app_url: target.url })).body.id;
});
afterAll(async () => {
  await server?.stop();
  await target?.stop();
});

/** GET /<path>?id=<id>, expecting 200 and ok=true, once per set. */
function parameterisedApiTest(name: string, sets: Array<{ name?: string; values: Record<string, string> }>) {
  return {
    project_id: projectId,
    name,
    type: 'api',
    steps: [{ type: 'request', method: 'GET', url: '/{{path}}', query: { id: '{{id}}' } }],
    assertions: [{ type: 'status', equals: 200 }, { type: 'json', path: '$.id', equals: '{{id}}' }],
    parameter_sets: sets,
  };
}

const startTotals: number[] = [];
async function runToEnd(testIds: string[]) {
  const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: testIds });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const runId = started.body.run.id as string;
  // Counted from the start as the plan counts it: a case per parameter set.
  startTotals.push(started.body.run.total_tests as number);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await api.get(`/api/v1/test/status/${runId}`);
    if (res.body.run.status === 'completed' || res.body.run.status === 'failed') return { runId, status: res.body };
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${res.body.run.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('parameterised tests through the API', () => {
  it('a test with three sets runs three cases: one result each under the test, with its set, in every report', async () => {
    const created = await api.post('/api/tests', parameterisedApiTest('GET by id', [
      { name: 'first', values: { path: 'ok', id: 'ps1' } },
      { values: { path: 'fail', id: 'ps2' } },
      { name: 'third', values: { path: 'ok', id: 'ps3' } },
    ]));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.parameter_sets).toHaveLength(3);
    const testId = created.body.id as string;

    const { runId, status } = await runToEnd([testId]);
    expect(status.run).toMatchObject({ status: 'completed', total_tests: 3, passed_tests: 2, failed_tests: 1 });
    expect(startTotals.at(-1)).toBe(3);
    // Each set's request really went out, once.
    expect([target.hits('/ok?id=ps1'), target.hits('/fail?id=ps2'), target.hits('/ok?id=ps3')]).toEqual([1, 1, 1]);

    const results = await api.get(`/api/v1/tests/${runId}/results`);
    const items = (results.body.items as Array<{ test_id: string; status: string; parameter_set?: { index: number; name: string }; metadata: { name: string } }>)
      .sort((a, b) => (a.parameter_set?.index ?? 0) - (b.parameter_set?.index ?? 0));
    expect(items.map((r) => [r.test_id, r.parameter_set, r.status, r.metadata.name])).toEqual([
      [testId, { index: 1, name: 'first' }, 'passed', 'GET by id [first]'],
      [testId, { index: 2, name: 'path=fail, id=ps2' }, 'failed', 'GET by id [path=fail, id=ps2]'],
      [testId, { index: 3, name: 'third' }, 'passed', 'GET by id [third]'],
    ]);

    const junit = (await parseJUnit((await api.get(`/api/reports/${runId}?format=junit`)).text)) as { tests?: number; failures?: number; testsuite?: Array<{ testcase?: Array<{ name?: string }> }> };
    expect(junit).toMatchObject({ tests: 3, failures: 1 });
    expect(junit.testsuite!.flatMap((s) => s.testcase ?? []).map((c) => c.name).sort()).toEqual(['GET by id [first]', 'GET by id [path=fail, id=ps2]', 'GET by id [third]']);
    const json = await api.get(`/api/reports/${runId}`);
    expect(JSON.stringify(json.body)).toContain(`${testId}[2]`);
  });

  it('one case runs alone by its case id, or through a retry naming its set', async () => {
    const created = await api.post('/api/tests', parameterisedApiTest('single case', [
      { name: 'one', values: { path: 'ok', id: 'sc1' } },
      { name: 'two', values: { path: 'ok', id: 'sc2' } },
      { name: 'three', values: { path: 'ok', id: 'sc3' } },
    ]));
    const testId = created.body.id as string;
    const { runId, status } = await runToEnd([`${testId}[2]`]);
    expect(status.run).toMatchObject({ total_tests: 1, passed_tests: 1 });
    expect([target.hits('/ok?id=sc1'), target.hits('/ok?id=sc2'), target.hits('/ok?id=sc3')]).toEqual([0, 1, 0]);
    expect((await api.get(`/api/v1/tests/${runId}/results`)).body.items.map((r: { parameter_set: { name: string } }) => r.parameter_set.name)).toEqual(['two']);

    const retry = await api.post(`/api/tests/${testId}/retry`, { parameter_set: 3 });
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    await expect.poll(async () => (await api.get(`/api/v1/test/status/${retry.body.run.id}`)).body.run.status, { timeout: 20_000 }).toBe('completed');
    expect([target.hits('/ok?id=sc1'), target.hits('/ok?id=sc2'), target.hits('/ok?id=sc3')]).toEqual([0, 1, 1]);

    const noSuchSet = await api.post(`/api/tests/${testId}/retry`, { parameter_set: 4 });
    expect(noSuchSet.status).toBe(400);
    expect(noSuchSet.body.error.details.issues).toEqual([{ path: 'parameter_set', message: 'the test has 3 parameter sets' }]);
    const outOfRange = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [`${testId}[4]`] });
    expect(outOfRange.status).toBe(404);
    expect(outOfRange.body.error.message).toBe(`no such case: ${testId}[4]: the test has 3 parameter sets ([1]…[3])`);
    // A case of a test without sets says to name the test alone.
    const plain = await api.post('/api/tests', { project_id: projectId, name: 'no sets', type: 'api', steps: [{ type: 'request', method: 'GET', url: '/ok' }] });
    const noSets = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [`${plain.body.id}[1]`] });
    expect(noSets.status).toBe(404);
    expect(noSets.body.error.message).toBe(`no such case: ${plain.body.id}[1]: the test has no parameter sets (name the test without [n])`);
    const malformed = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [`${testId}[0]`] });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.details.issues[0].path).toBe('test_ids.0');
  });

  it('a case named beside its whole test, or twice, is planned and counted once (found by QA)', async () => {
    const created = await api.post('/api/tests', parameterisedApiTest('named twice', [
      { values: { path: 'ok', id: 'pd1' } },
      { values: { path: 'ok', id: 'pd2' } },
    ]));
    const testId = created.body.id as string;
    // The whole test covers its case: two cases, not three.
    const whole = await runToEnd([testId, `${testId}[1]`]);
    expect(startTotals.at(-1)).toBe(2);
    expect(whole.status.run).toMatchObject({ status: 'completed', total_tests: 2, passed_tests: 2 });
    expect(whole.status.run.test_plan.map((t: { id: string }) => t.id)).toEqual([`${testId}[1]`, `${testId}[2]`]);
    expect([target.hits('/ok?id=pd1'), target.hits('/ok?id=pd2')]).toEqual([1, 1]);

    const twice = await runToEnd([`${testId}[2]`, `${testId}[2]`]);
    expect(startTotals.at(-1)).toBe(1);
    expect(twice.status.run).toMatchObject({ status: 'completed', total_tests: 1, passed_tests: 1 });
    expect([target.hits('/ok?id=pd1'), target.hits('/ok?id=pd2')]).toEqual([1, 2]);
  });

  it('each case is ranked on its own: the flaky set shows, the steady ones do not', async () => {
    const created = await api.post('/api/tests', parameterisedApiTest('steady and flaky', [
      { name: 'steady', values: { path: 'ok', id: 'st1' } },
      { name: 'flaky', values: { path: 'flaky', id: 'fl1' } },
    ]));
    const testId = created.body.id as string;
    for (const broken of [true, false, true]) {
      target.setBroken(broken);
      await runToEnd([testId]);
    }
    const ranking = await api.get(`/api/quality/flaky-ranking?project_id=${projectId}`);
    expect(ranking.status).toBe(200);
    const mine = (ranking.body.items as Array<{ test_id: string; parameter_set?: { index: number; name: string }; name: string; history: string; flaky: boolean }>).filter((i) => i.test_id === testId);
    expect(mine).toEqual([expect.objectContaining({ parameter_set: { index: 2, name: 'flaky' }, name: 'steady and flaky [flaky]', history: 'FPF', flaky: true })]);
  });

  it('bad sets are refused naming the field; an empty list makes it an ordinary test again', async () => {
    const dup = await api.post('/api/tests', parameterisedApiTest('dup', [{ values: { path: 'ok', id: 'a' } }, { values: { path: 'ok', id: 'a' } }]));
    expect(dup.status).toBe(400);
    expect(dup.body.error.details.issues).toEqual([expect.objectContaining({ path: 'parameter_sets.1.name' })]);
    const empty = await api.post('/api/tests', parameterisedApiTest('empty', [{ values: {} }]));
    expect(empty.status).toBe(400);
    expect(empty.body.error.details.issues).toEqual([expect.objectContaining({ path: 'parameter_sets.0.values', message: 'a parameter set needs at least one value' })]);

    const created = await api.post('/api/tests', parameterisedApiTest('to plain', [{ values: { path: 'ok', id: 'pl1' } }, { values: { path: 'ok', id: 'pl2' } }]));
    const testId = created.body.id as string;
    const patched = await api.patch(`/api/tests/${testId}`, { parameter_sets: [], steps: [{ type: 'request', method: 'GET', url: '/ok', query: { id: 'pl3' } }], assertions: [{ type: 'status', equals: 200 }] });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.parameter_sets).toEqual([]);
    const { runId, status } = await runToEnd([testId]);
    expect(status.run).toMatchObject({ total_tests: 1, passed_tests: 1 });
    const results = await api.get(`/api/v1/tests/${runId}/results`);
    expect(results.body.items).toEqual([expect.not.objectContaining({ parameter_set: expect.anything() })]);
  });

  it('browser settings: an unknown device is refused naming the field; null goes back to the default browser', async () => {
    const base = { project_id: projectId, name: 'on a phone', type: 'ui', steps: [{ type: 'goto', url: '/page' }] };
    const bad = await api.post('/api/tests', { ...base, browser: { device: 'Pixel 99' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues).toEqual([{ path: 'browser.device', message: expect.stringMatching(/^unknown device "Pixel 99"; did you mean "Pixel/) }]);
    const badZone = await api.post('/api/tests', { ...base, browser: { timezone: 'Nowhere/Land' } });
    expect(badZone.body.error.details.issues[0].path).toBe('browser.timezone');

    const created = await api.post('/api/tests', { ...base, browser: { device: 'Pixel 7', locale: 'fr-FR' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.browser).toEqual({ device: 'Pixel 7', locale: 'fr-FR' });
    expect((await api.patch(`/api/tests/${created.body.id}`, { browser: { device: 'iPhone 99' } })).status).toBe(400);
    const cleared = await api.patch(`/api/tests/${created.body.id}`, { browser: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty('browser');
    expect((await api.get(`/api/tests/${created.body.id}`)).body).not.toHaveProperty('browser');
  });

  it('another organization sees neither the test nor its cases', async () => {
    const created = await api.post('/api/tests', parameterisedApiTest('private', [{ values: { path: 'ok', id: 'pv1' } }]));
    expect((await other.get(`/api/tests/${created.body.id}`)).status).toBe(404);
    const run = await other.post('/api/v1/test/run', { project_id: projectId, test_ids: [created.body.id] });
    expect(run.status).toBe(404);
  });
});
