/**
 * analyze_code and plan_tests with the real intelligence, through the API: a project
 * whose repository is test/fixtures/graph-repo (an Express codebase of the fixture app's
 * routes) inside the server's analyze roots. The run's state and history show the code
 * surfaces next to the stored tests, the analyser's summary, codebase.analyzed, and a
 * plan ordered by the run's changed files, with the planner's reasons. A repository the
 * server may not read, a remote one, and one that cannot be read say why in the summary.
 */
import { fileURLToPath } from 'node:url';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '@svc/core/contracts/events';
import { client, signUp, startTestServer, type Client, type TestServer } from '../support/server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

const repo = fileURLToPath(new URL('../fixtures/graph-repo', import.meta.url));
const fixturesDir = fileURLToPath(new URL('../fixtures', import.meta.url));
const otherDir = fileURLToPath(new URL('../support', import.meta.url));

let server: TestServer;
let app: FixtureApp;
let api: Client;
const events: EventEnvelope[] = [];

beforeAll(async () => {
  app = await startFixtureApp({ version: 'v1' });
  // Only the fixtures folder may be read: test/support lies outside it.
  server = await startTestServer({ runtime: { analyzeRoots: [fixturesDir] } });
  server.runtime.bus.subscribe((e) => void events.push(e));
  const user = await signUp(server.url, 'intelligence@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
});
afterAll(async () => {
  await server?.stop();
  await app?.close();
});

type State = {
  error: string | null;
  codebase_summary: string;
  testable_surfaces: Array<Record<string, unknown>>;
  test_plan: Array<{ id: string; name: string; priority: string }>;
  test_priorities: Record<string, string>;
  test_results: Array<{ test_id: string; status: string }>;
  messages: Array<{ name?: string; content: Array<Record<string, unknown>> }>;
};

async function project(repoUrl: string | null, config: Record<string, unknown> = {}) {
  const res = await api.post('/api/v1/projects', { name: `shop ${Math.random()}`, app_url: app.url, ...(repoUrl ? { repo_url: repoUrl } : {}), config });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

async function apiTest(projectId: string, name: string, path: string, priority = 'medium') {
  const res = await api.post('/api/tests', { project_id: projectId, name, type: 'api', priority, steps: [{ type: 'request', method: 'GET', url: path }], assertions: [{ type: 'status', equals: 200 }], tags: [] });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

/** Starts a run over HTTP, waits for it to finish, returns its final state and thread. */
async function run(body: Record<string, unknown>): Promise<{ threadId: string; state: State }> {
  const started = await api.post('/api/v1/test/run', body);
  expect(started.status, started.text).toBe(201);
  const threadId = started.body.thread_id as string;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = (await api.get(`/api/v1/test/status/${threadId}`)).body;
    if (['completed', 'failed', 'cancelled'].includes(status.run.status)) {
      const state = (await api.get(`/api/v1/time-travel/state/${threadId}/${status.checkpoint_id}`)).body.state as State;
      return { threadId, state };
    }
    if (Date.now() > deadline) throw new Error(`run ${threadId} did not finish: ${JSON.stringify(status.run)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const planOf = (s: State) => s.test_plan.map((t) => t.name);
const planReasons = (s: State) => {
  const msg = s.messages.find((m) => m.name === 'plan_tests')!;
  return (msg.content.find((c) => c.type === 'test_plan')!.tests as Array<{ test_id: string; priority: string; stored_priority: string; changed: boolean; reasons: string[]; surfaces: string[] }>);
};

describe('analyze_code reads the project repository', () => {
  let projectId: string;
  let ids: Record<string, string>;

  beforeAll(async () => {
    projectId = await project(repo);
    ids = {
      items: await apiTest(projectId, 'list items', '/api/items'),
      item: await apiTest(projectId, 'one item', '/api/items/1'),
      login: await apiTest(projectId, 'login page', '/login'),
      table: await apiTest(projectId, 'product table', '/table', 'low'),
    };
  });

  it('writes code surfaces next to the stored tests, a real summary, and publishes codebase.analyzed', async () => {
    const { threadId, state } = await run({ project_id: projectId, changed_files: ['src/routes/login.js'] });
    expect(state.error).toBeNull();
    expect(state.test_results.map((r) => r.status)).toEqual(['PASSED', 'PASSED', 'PASSED', 'PASSED']);

    const stored = state.testable_surfaces.filter((s) => s.kind === 'stored_test');
    const code = state.testable_surfaces.filter((s) => s.kind === 'code');
    expect(stored.map((s) => s.test_id).sort()).toEqual(Object.values(ids).sort());
    expect(code).toHaveLength(10);
    expect(code).toEqual(expect.arrayContaining([
      expect.objectContaining({ kind: 'code', surface_kind: 'http_route', method: 'POST', path: '/login', file: 'src/routes/login.js', line: 6 }),
      expect.objectContaining({ surface_kind: 'http_route', method: 'GET', path: '/api/items/:id', file: 'src/routes/items.js' }),
    ]));
    expect(state.codebase_summary).toMatch(/^7 files analysed .*Frameworks: express\. 10 surfaces: 10 HTTP routes/);
    expect(state.codebase_summary).toContain(`Analysed ${repo}: 10 code surfaces; 4 stored tests selected to run.`);

    // The analyze_code checkpoint in the history holds the same surfaces.
    const history = (await api.get(`/api/v1/time-travel/history/${threadId}?limit=100`)).body.items as Array<{ checkpoint_id: string; metadata: { node?: string } }>;
    const analysed = history.find((c) => c.metadata.node === 'analyze_code')!;
    const atAnalysis = (await api.get(`/api/v1/time-travel/state/${threadId}/${analysed.checkpoint_id}`)).body.state as State;
    expect(atAnalysis.testable_surfaces).toEqual(state.testable_surfaces);
    expect(atAnalysis.test_plan).toEqual([]);

    const event = events.find((e) => e.event_type === 'codebase.analyzed' && e.payload.project_id === projectId)!;
    expect(event.payload).toMatchObject({ codebase_path: repo, surface_count: 10, frameworks: ['express'] });
    expect(event.payload.testable_surfaces).toHaveLength(10);
  });

  it('plans the tests of the changed files first, with the planner\'s reasons', async () => {
    const login = (await run({ project_id: projectId, changed_files: ['src/routes/login.js'] })).state;
    expect(planOf(login)).toEqual(['login page', 'one item', 'list items', 'product table']);
    const first = planReasons(login)[0];
    expect(first).toMatchObject({ test_id: ids.login, changed: true, stored_priority: 'MEDIUM', priority: 'CRITICAL' });
    expect(first.reasons).toEqual(expect.arrayContaining(['sensitive area (auth, payment, account or admin)', 'changed in this diff: src/routes/login.js']));
    expect(first.surfaces).toEqual(['GET /login (src/routes/login.js:4)']);
    expect(login.test_priorities[ids.login]).toBe('CRITICAL');
    expect(login.test_priorities[ids.table]).toBe('LOW'); // the plan raises priorities, never lowers them

    const items = (await run({ project_id: projectId, changed_files: ['src/routes/items.js'] })).state;
    expect(planOf(items)).toEqual(['one item', 'list items', 'login page', 'product table']);
    expect(planReasons(items).slice(0, 2).map((p) => p.changed)).toEqual([true, true]);
    expect(planReasons(items)[0].reasons).toContain('takes path parameters');
    expect(planReasons(items)[2]).toMatchObject({ test_id: ids.login, changed: false });

    // Without changed files: priority, then risk.
    const none = (await run({ project_id: projectId })).state;
    expect(planOf(none)).toEqual(['login page', 'one item', 'list items', 'product table']);
    expect(planReasons(none).every((p) => !p.changed)).toBe(true);
  });

  it('with code surfaces but no stored tests the run reports that there is nothing to execute', async () => {
    const empty = await project(repo);
    const { state } = await run({ project_id: empty });
    expect(state.testable_surfaces.filter((s) => s.kind === 'code')).toHaveLength(10);
    expect(state.error).toBe('no tests: the codebase has 10 testable surfaces but the run has no stored tests to execute (create or generate tests first)');
  });
});

describe('when no code is analysed the summary says why, and the stored tests still run', () => {
  it('no repository, one outside the analyze roots, a remote one (no credentials echoed), config.repo_path', async () => {
    const cases: Array<[string | null, Record<string, unknown>, RegExp]> = [
      [null, {}, /^1 stored test selected to run; no code was analysed: the project has no repository \(repo_url or config\.repo_path\)$/],
      [otherDir, {}, /no code was analysed: .*test\/support: path is outside the folders this server may read \(SVC_ANALYZE_ROOTS\)$/],
      ['https://bot:ghp_secret123@github.com/acme/shop.git', {}, /no code was analysed: the repository https:\/\/github\.com\/acme\/shop\.git is not a local folder; this server analyses local folders only/],
    ];
    for (const [repoUrl, config, summary] of cases) {
      const p = await project(repoUrl, config);
      await apiTest(p, 'login page', '/login');
      const { state } = await run({ project_id: p });
      expect(state.codebase_summary).toMatch(summary);
      expect(state.codebase_summary).not.toContain('ghp_secret123');
      expect(state.testable_surfaces.map((s) => s.kind)).toEqual(['stored_test']);
      expect(state.test_results.map((r) => r.status)).toEqual(['PASSED']);
    }
    // A remote repo_url with the local checkout in config.repo_path: the checkout is analysed.
    const both = await project('https://github.com/acme/shop.git', { repo_path: repo });
    await apiTest(both, 'login page', '/login');
    const { state } = await run({ project_id: both });
    expect(state.codebase_summary).toContain(`Analysed ${repo}: 10 code surfaces`);
  });

  it('an analysis error: with stored tests a warning and the run goes on; without, the run reports it', async () => {
    const file = `${repo}/package.json`; // inside the roots, but not a folder: the read fails
    const withTests = await project(file);
    await apiTest(withTests, 'login page', '/login');
    const { threadId, state } = await run({ project_id: withTests });
    expect(state.error).toBeNull();
    expect(state.codebase_summary).toMatch(/no code was analysed: code analysis failed \(path is not a directory: .*package\.json\)$/);
    expect(state.test_results.map((r) => r.status)).toEqual(['PASSED']);
    const logs = (await server.runtime.deps.runGraph!.events.after(threadId, 0, 1000)).filter((e) => e.type === 'log').map((e) => e.data);
    expect(logs).toContainEqual(expect.objectContaining({ level: 'warn', message: expect.stringMatching(/^code analysis failed: path is not a directory: .*; continuing with the 1 stored test$/) }));

    const noTests = await project(file);
    const failed = (await run({ project_id: noTests })).state;
    expect(failed.error).toMatch(/^analyze_code failed: path is not a directory: .*package\.json$/);
    expect(failed.test_plan).toEqual([]);
  });

  it("without a codebase it may read, a run uses the project's latest codebase the knowledge worker analysed", async () => {
    // A remote repository this server cannot read: what a Lambda deployment sees for every project.
    const p = await project('https://github.com/acme/shop.git');
    await apiTest(p, 'login page', '/login');
    const files = await Promise.all(['src/server.js', 'src/routes/items.js', 'src/routes/login.js', 'src/routes/form.js', 'package.json'].map(async (path) => ({ path, content: await readFile(`${repo}/${path}`, 'utf8') })));
    const queued = await api.post('/api/analyze', { project_id: p, files, async: true, commit_sha: 'c0ffee1' });
    expect(queued.status, queued.text).toBe(202);
    for (let i = 0; (await api.get(`/api/analyze/${queued.body.id}`)).body.status === 'queued'; i++) {
      if (i > 200) throw new Error('the knowledge worker did not analyse the upload');
      await server.runtime.events.drain();
    }
    const { state } = await run({ project_id: p });
    expect(state.codebase_summary).toContain(`Analysed inline upload at commit c0ffee1 (ingestion ${queued.body.id}, analysed `);
    expect(state.codebase_summary).toContain('this server could not read the code itself: the repository https://github.com/acme/shop.git is not a local folder');
    expect(state.testable_surfaces.filter((s) => s.kind !== 'stored_test').length).toBe(10);
    expect(state.test_results.map((r) => r.status)).toEqual(['PASSED']);
  });
});
