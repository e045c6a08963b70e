/**
 * Comparing a run with a base run, over real HTTP on the local runtime with real runs of
 * API tests against a small app on 127.0.0.1: a test that broke between the runs is a new
 * failure, one whose endpoint was fixed is fixed, one failing in both still failing; a
 * test only in the later run is new, one only in the base removed when it was deleted and
 * not run when it was only left out. Without ?base= the base is the project's latest
 * finished run before this one that ran the same tests, an ordinary run before a retry
 * or a heal's re-run; a run still going is compared as far as it got (partial). Bad input is a 400 naming `base`; another
 * organization's run (or base) is a 404; the MCP tool answers the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { client, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { apiTest, startTarget, type Target } from '../run-graph/support/target.ts';

type Case = { test_id: string; name: string; status: string | null; base_status: string | null; change: string; error?: string };

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let target: Target;
let api: Client;
let user: Awaited<ReturnType<typeof signUp>>;
let stranger: Client;
let strangerRun: string;
let shop: string;
const ids: Record<'breaks' | 'flaky' | 'broken' | 'added' | 'dropped' | 'deleted' | 'held', string> = { breaks: '', flaky: '', broken: '', added: '', dropped: '', deleted: '', held: '' };
let first: string;
let second: string;

async function finished(c: Client, runId: string) {
  for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 100))) {
    const run = (await c.get(`/api/v1/test/status/${runId}`)).body.run;
    if (['completed', 'failed', 'cancelled'].includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not finish`);
  }
}

async function run(c: Client, projectId: string, testIds: string[]) {
  const started = await c.post('/api/v1/test/run', { project_id: projectId, test_ids: testIds });
  expect(started.status, started.text).toBe(201);
  return started.body.run.id as string;
}

const create = async (c: Client, projectId: string, name: string, path: string) => {
  const created = await c.post('/api/tests', { project_id: projectId, ...apiTest(name, path), description: undefined });
  expect(created.status, created.text).toBe(201);
  return created.body.id as string;
};

const caseOf = (body: { cases: Case[] }, testId: string) => body.cases.find((c) => c.test_id === testId);

beforeAll(async () => {
  target = await startTarget();
  server = await startRunGraphServer();
  user = await signUp(server.url, 'compare@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
  shop = (await api.post('/api/v1/projects', { name: 'shop', app_url: target.url })).body.id;
  ids.breaks = await create(api, shop, 'orders answer', '/ok');
  ids.flaky = await create(api, shop, 'stock answers', '/flaky');
  ids.broken = await create(api, shop, 'refunds answer', '/fail');
  ids.dropped = await create(api, shop, 'old search answers', '/ok');
  ids.deleted = await create(api, shop, 'retired answers', '/ok');
  // The base: /flaky still broken.
  first = await run(api, shop, [ids.breaks, ids.flaky, ids.broken, ids.dropped, ids.deleted]);
  expect((await finished(api, first)).status).toBe('completed');
  // Between the runs: /flaky is fixed, "orders answer" now calls a failing endpoint, a test is added, one left out and one deleted.
  expect((await api.delete(`/api/tests/${ids.deleted}`)).status).toBe(204);
  target.setBroken(false);
  const changed = await api.patch(`/api/tests/${ids.breaks}`, { steps: [{ type: 'request', method: 'GET', url: '/fail' }] });
  expect(changed.status, changed.text).toBe(200);
  ids.added = await create(api, shop, 'new checkout answers', '/ok');
  second = await run(api, shop, [ids.breaks, ids.flaky, ids.broken, ids.added]);
  await finished(api, second);

  const other = await signUp(server.url, 'compare-stranger@example.com');
  stranger = client(server.url, { token: other.token, org: other.orgId });
  const theirs = (await stranger.post('/api/v1/projects', { name: 'theirs', app_url: target.url })).body.id;
  strangerRun = await run(stranger, theirs, [await create(stranger, theirs, 'their test', '/ok')]);
  await finished(stranger, strangerRun);
});

afterAll(async () => {
  await server?.stop();
  await target?.stop();
});

describe('GET /api/runs/{id}/compare', () => {
  it('says what newly failed, what got fixed, what was already failing, what is new and what is gone', async () => {
    const res = await api.get(`/api/runs/${second}/compare?base=${first}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ run_id: second, base_run_id: first, partial: false });
    expect(res.body.summary).toEqual({ new_failures: 1, quarantined_new_failures: 0, fixed: 1, still_failing: 1, new_tests: 1, removed_tests: 1, not_run: 1, unchanged_passing: 0, skipped: 0, not_yet_run: 0 });
    expect(caseOf(res.body, ids.breaks)).toMatchObject({ name: 'orders answer', status: 'failed', base_status: 'passed', change: 'new_failure', error: expect.stringContaining('500') });
    expect(caseOf(res.body, ids.flaky)).toMatchObject({ status: 'passed', base_status: 'failed', change: 'fixed' });
    expect(caseOf(res.body, ids.broken)).toMatchObject({ change: 'still_failing' });
    expect(caseOf(res.body, ids.added)).toMatchObject({ change: 'new_test', base_status: null });
    expect(caseOf(res.body, ids.dropped)).toMatchObject({ name: 'old search answers', change: 'not_run', status: null, base_status: 'passed' });
    expect(caseOf(res.body, ids.deleted)).toMatchObject({ name: 'retired answers', change: 'removed', status: null, base_status: 'passed' });
    expect(res.body.cases[0].change).toBe('new_failure');
    expect(Array.isArray(res.body.slower)).toBe(true);
  });

  it('without base compares with the latest finished run of the project before this one, on both paths', async () => {
    const v1 = await api.get(`/api/v1/runs/${second}/compare`);
    expect(v1.status, v1.text).toBe(200);
    expect(v1.body.base_run_id).toBe(first);
    expect(v1.body.summary.new_failures).toBe(1);
    // The first run of the project has nothing before it: every case is new.
    const earliest = await api.get(`/api/runs/${first}/compare`);
    expect(earliest.body).toMatchObject({ base_run_id: null, summary: { new_tests: 5, new_failures: 0 } });
  });

  it('compares a run still going as far as it got, and says it is partial', async () => {
    target.closeGate();
    ids.held = await create(api, shop, 'held answer', '/gate');
    const going = await run(api, shop, [ids.held]);
    try {
      // Its test waits at the gate: nothing is reported yet, and the base's cases are not yet run (not removed).
      const res = await api.get(`/api/runs/${going}/compare`);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ run_id: going, base_run_id: second, partial: true, summary: { removed_tests: 0, not_yet_run: 4 } });
      expect(res.body.cases).toEqual([]);
    } finally {
      target.openGate();
    }
    await finished(api, going);
    const done = await api.get(`/api/runs/${going}/compare`);
    // The base's tests still exist: this run only did not select them.
    expect(done.body).toMatchObject({ base_run_id: second, partial: false, summary: { new_tests: 1, removed_tests: 0, not_run: 4, not_yet_run: 0 } });
  });

  it('the default base is the latest run that ran the same tests: a full run after a run of one test is compared with the full run before it', async () => {
    const one = await run(api, shop, [ids.added]);
    await finished(api, one);
    const ofOne = (await api.get(`/api/runs/${one}/compare`)).body;
    expect(ofOne).toMatchObject({ base_run_id: second, base_rule: 'previous_run', summary: { unchanged_passing: 1, not_run: 3, removed_tests: 0, new_tests: 0 } });
    const full = await run(api, shop, [ids.breaks, ids.flaky, ids.broken, ids.added]);
    await finished(api, full);
    const ofFull = (await api.get(`/api/runs/${full}/compare`)).body;
    expect(ofFull).toMatchObject({ base_run_id: second, summary: { new_tests: 0, still_failing: 2 } });
  });

  it('the default base passes over retries and heal re-runs for an ordinary run, and takes one only when nothing else is there', async () => {
    const full = await run(api, shop, [ids.breaks, ids.flaky, ids.broken, ids.added]);
    await finished(api, full);
    // Two retries of one test (the dashboard's Retry) and a heal's re-run of it, newer than the full run.
    const retry = async () => {
      const started = await api.post(`/api/tests/${ids.added}/retry`, { run_id: full });
      expect(started.status, started.text).toBe(201);
      return started.body.run.id as string;
    };
    const firstRetry = await retry();
    await finished(api, firstRetry);
    const secondRetry = await retry();
    await finished(api, secondRetry);
    const heal = await api.post('/api/v1/test/run', { project_id: shop, test_ids: [ids.added], trigger: 'heal' });
    expect(heal.status, heal.text).toBe(201);
    const healRun = heal.body.run.id as string;
    expect((await finished(api, healRun)).trigger).toBe('heal');
    // Each ran the one test, so each would cover an ordinary run of it; the full run is taken instead.
    const one = await run(api, shop, [ids.added]);
    await finished(api, one);
    expect((await api.get(`/api/runs/${one}/compare`)).body).toMatchObject({ base_run_id: full, base_rule: 'previous_run', summary: { unchanged_passing: 1 } });
    // A retry itself is compared with the ordinary run before it, not with the retry before it.
    expect((await api.get(`/api/runs/${secondRetry}/compare`)).body).toMatchObject({ base_run_id: full, summary: { unchanged_passing: 1, not_run: 3 } });

    // A project whose only earlier run is a retry: the retry is the base.
    const lone = (await api.post('/api/v1/projects', { name: 'retried only', app_url: target.url })).body.id;
    const test = await create(api, lone, 'lone answers', '/ok');
    const retried = await api.post(`/api/tests/${test}/retry`, {});
    expect(retried.status, retried.text).toBe(201);
    expect((await finished(api, retried.body.run.id)).trigger).toBe('retry');
    const after = await run(api, lone, [test]);
    await finished(api, after);
    expect((await api.get(`/api/runs/${after}/compare`)).body).toMatchObject({ base_run_id: retried.body.run.id, base_rule: 'previous_run', summary: { unchanged_passing: 1 } });
  });

  it('refuses a bad base with a 400 naming base', async () => {
    for (const bad of ['nope', '1234', `${first}x`]) {
      const res = await api.get(`/api/runs/${second}/compare?base=${encodeURIComponent(bad)}`);
      expect(res.status, res.text).toBe(400);
      expect(res.text).toContain('base');
    }
    const itself = await api.get(`/api/runs/${second}/compare?base=${second}`);
    expect(itself.status).toBe(400);
    expect(itself.body.error.details.issues[0].path).toBe('base');
    // A run of another project of the same organization: its cases are other tests.
    const admin = (await api.post('/api/v1/projects', { name: 'admin', app_url: target.url })).body.id;
    const elsewhere = await run(api, admin, [await create(api, admin, 'admin answers', '/ok')]);
    await finished(api, elsewhere);
    const res = await api.get(`/api/runs/${second}/compare?base=${elsewhere}`);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.details.issues[0]).toMatchObject({ path: 'base', message: expect.stringContaining('another project') });
  });

  it("is a 404 for another organization's run, and for a base of another organization as if it did not exist", async () => {
    expect((await stranger.get(`/api/runs/${second}/compare`)).status).toBe(404);
    expect((await stranger.get(`/api/v1/runs/${second}/compare?base=${strangerRun}`)).status).toBe(404);
    const theirBase = await api.get(`/api/runs/${second}/compare?base=${strangerRun}`);
    expect(theirBase.status).toBe(404);
    const missing = await api.get(`/api/runs/${second}/compare?base=01900000-0000-7000-8000-000000000000`);
    expect(missing.status).toBe(404);
    expect(theirBase.body.error.message).toBe(missing.body.error.message);
  });

  it('answers the same through the MCP tool svc_compare_runs', async () => {
    const mcp = new McpClient({ name: 'compare-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${user.token}`, 'x-organization-id': user.orgId } } }));
    try {
      const result = (await mcp.callTool({ name: 'svc_compare_runs', arguments: { id: second, base: first } })) as CallToolResult;
      expect(result.isError ?? false).toBe(false);
      const body = result.structuredContent as { base_run_id: string; summary: { new_failures: number; fixed: number } };
      expect(body).toMatchObject({ base_run_id: first, summary: { new_failures: 1, fixed: 1 } });
    } finally {
      await mcp.close();
    }
  });
});
