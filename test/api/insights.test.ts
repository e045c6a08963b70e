/**
 * Insights end to end: the local runtime runs real tests against the fixture app (an API
 * test that always passes, one against the fixture's flaky endpoint that passes on odd
 * calls and fails on even ones, and a UI test in Chromium that clicks from the home page
 * to the login page), discovery crawls the app, and the insight endpoints answer from what
 * the runs stored: the flaky test ranks first with its history, the heatmap and timeline
 * count the runs, coverage knows the page the browser reached by a click, the gaps are the
 * pages no test visits, the score adds up. Also bad queries naming their field, another
 * organization's 404, and the MCP tools through the SDK's own client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { client, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let fixture: FixtureApp;
let api: Client;
let stranger: Client;
let authHeaders: Record<string, string>;
let projectId: string;
const testIds: Record<string, string> = {};
const graphRepo = join(import.meta.dirname, '..', 'fixtures', 'graph-repo');

const tests = [
  { name: 'items list', type: 'api', steps: [{ type: 'request', url: '/api/items' }], assertions: [{ type: 'status', equals: 200 }] },
  { name: 'flaky endpoint', type: 'api', steps: [{ type: 'request', url: '/api/flaky/insights' }], assertions: [{ type: 'status', equals: 200 }] },
  { name: 'get started', type: 'ui', steps: [{ type: 'goto', url: '/' }, { type: 'click', selector: '#get-started' }], assertions: [{ type: 'url', contains: '/login' }] },
];

async function runAll(): Promise<string> {
  const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: Object.values(testIds) });
  expect(started.status, started.text).toBe(201);
  const runId = started.body.run.id as string;
  for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 100))) {
    const status = await api.get(`/api/v1/test/status/${runId}`);
    if (['completed', 'failed', 'cancelled'].includes(status.body.run.status)) break;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${status.body.run.status}`);
  }
  return runId;
}

beforeAll(async () => {
  fixture = await startFixtureApp();
  server = await startRunGraphServer();
  const owner = await signUp(server.url, 'insights@example.com');
  api = client(server.url, { token: owner.token, org: owner.orgId });
  authHeaders = { authorization: `Bearer ${owner.token}`, 'x-organization-id': owner.orgId };
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: fixture.url })).body.id;
  for (const t of tests) {
    const created = await api.post('/api/tests', { project_id: projectId, ...t });
    expect(created.status, created.text).toBe(201);
    testIds[t.name] = created.body.id;
  }
  const other = await signUp(server.url, 'other-insights@example.com');
  stranger = client(server.url, { token: other.token, org: other.orgId });

  for (let i = 0; i < 3; i++) await runAll();
  const crawl = await api.post('/api/v1/discovery/start', { project_id: projectId, max_pages: 6, strategy: 'breadth_first' });
  expect(crawl.status, crawl.text).toBe(202);
  for (let i = 0; ; i++) {
    const s = await api.get(`/api/discovery/${crawl.body.id}`);
    if (s.body.status === 'completed') break;
    if (i > 240 || !['pending', 'running'].includes(s.body.status)) throw new Error(`discovery ended ${s.body.status}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}, 180_000);
afterAll(async () => {
  await server?.stop();
  await fixture?.close();
});

describe('insights of real runs', () => {
  it('ranks the flaky endpoint\'s test first, with its history', async () => {
    const res = await api.get(`/api/quality/flaky-ranking?project_id=${projectId}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.window).toMatchObject({ runs: 3, executions: 9 });
    expect(res.body.tests_executed).toBe(3);
    expect(res.body.flaky_tests).toBe(1);
    expect(res.body.items).toHaveLength(1);
    expect(res.body.items[0]).toMatchObject({ test_id: testIds['flaky endpoint'], name: 'flaky endpoint', flaky: true, history: 'PFP', flips: 2, flakiness: 1, passed: 2, failed: 1, last_status: 'passed' });
    expect(res.body.items[0].last_error).toMatch(/503/);
  });

  it('a heatmap by run and a timeline', async () => {
    const heat = await api.get(`/api/analytics/heatmap?project_id=${projectId}&bucket=run`);
    expect(heat.status, heat.text).toBe(200);
    expect(heat.body.columns.map((c: { failures: number }) => c.failures)).toEqual([0, 1, 0]);
    expect(heat.body.rows[0]).toMatchObject({ name: 'flaky endpoint', failures: 1, executions: 3 });

    const timeline = await api.get(`/api/analytics/timeline?project_id=${projectId}`);
    expect(timeline.status).toBe(200);
    expect(timeline.body.runs.map((r: { passed: number; failed: number }) => [r.passed, r.failed])).toEqual([[3, 0], [2, 1], [3, 0]]);
    // No test is quarantined: the run with the failure is the failing one.
    expect(timeline.body.runs.map((r: { failing: boolean; quarantined_failed: number }) => [r.failing, r.quarantined_failed])).toEqual([[false, 0], [true, 0], [false, 0]]);
    expect(timeline.body.runs.every((r: { duration_ms: number | null; status: string }) => r.status === 'completed' && r.duration_ms !== null && r.duration_ms > 0)).toBe(true);
    expect(timeline.body.days).toHaveLength(1);
  });

  it('coverage: the page reached by a click counts, and the gaps are the pages no test visits', async () => {
    const results = await api.get(`/api/v1/tests/${(await api.get(`/api/analytics/timeline?project_id=${projectId}&runs=1`)).body.runs[0].run_id}/results`);
    const ui = results.body.items.find((r: { test_id: string }) => r.test_id === testIds['get started']);
    expect(ui.metadata.pages_visited).toEqual([`${fixture.url}/`, `${fixture.url}/login`]);

    const map = await api.get(`/api/coverage/map?project_id=${projectId}`);
    expect(map.status, map.text).toBe(200);
    const state = Object.fromEntries(map.body.pages.map((p: { url: string; state: string }) => [new URL(p.url).pathname, p.state]));
    expect(state['/']).toBe('covered');
    expect(state['/login']).toBe('covered'); // reached by the click, not named by a goto
    expect(map.body.pages.find((p: { url: string }) => new URL(p.url).pathname === '/login').tests).toEqual([{ test_id: testIds['get started'], name: 'get started' }]);
    expect(map.body.summary.pages).toBe(6);
    expect(map.body.summary.covered).toBe(2);
    expect(map.body.endpoints.map((e: { url: string }) => e.url)).toEqual(['/api/flaky/insights', '/api/items']);

    const gaps = await api.get(`/api/coverage/gaps?project_id=${projectId}&limit=2`);
    expect(gaps.status).toBe(200);
    expect(gaps.body.total).toBe(4);
    expect(gaps.body.items).toHaveLength(2);
    const uncovered = Object.entries(state).filter(([, s]) => s === 'uncovered').map(([p]) => p);
    for (const gap of gaps.body.items) {
      expect(uncovered).toContain(new URL(gap.url).pathname);
      expect(gap.suggested_test).toBeTruthy();
    }
    expect(gaps.body.items[0].risk_score).toBeGreaterThanOrEqual(gaps.body.items[1].risk_score);
  });

  it("coverage of the code: the routes of the project's analysed codebase, each with the tests that reach it", async () => {
    const before = await api.get(`/api/coverage/map?project_id=${projectId}`);
    expect(before.body.code).toBeNull(); // nothing analysed yet
    const files = await Promise.all(['src/server.js', 'src/routes/items.js', 'src/routes/login.js', 'src/routes/form.js'].map(async (path) => ({ path, content: await readFile(join(graphRepo, path), 'utf8') })));
    const queued = await api.post('/api/analyze', { project_id: projectId, files, async: true, commit_sha: 'feed5ee' });
    expect(queued.status, queued.text).toBe(202);
    for (let i = 0; (await api.get(`/api/analyze/${queued.body.id}`)).body.status === 'queued'; i++) {
      if (i > 200) throw new Error('the knowledge worker did not analyse the upload');
      await new Promise((r) => setTimeout(r, 50));
    }
    const map = await api.get(`/api/coverage/map?project_id=${projectId}`);
    expect(map.status, map.text).toBe(200);
    const code = map.body.code;
    expect(code).toMatchObject({ ingestion_id: queued.body.id, commit_sha: 'feed5ee', codebase_path: 'inline upload' });
    const state = Object.fromEntries(code.surfaces.map((s: { method: string; path: string; state: string }) => [`${s.method} ${s.path}`, s.state]));
    expect(state).toMatchObject({
      'GET /': 'covered', // the UI test's goto
      'GET /login': 'covered', // where its click led (pages visited)
      'GET /api/items': 'covered', // the API test's request
      'GET /api/items/:id': 'uncovered', // /api/items is not /api/items/<id>
      'POST /api/items': 'uncovered', // a GET does not reach a POST
      'GET /table': 'uncovered',
    });
    expect(code.surfaces.find((s: { method: string; path: string }) => s.method === 'GET' && s.path === '/api/items').tests).toEqual([{ test_id: testIds['items list'], name: 'items list' }]);
    expect(code.summary).toMatchObject({ surfaces: code.surfaces.length, covered: 3 });
    expect(code.summary.coverage).toBe(Math.round((3 / code.surfaces.length) * 1000) / 1000);

    // The gaps of the code, riskiest first as the planner ranks them: a data-changing POST before a GET.
    const gaps = await api.get(`/api/coverage/gaps?project_id=${projectId}&limit=50`);
    expect(gaps.body.code).toMatchObject({ ingestion_id: queued.body.id, total: code.summary.uncovered + code.summary.declared });
    const targets = gaps.body.code.items.map((g: { method: string; path: string }) => `${g.method} ${g.path}`);
    expect(targets).toEqual(expect.arrayContaining(['POST /api/items', 'GET /api/items/:id', 'GET /table']));
    expect(targets).not.toContain('GET /api/items');
    expect(targets.indexOf('POST /login')).toBeLessThan(targets.indexOf('GET /table')); // sensitive and writes data
    const post = gaps.body.code.items.find((g: { method: string; path: string }) => g.method === 'POST' && g.path === '/api/items');
    expect(post).toMatchObject({ state: 'uncovered', file: 'src/routes/items.js', suggested_test: 'call POST /api/items and check status and body' });
    expect(post.reasons).toEqual(expect.arrayContaining(['POST changes data', 'no test reaches it']));
  });

  it('a quality score made of what the runs, the crawl and the analysed code measured', async () => {
    const res = await api.get(`/api/quality/score?project_id=${projectId}`);
    expect(res.status, res.text).toBe(200);
    const part = (n: string) => res.body.components.find((c: { name: string }) => c.name === n);
    expect(part('pass_rate')).toMatchObject({ score: 88.9, detail: '8 of 9 executions passed' });
    expect(part('stability').score).toBe(66.7);
    // Coverage: the mean of the discovered pages' share (2 of 6) and the code's (3 of its surfaces).
    const code = (await api.get(`/api/coverage/map?project_id=${projectId}`)).body.code.summary;
    const coverage = Math.round(((2 / 6 + 3 / code.surfaces) / 2) * 1000) / 10;
    expect(part('coverage').score).toBe(coverage);
    expect(part('coverage').detail).toBe(`2 of 6 discovered pages visited by a test in the window; 3 of ${code.surfaces} routes and pages in the code reached by a test in the window`);
    expect(part('maintenance').score).toBe(100);
    expect(res.body.score).toBe(Math.round((0.35 * 88.9 + 0.25 * 66.7 + 0.25 * coverage + 0.15 * 100) * 10) / 10);
    const coverageReason = res.body.reasons.find((r: string) => r.startsWith('4 of 6 discovered pages not tested in the window'));
    expect(coverageReason).toContain(`; ${code.surfaces - 3} of ${code.surfaces} routes and pages in the code not tested in the window (`);
    expect(coverageReason).toMatch(/POST \/api\/items|GET \/api\/items\/:id|GET \/table/);
  });

  it('model spend: no model is configured here, so nothing was spent', async () => {
    const res = await api.get(`/api/cost/breakdown?project_id=${projectId}&days=7`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ project_id: projectId, total: { requests: 0, cost_usd: 0 }, by_model: [], truncated: false });
  });
});

describe('bad queries and other organizations', () => {
  it('names the field that is wrong', async () => {
    for (const [path, field] of [
      ['/api/quality/score', 'project_id'],
      [`/api/quality/flaky-ranking?project_id=${projectId}&runs=0`, 'runs'],
      [`/api/analytics/heatmap?project_id=${projectId}&bucket=week`, 'bucket'],
      [`/api/analytics/timeline?project_id=${projectId}&since=yesterday`, 'since'],
      [`/api/coverage/gaps?project_id=${projectId}&limit=1000`, 'limit'],
      [`/api/cost/breakdown?days=400`, 'days'],
      [`/api/quality/score?project_id=${projectId}&colour=red`, 'colour'],
    ]) {
      const res = await api.get(path);
      expect(res.status, path).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(res.body.error.details), path).toContain(field);
    }
  });

  it('another organization gets 404 for every insight of the project', async () => {
    for (const path of ['/api/quality/score', '/api/quality/flaky-ranking', '/api/analytics/heatmap', '/api/analytics/timeline', '/api/coverage/map', '/api/coverage/gaps', '/api/cost/breakdown']) {
      const res = await stranger.get(`${path}?project_id=${projectId}`);
      expect(res.status, path).toBe(404);
    }
  });
});

describe('MCP tools', () => {
  it('an assistant reads the score, the flaky tests and the gaps', async () => {
    const agent = new McpClient({ name: 'svc-insights-test', version: '1.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: authHeaders } }));
    try {
      const names = (await agent.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['svc_quality_score', 'svc_flaky_tests', 'svc_coverage_gaps', 'svc_cost_breakdown']));
      const call = async (name: string, args: Record<string, unknown>) => (await agent.callTool({ name, arguments: args })) as CallToolResult;
      const score = await call('svc_quality_score', { project_id: projectId });
      expect(score.isError).toBeFalsy();
      expect(score.structuredContent).toMatchObject({ grade: 'C' });
      const flaky = await call('svc_flaky_tests', { project_id: projectId, limit: 5 });
      expect((flaky.structuredContent as { items: Array<{ name: string }> }).items.map((i) => i.name)).toEqual(['flaky endpoint']);
      const gaps = await call('svc_coverage_gaps', { project_id: projectId });
      expect((gaps.structuredContent as { total: number }).total).toBe(4);
      const bad = await call('svc_quality_score', {});
      expect(bad.isError).toBe(true);
    } finally {
      await agent.close();
    }
  });
});
