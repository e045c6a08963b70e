/**
 * Run endpoints over real HTTP on the local runtime: start (three paths), status, job,
 * results, report, retry, cancel — and the bad inputs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from './support/api-server.ts';
import { apiTest, startTarget, type Target } from './support/target.ts';
import { openSse } from './support/sse-client.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let target: Target;
let api: Client;
let other: Client;
let projectId: string;
let token: string;
let orgId: string;

beforeAll(async () => {
  target = await startTarget();
  server = await startRunGraphServer();
  const user = await signUp(server.url, 'runs@example.com');
  token = user.token;
  orgId = user.orgId;
  api = client(server.url, { token: user.token, org: user.orgId });
  const stranger = await signUp(server.url, 'stranger@example.com');
  other = client(server.url, { token: stranger.token, org: stranger.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: target.url })).body.id;
});
afterAll(async () => {
  await server?.stop();
  await target?.stop();
});

async function createTests(paths: string[]): Promise<string[]> {
  const ids = [];
  for (const p of paths) {
    const res = await api.post('/api/tests', { project_id: projectId, ...apiTest(`GET ${p}`, p), description: undefined });
    expect(res.status).toBe(201);
    ids.push(res.body.id as string);
  }
  return ids;
}

async function until(runId: string, statuses: string[], timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get(`/api/v1/test/status/${runId}`);
    expect(res.status).toBe(200);
    if (statuses.includes(res.body.run.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${res.body.run.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('run endpoints', () => {
  it('POST /api/v1/test/run starts the graph; status, job, results and report follow it', async () => {
    const ids = await createTests(['/ok?id=r1', '/fail?id=r2']);
    const res = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: ids });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ thread_id: res.body.run.id, job_id: res.body.run.id, stream_url: `/stream/${res.body.run.id}` });
    expect(res.body.run.status).toBe('running');
    const status = await until(res.body.run.id, ['completed']);
    expect(status).toMatchObject({ passed_count: 1, failed_count: 1, next_agent: 'end', active: false, pending_approvals: [], stop: null });
    expect(status.run).toMatchObject({ total_tests: 2, passed_tests: 1, failed_tests: 1 });
    // The plan the run executed (the record is made before it exists; the status reads it from the run state).
    expect(status.run.test_plan.map((t: { id: string }) => t.id).sort()).toEqual([...ids].sort());
    // The plan (every step of every test) comes last, the totals before it: an answer cut short — an assistant's tool result is cut at 100,000 characters — keeps them (noted by QA).
    expect(Object.keys(status).at(-1)).toBe('run');
    expect(Object.keys(status.run).at(-1)).toBe('test_plan');

    const job = await api.get(`/api/jobs/${res.body.run.id}`);
    expect(job.body).toMatchObject({ id: res.body.run.id, type: 'test_run', status: 'completed' });

    const results = await api.get(`/api/v1/tests/${res.body.run.id}/results`);
    expect(results.status).toBe(200);
    expect(results.body.items).toHaveLength(2);
    expect(results.body.items.map((r: { status: string }) => r.status).sort()).toEqual(['failed', 'passed']);

    const junit = await api.get(`/api/reports/${res.body.run.id}?format=junit`);
    expect(junit.status).toBe(200);
    expect(junit.headers.get('content-type')).toMatch(/xml/);
    expect(junit.text).toMatch(/<testsuite/);
    expect(junit.text).toMatch(/failures="1"/);
    const json = await api.get(`/api/reports/${res.body.run.id}`);
    expect(json.body).toBeTruthy();
    // The run ran its 2 tests side by side (the default concurrency, 2), and the report says so (it always said 1 worker).
    expect(status.run.max_concurrency).toBe(2);
    expect(JSON.parse((await api.get(`/api/reports/${res.body.run.id}?format=json`)).text).run.workers).toBe(2);
    expect(junit.text).toContain('<property name="svc.workers" value="2"/>');
  });

  it('POST /api/v1/tests/run and /api/tests/run start the same graph', async () => {
    const ids = await createTests(['/ok?id=r3']);
    for (const path of ['/api/v1/tests/run', '/api/tests/run']) {
      const res = await api.post(path, { project_id: projectId, test_ids: ids, trigger: 'manual' });
      expect(res.status).toBe(201);
      expect(res.body.run.trigger).toBe('manual');
      await until(res.body.run.id, ['completed']);
    }
  });

  it('POST /api/tests/{id}/retry runs that test again as a new run (trigger retry)', async () => {
    const [id] = await createTests(['/fail?id=r4']);
    const res = await api.post(`/api/tests/${id}/retry`, {});
    expect(res.status).toBe(201);
    expect(res.body.run).toMatchObject({ trigger: 'retry', total_tests: 1 });
    const done = await until(res.body.run.id, ['completed']);
    expect(done.failed_count).toBe(1);
  });

  it("a retry of a run's failure (run_id) carries that run's source; a source given wins; a run of another project or organization is refused", async () => {
    const [id] = await createTests(['/fail?id=r6']);
    const source = { branch: 'feature/cart', commit_sha: 'abc1234', pull_request: { number: 7, base_branch: 'main' } };
    const first = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [id], source });
    await until(first.body.run.id, ['completed']);

    const retry = await api.post(`/api/tests/${id}/retry`, { run_id: first.body.run.id });
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.body.run).toMatchObject({ trigger: 'retry', source: { provider: null, repository: null, ...source } });
    await until(retry.body.run.id, ['completed']);
    // The retried run's status says it too, and its pull request number is the source's.
    expect((await api.get(`/api/v1/test/status/${retry.body.run.id}`)).body.run.source).toMatchObject(source);

    const own = await api.post(`/api/tests/${id}/retry`, { run_id: first.body.run.id, source: { branch: 'hotfix' } });
    expect(own.body.run.source).toMatchObject({ branch: 'hotfix', commit_sha: null, pull_request: null });
    await until(own.body.run.id, ['completed']);
    const plain = await api.post(`/api/tests/${id}/retry`, {});
    expect(plain.body.run.source ?? null).toBeNull();
    await until(plain.body.run.id, ['completed']);

    const otherProject = (await api.post('/api/v1/projects', { name: 'elsewhere', app_url: target.url })).body.id;
    const elsewhere = await api.post('/api/tests', { project_id: otherProject, ...apiTest('GET /ok', '/ok?id=r7'), description: undefined });
    const wrongProject = await api.post(`/api/tests/${elsewhere.body.id}/retry`, { run_id: first.body.run.id });
    expect(wrongProject.status).toBe(400);
    expect(wrongProject.body.error.details.issues).toEqual([{ path: 'run_id', message: expect.stringMatching(/another project/) }]);
    expect((await api.post(`/api/tests/${id}/retry`, { run_id: crypto.randomUUID() })).status).toBe(404);
    expect((await api.post(`/api/tests/${id}/retry`, { run_id: 'not-a-uuid' })).body.error.details.issues[0].path).toBe('run_id');
    // Another organization's run is as unknown as a made-up one.
    const theirs = await other.post('/api/v1/projects', { name: 'theirs', app_url: target.url });
    const theirTest = await other.post('/api/tests', { project_id: theirs.body.id, ...apiTest('GET /ok', '/ok?id=r8'), description: undefined });
    const theirRun = await other.post('/api/v1/test/run', { project_id: theirs.body.id, test_ids: [theirTest.body.id], source });
    expect((await api.post(`/api/tests/${id}/retry`, { run_id: theirRun.body.run.id })).status).toBe(404);
  });

  it('POST /api/v1/test/cancel stops a running run: cancelled, no result for the stopped test', async () => {
    const ids = await createTests(['/slow?ms=5000&id=c1', '/slow?ms=5000&id=c2']);
    const res = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: ids, max_concurrency: 1 });
    const runId = res.body.run.id;
    const deadline = Date.now() + 10_000;
    while (target.hits('/slow?id=c1') + target.hits('/slow?id=c2') === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const cancelled = await api.post(`/api/v1/test/cancel/${runId}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    const status = await api.get(`/api/v1/test/status/${runId}`);
    expect(status.body).toMatchObject({ active: false, run: { status: 'cancelled' } });
    expect((await api.get(`/api/v1/tests/${runId}/results`)).body.items).toEqual([]);
    const again = await api.post(`/api/v1/test/cancel/${runId}`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
  });

  it('a running and a cancelled run are reported as such, their planned cases not run counted as skipped, the totals agreeing (found by QA)', async () => {
    const ids = await createTests(['/ok?id=q1', '/slow?ms=6000&id=q2', '/slow?ms=6000&id=q3']);
    const runId = (await api.post('/api/v1/test/run', { project_id: projectId, test_ids: ids, max_concurrency: 1 })).body.run.id as string;
    const deadline = Date.now() + 15_000;
    while (target.hits('/slow?id=q2') === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await expect.poll(async () => (await api.get(`/api/v1/tests/${runId}/results`)).body.items.length, { timeout: 10_000 }).toBe(1);

    const running = JSON.parse((await api.get(`/api/reports/${runId}?format=json`)).text);
    expect(running.run).toMatchObject({ unfinished: 'running', total: 3, passed: 1, skipped: 2, base_url: target.url });
    expect((await api.get(`/api/reports/${runId}?format=md`)).text).toMatch(/^## ⏳ Running/m);
    // Each format lists the planned cases not run, skipped with the reason, so its tests agree with its totals
    // (found by QA: the JUnit report of a cancelled run said tests="1" skipped="0", all green, and JSON listed 1 test of 3).
    expect(running.tests.map((t: { status: string; error: { message: string } | null }) => [t.status, t.error?.message ?? null])).toEqual([
      ['passed', null], ['skipped', 'not run yet: the run is still running'], ['skipped', 'not run yet: the run is still running'],
    ]);

    expect((await api.post(`/api/v1/test/cancel/${runId}`)).status).toBe(200);
    const record = (await api.get(`/api/v1/test/status/${runId}`)).body.run;
    expect(record).toMatchObject({ status: 'cancelled', total_tests: 3, passed_tests: 1, failed_tests: 0 });
    const cancelled = JSON.parse((await api.get(`/api/reports/${runId}?format=json`)).text);
    expect(cancelled.run).toMatchObject({ unfinished: 'cancelled', total: 3, passed: 1, failed: 0, skipped: 2 });
    // The stored summary and the stream's complete event say what the report says: the tests not run are skipped (found by QA: skipped 0).
    const summary = { status: 'cancelled', total: 3, passed: 1, healed: 0, failed: 0, skipped: 2 };
    expect(record.results).toMatchObject(summary);
    const events = await openSse(`${server.url}/stream/${runId}`, { headers: { authorization: `Bearer ${token}` } });
    await events.done;
    expect(events.events.at(-1)).toMatchObject({ event: 'complete', data: { summary } });
    const md = (await api.get(`/api/reports/${runId}?format=md`)).text;
    expect(md).toMatch(/^## ⏹️ Cancelled/m);
    expect(md).toContain('Cancelled before every test ran: the tests not run are counted as skipped.');
    const junit = (await api.get(`/api/reports/${runId}?format=junit`)).text;
    expect(junit).toContain('<property name="svc.unfinished" value="cancelled"/>');
    expect(junit).toMatch(/<testsuites [^>]*tests="3" failures="0" errors="0" skipped="2"/);
    expect(junit.match(/<skipped message="not run: the run was cancelled before this test finished"\/>/g)).toHaveLength(2);
    expect(cancelled.tests.map((t: { status: string }) => t.status)).toEqual(['passed', 'skipped', 'skipped']);
  });

  it("a run of a project's every test (no test_ids) counts its plan while it runs, not 2 of 2 for a plan of 3 (found by QA)", async () => {
    const project = (await api.post('/api/v1/projects', { name: 'all tests', app_url: target.url })).body.id as string;
    for (const p of ['/ok?id=a1', '/slow?ms=6000&id=a2', '/slow?ms=6000&id=a3']) expect((await api.post('/api/tests', { project_id: project, ...apiTest(`GET ${p}`, p), description: undefined })).status).toBe(201);
    const started = (await api.post('/api/v1/test/run', { project_id: project, max_concurrency: 1 })).body.run;
    expect(started.total_tests).toBe(0); // nothing is planned yet
    await expect.poll(async () => (await api.get(`/api/v1/tests/${started.id}/results`)).body.items.length, { timeout: 10_000 }).toBe(1);

    expect((await api.get(`/api/v1/test/status/${started.id}`)).body.run).toMatchObject({ status: 'running', total_tests: 3 });
    const running = JSON.parse((await api.get(`/api/reports/${started.id}?format=json`)).text);
    expect(running.run).toMatchObject({ unfinished: 'running', total: 3, passed: 1, skipped: 2 });
    expect((await api.post(`/api/v1/test/cancel/${started.id}`)).status).toBe(200);
  });

  it('a test named more than once runs once and counts once, before and after a cancel (found by QA: total 3 for a plan of 1)', async () => {
    const [slow] = await createTests(['/slow?ms=6000&id=d1']);
    const res = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [slow, slow, slow] });
    expect(res.status).toBe(201);
    expect(res.body.run.total_tests).toBe(1);
    const runId = res.body.run.id as string;
    const deadline = Date.now() + 10_000;
    while (target.hits('/slow?id=d1') === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const running = await api.get(`/api/v1/test/status/${runId}`);
    expect(running.body.run.test_plan.map((t: { id: string }) => t.id)).toEqual([slow]);

    expect((await api.post(`/api/v1/test/cancel/${runId}`)).status).toBe(200);
    const record = (await api.get(`/api/v1/test/status/${runId}`)).body.run;
    expect(record).toMatchObject({ status: 'cancelled', total_tests: 1, passed_tests: 0, failed_tests: 0 });
    const report = JSON.parse((await api.get(`/api/reports/${runId}?format=json`)).text);
    expect(report.run).toMatchObject({ unfinished: 'cancelled', total: 1, passed: 0, failed: 0, skipped: 1 });
    expect(target.hits('/slow?id=d1')).toBe(1);
  });

  it('a chosen thread_id is the organization\'s own: another organization may choose the same name, and learns nothing of it (it was a 409 naming the other\'s thread; noted by QA)', async () => {
    const [mineTest] = await createTests(['/ok?id=tn1']);
    const theirs = (await other.post('/api/v1/projects', { name: 'their shop', app_url: target.url })).body.id;
    const theirTest = (await other.post('/api/tests', { project_id: theirs, ...apiTest('GET /ok', '/ok?id=tn2'), description: undefined })).body.id;
    const name = `nightly-${crypto.randomUUID().slice(0, 8)}`;

    const mine = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [mineTest], thread_id: name });
    expect(mine.status).toBe(201);
    expect(mine.body.thread_id).toBe(`o-${orgId}-${name}`);
    expect(mine.body.run.thread_id).toBe(mine.body.thread_id);
    const theirsRun = await other.post('/api/v1/test/run', { project_id: theirs, test_ids: [theirTest], thread_id: name });
    expect(theirsRun.status).toBe(201);
    expect(theirsRun.body.thread_id).not.toBe(mine.body.thread_id);

    // Within the organization the name is still one thread: a repeated start is refused.
    expect((await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [mineTest], thread_id: name })).status).toBe(409);
    // The chosen name and svc's thread id both name the run, for its organization only.
    await until(mine.body.run.id, ['completed']);
    for (const id of [name, mine.body.thread_id]) {
      const status = await api.get(`/api/v1/test/status/${id}`);
      expect(status.status, id).toBe(200);
      expect(status.body.run.id).toBe(mine.body.run.id);
      expect((await api.get(`/api/v1/time-travel/history/${id}`)).status, id).toBe(200);
    }
    expect((await other.get(`/api/v1/test/status/${mine.body.thread_id}`)).status).toBe(404);
    expect((await other.get(`/api/v1/test/status/${name}`)).body.run.id).toBe(theirsRun.body.run.id);
    // The stream URL the start answered with plays the run's events.
    const sse = await openSse(`${server.url}${mine.body.stream_url}`, { headers: { authorization: `Bearer ${token}` } });
    expect((await sse.waitFor((e) => e.event === 'complete')).data.summary).toMatchObject({ total: 1, passed: 1 });
    sse.close();
  });

  it('bad input: unknown project or test → 404, invalid body → 400, another organization\'s run → 404', async () => {
    const unknownProject = await api.post('/api/v1/test/run', { project_id: crypto.randomUUID() });
    expect(unknownProject.status).toBe(404);
    const unknownTest = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [crypto.randomUUID()] });
    expect(unknownTest.status).toBe(404);
    expect(unknownTest.body.error.message).toMatch(/not found in this project/);
    const invalid = await api.post('/api/v1/test/run', { project_id: projectId, max_concurrency: 0, bogus: 1 });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['bogus', 'max_concurrency']);

    const [id] = await createTests(['/ok?id=r5']);
    const mine = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [id] });
    await until(mine.body.run.id, ['completed']);
    for (const path of [`/api/v1/test/status/${mine.body.run.id}`, `/api/jobs/${mine.body.run.id}`, `/api/v1/tests/${mine.body.run.id}/results`, `/api/reports/${mine.body.run.id}`]) {
      expect((await other.get(path)).status, path).toBe(404);
    }
    expect((await other.post(`/api/v1/test/cancel/${mine.body.run.id}`)).status).toBe(404);
    expect((await api.get('/api/v1/test/status/nope')).status).toBe(404);
  });

  it("GET /api/runs lists a project's runs newest first, without their plans; status and trigger filter; another organization's project is 404", async () => {
    // A project of its own, so earlier tests' runs do not count.
    const project = (await api.post('/api/v1/projects', { name: 'listed', app_url: target.url })).body.id as string;
    const make = async (p: string) => (await api.post('/api/tests', { project_id: project, ...apiTest(`GET ${p}`, p), description: undefined })).body.id as string;
    const [ok, bad] = [await make('/ok?id=l1'), await make('/fail?id=l2')];
    const first = (await api.post('/api/v1/test/run', { project_id: project, test_ids: [ok] })).body.run.id as string;
    await until(first, ['completed']);
    const second = (await api.post('/api/v1/test/run', { project_id: project, test_ids: [ok, bad], trigger: 'ci' })).body.run.id as string;
    await until(second, ['completed']);
    const cancelled = (await api.post('/api/v1/test/run', { project_id: project, test_ids: [ok] })).body.run.id as string;
    await api.post(`/api/v1/test/cancel/${cancelled}`);
    await until(cancelled, ['cancelled', 'completed']);

    const all = await api.get(`/api/runs?project_id=${project}`);
    expect(all.status).toBe(200);
    expect(all.body.items.map((r: { id: string }) => r.id)).toEqual([cancelled, second, first]);
    expect(all.body.items[1]).toMatchObject({ project_id: project, trigger: 'ci', status: 'completed', total_tests: 2, passed_tests: 1, failed_tests: 1, results: { failed: 1 } });
    expect(all.body.items[1]).not.toHaveProperty('test_plan');
    expect(all.body.next_cursor).toBeNull();

    const page = await api.get(`/api/v1/runs?project_id=${project}&limit=2`);
    expect(page.body.items.map((r: { id: string }) => r.id)).toEqual([cancelled, second]);
    const rest = await api.get(`/api/v1/runs?project_id=${project}&limit=2&cursor=${encodeURIComponent(page.body.next_cursor)}`);
    expect(rest.body.items.map((r: { id: string }) => r.id)).toEqual([first]);

    expect((await api.get(`/api/runs?project_id=${project}&trigger=ci`)).body.items.map((r: { id: string }) => r.id)).toEqual([second]);
    // A trigger no run can have is a 400 naming it, not an empty list.
    const misspelt = await api.get(`/api/runs?project_id=${project}&trigger=cl`);
    expect([misspelt.status, misspelt.body.error.details.issues[0].path]).toEqual([400, 'trigger']);
    const byStatus = await api.get(`/api/runs?project_id=${project}&status=completed`);
    expect(byStatus.body.items.every((r: { status: string }) => r.status === 'completed')).toBe(true);

    const missing = await api.get('/api/runs');
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.issues).toEqual([expect.objectContaining({ path: 'project_id' })]);
    expect((await api.get(`/api/runs?project_id=${project}&status=done`)).body.error.details.issues[0].path).toBe('status');
    expect((await other.get(`/api/runs?project_id=${project}`)).status).toBe(404);

    // The results of a run: only the failures, and a page at a time.
    const failures = await api.get(`/api/v1/tests/${second}/results?status=FAILED`);
    expect(failures.body.items.map((r: { test_id: string; status: string }) => [r.test_id, r.status])).toEqual([[bad, 'failed']]);
    const one = await api.get(`/api/v1/tests/${second}/results?limit=1`);
    expect(one.body.items).toHaveLength(1);
    // URL-safe: pasted into a URL as it is (no '#' for a client to cut off as a fragment).
    expect(one.body.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const next = await api.get(`/api/v1/tests/${second}/results?limit=1&cursor=${one.body.next_cursor}`);
    expect(next.body).toMatchObject({ items: [expect.anything()], next_cursor: null });
    // The plain key earlier answers gave still reads.
    const plain = Buffer.from(one.body.next_cursor, 'base64url').toString('utf8');
    expect((await api.get(`/api/v1/tests/${second}/results?limit=1&cursor=${encodeURIComponent(plain)}`)).body.items).toEqual(next.body.items);
    expect((await api.get(`/api/v1/tests/${second}/results?cursor=${Buffer.from('garbage that decodes to no key at all', 'utf8').toString('base64url')}`)).body.error.details.issues[0]).toMatchObject({ path: 'cursor', message: 'not a next_cursor of this list' });
    expect([one.body.items[0].test_id, next.body.items[0].test_id].sort()).toEqual([ok, bad].sort());
    expect((await api.get(`/api/v1/tests/${second}/results?cursor=abc`)).body.error.details.issues[0].path).toBe('cursor');
  });

  it('every run graph route is in the OpenAPI document, with resolvable refs', async () => {
    const doc = (await api.get('/api/openapi.json')).body;
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries<Record<string, unknown>>(doc.paths)) for (const m of Object.keys(ops)) documented.add(`${m} ${path}`);
    const ours = server.runtime.app.routeDefs.filter((r) => /stream|approvals|time-travel|test\/|tests\/run|tests\/:id\/(results|retry)|jobs|reports|^\/api(\/v1)?\/runs$/.test(r.path));
    expect(ours.length).toBeGreaterThanOrEqual(20);
    for (const route of ours) {
      const path = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
      expect(documented, `${route.method} ${path}`).toContain(`${route.method} ${path}`);
    }
    const text = JSON.stringify(doc);
    for (const [, ref] of text.matchAll(/"\$ref":"#\/([^"]+)"/g)) {
      let node: any = doc;
      for (const part of ref.split('/')) node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      expect(node, ref).toBeDefined();
    }
  });
});
