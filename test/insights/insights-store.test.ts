/**
 * Insights computed from a store, on both Table adapters (the local file table and
 * DynamoDB Local): runs and results recorded through the repositories as the run graph
 * records them, a discovery session's pages, model usage rows. Checks each number the
 * endpoints answer with against what the recorded history says: flips, retries within a
 * run, an edit of a test between runs, days and runs as columns, the runs window and
 * `since`, runs still going left out, coverage through goto steps (templated too) and
 * through pages the browser was on, the quality score's parts and weights, model spend by
 * project and organization, and other organizations that see nothing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createStore, type Store } from '@svc/core/store/index';
import { insightsService } from '@svc/core/services/insights';
import { FlakyRankingQuery, HeatmapQuery, InsightWindowQuery, CoverageGapsQuery, CoverageQuery, CostBreakdownQuery } from '@svc/core/contracts/insights';
import { QUALITY_WEIGHTS } from '@svc/core/insights/quality-score';
import { uuidv7 } from '@svc/core/ids';
import type { Clock } from '@svc/core/ports/clock';
import type { Table } from '@svc/core/ports/table';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { useDynamoDbLocal } from '../support/dynamodb-local.ts';

const ddb = useDynamoDbLocal('insights');
const adapters: Array<[string, () => Promise<Table>]> = [
  ['FileTable', async () => new FileTable()],
  ['DynamoDbTable', () => ddb.freshTable()],
];

type Outcome = 'passed' | 'failed' | 'healed' | 'skipped';

/** 09:00 UTC twenty days ago: near enough to now that the store's TTLs (real time) keep the rows. */
const START = (() => {
  const d = new Date(Date.now() - 20 * 86_400_000);
  d.setUTCHours(9, 0, 0, 0);
  return d.getTime();
})();
const day = (n: number) => new Date(START + n * 86_400_000).toISOString().slice(0, 10);

for (const [adapter, makeTable] of adapters) {
  describe(`insights on ${adapter}`, () => {
    let time = START;
    const clock: Clock = { now: () => new Date(time) };
    const hours = (n: number) => (time += n * 3_600_000);
    let store: Store;
    let insights: ReturnType<typeof insightsService>;
    const org = uuidv7();
    const other = uuidv7();
    let project: string;
    const ids: Record<string, string> = {};

    const test = async (name: string, steps: unknown[] = [], type: 'ui' | 'api' = 'ui') => {
      const t = await store.tests.create(org, { project_id: project, name, description: null, type, steps: steps as never, assertions: [], priority: 'medium', tags: [] });
      ids[name] = t.id;
      return t;
    };

    /** A finished run: each test's attempts in order, the last being the outcome. */
    const run = async (outcomes: Record<string, Outcome | Outcome[]>, extra: Record<string, Record<string, unknown>> = {}) => {
      const r = await store.testRuns.create(org, { project_id: project, trigger: 'ci', total_tests: Object.keys(outcomes).length });
      await store.testRuns.setStatus(org, r.id, 'running', { started_at: clock.now().toISOString() });
      for (const [name, o] of Object.entries(outcomes)) {
        const attempts = Array.isArray(o) ? o : [o];
        for (const [i, status] of attempts.entries()) {
          await store.testRuns.recordResult(org, {
            test_id: ids[name], test_run_id: r.id, status, duration_ms: 1000, error_message: status === 'failed' ? `${name} broke` : null, screenshots: [],
            metadata: { name, ...(extra[name] ?? {}) }, attempt: i + 1,
          });
        }
      }
      hours(0.5);
      await store.testRuns.setStatus(org, r.id, 'completed', { completed_at: clock.now().toISOString() });
      hours(5.5);
      return r;
    };

    const window = (q: Record<string, unknown> = {}) => InsightWindowQuery.parse({ project_id: project, ...q });

    afterAll(async () => {
      await store?.table.close?.();
    });

    it('records a history: five runs over three days', async () => {
      store = createStore(await makeTable(), clock);
      insights = insightsService({ store, clock });
      project = (await store.projects.create(org, { name: 'shop', app_url: 'http://shop.test:8080' })).id;
      await test('checkout', [{ type: 'goto', url: '/checkout' }]);
      await test('login', [{ type: 'goto', url: '/login' }]);
      await test('search', [{ type: 'goto', url: '{{env.BASE}}/search/{{term}}' }]);
      await test('broken');
      await test('api health', [{ type: 'request', method: 'GET', url: '/api/health' }], 'api');

      await run({ checkout: 'passed', login: 'passed', search: 'passed', broken: 'passed', 'api health': 'passed' }); // day 1 09:00
      await run({ checkout: 'failed', login: 'passed', search: ['failed', 'passed'], broken: 'passed', 'api health': 'passed' }); // day 1 15:00
      await run({ checkout: 'passed', login: 'healed', search: 'passed', broken: 'failed', 'api health': 'skipped' }); // day 1 21:00
      hours(24);
      await run({ checkout: 'failed', login: 'passed', search: 'passed', broken: 'failed', 'api health': 'passed' }, { login: { pages_visited: ['http://127.0.0.1:3000/login', 'http://127.0.0.1:3000/account#/settings'] } }); // day 3 03:00
      await run({ checkout: 'passed', login: 'passed', search: 'passed', broken: 'failed', 'api health': 'passed' }); // day 3 09:00

      // A run still going is not read: its results are not all in.
      const going = await store.testRuns.create(org, { project_id: project, trigger: 'ci' });
      await store.testRuns.setStatus(org, going.id, 'running');
      await store.testRuns.recordResult(org, { test_id: ids.checkout, test_run_id: going.id, status: 'failed', duration_ms: 1, error_message: 'x', screenshots: [], metadata: {} });
    });

    it('ranks flaky tests: two flips or a retry, not one change', async () => {
      const ranking = await insights.flakyRanking(org, FlakyRankingQuery.parse({ project_id: project }));
      expect(ranking.window).toMatchObject({ runs: 5, executions: 25 });
      expect(ranking.tests_executed).toBe(5);
      expect(ranking.items.map((i) => [i.name, i.flaky])).toEqual([
        ['checkout', true], // P F P F P: four flips in four chances
        ['search', true], // failed then passed within run 2
        ['broken', false], // P P P F F: one change, a regression
      ]);
      const [checkout, search, broken] = ranking.items;
      expect(checkout).toMatchObject({ flakiness: 1, flips: 4, executions: 5, passed: 3, failed: 2, history: 'PFPFP', last_status: 'passed', last_error: 'checkout broke', pass_rate: 0.6 });
      expect(checkout.last_failure_at).not.toBeNull();
      expect(search).toMatchObject({ flakiness: 0, flips: 0, retry_flakes: 1, history: 'PPPPP' });
      expect(search.reasons[0]).toBe('passed on a retry after failing in 1 run');
      expect(broken).toMatchObject({ flips: 1, flakiness: 0.25, history: 'PPFFF' });
      expect(broken.reasons).toContain('one change, to failing: a regression, not flakiness');
      expect(ranking.flaky_tests).toBe(2);
      // healed counts as passing: login never changed outcome
      expect(ranking.items.find((i) => i.name === 'login')).toBeUndefined();
    });

    it('the window: the latest N runs, and nothing before since', async () => {
      const two = await insights.flakyRanking(org, FlakyRankingQuery.parse({ project_id: project, runs: 2 }));
      expect(two.window.runs).toBe(2);
      expect(two.items.map((i) => i.name)).toEqual(['checkout']); // F P in the last two
      const day3 = await insights.timeline(org, window({ since: day(2) }));
      expect(day3.runs).toHaveLength(2);
      expect(day3.window.from?.startsWith(day(2))).toBe(true);
    });

    it('a failure heatmap by day and by run', async () => {
      const byDay = await insights.heatmap(org, HeatmapQuery.parse({ project_id: project }));
      expect(byDay.columns.map((c) => [c.key, c.executions, c.failures])).toEqual([
        [day(0), 14, 2], // 15 executions, one skipped
        [day(2), 10, 3],
      ]);
      expect(byDay.rows.map((r) => [r.name, r.failures])).toEqual([['broken', 3], ['checkout', 2], ['api health', 0], ['login', 0], ['search', 0]]);
      expect(byDay.rows[0]).toMatchObject({ name: 'broken', failures: 3, executions: 5, cells: [{ executions: 3, failures: 1 }, { executions: 2, failures: 2 }] });
      // a skipped execution is "did not run": api health has 0 of 2 on day 1
      expect(byDay.rows.find((r) => r.name === 'api health')?.cells[0]).toEqual({ executions: 2, failures: 0 });

      const byRun = await insights.heatmap(org, HeatmapQuery.parse({ project_id: project, bucket: 'run', limit: 1 }));
      expect(byRun.columns).toHaveLength(5);
      expect(byRun.rows).toHaveLength(1);
      expect(byRun.total_rows).toBe(5);
      expect(byRun.rows[0].cells.map((c) => c.failures)).toEqual([0, 0, 1, 1, 1]);
    });

    it('a timeline of runs and days', async () => {
      const t = await insights.timeline(org, window());
      expect(t.runs.map((r) => [r.executed, r.passed, r.failed, r.healed, r.skipped])).toEqual([
        [5, 5, 0, 0, 0],
        [5, 4, 1, 0, 0],
        [5, 3, 1, 1, 1],
        [5, 3, 2, 0, 0],
        [5, 4, 1, 0, 0],
      ]);
      expect(t.runs[0]).toMatchObject({ duration_ms: 30 * 60_000, pass_rate: 1, trigger: 'ci', status: 'completed' });
      expect(t.runs[2].pass_rate).toBe(0.75);
      expect(t.days).toEqual([
        { date: day(0), runs: 3, executed: 15, passed: 12, failed: 2, pass_rate: 0.857, median_run_ms: 1_800_000 },
        { date: day(2), runs: 2, executed: 10, passed: 7, failed: 3, pass_rate: 0.7, median_run_ms: 1_800_000 },
      ]);
    });

    it('coverage without a discovery session: endpoints only, coverage not measured', async () => {
      const map = await insights.coverageMap(org, CoverageQuery.parse({ project_id: project }));
      expect(map.discovery_session_id).toBeNull();
      expect(map.pages).toEqual([]);
      expect(map.summary.coverage).toBeNull();
      expect(map.endpoints).toEqual([{ method: 'GET', url: '/api/health', tests: [{ test_id: ids['api health'], name: 'api health' }] }]);
      expect(map.visited_elsewhere).toEqual(['/account#/settings', '/login']);

      const score = await insights.qualityScore(org, CoverageQuery.parse({ project_id: project }));
      expect(score.components.find((c) => c.name === 'coverage')).toMatchObject({ score: null, weight: 0 });
      expect(score.components.find((c) => c.name === 'coverage')?.detail).toMatch(/no completed discovery session/);
    });

    it('coverage of the latest completed discovery: goto steps, templated ones and visited pages', async () => {
      const old = await store.discovery.createSession(org, { project_id: project, name: 'old', start_url: 'http://shop.test/', mode: 'dom_only', strategy: 'priority', max_pages: 10 });
      await store.discovery.updateSession(org, old.id, { status: 'completed', completed_at: clock.now().toISOString() });
      await store.discovery.putPages(org, old.id, [page(old.id, 'http://shop.test/old-only', 'landing', 0.1, 0.1)]);
      const latest = await store.discovery.createSession(org, { project_id: project, name: 'latest', start_url: 'http://shop.test/', mode: 'dom_only', strategy: 'priority', max_pages: 10 });
      await store.discovery.updateSession(org, latest.id, { status: 'completed', completed_at: clock.now().toISOString() });
      await store.discovery.putPages(org, latest.id, [
        page(latest.id, 'http://shop.test/checkout', 'checkout', 0.9, 0.9),
        page(latest.id, 'http://shop.test/login/', 'auth', 0.8, 0.7),
        page(latest.id, 'http://shop.test/search/shoes?sort=price', 'list', 0.5, 0.5),
        page(latest.id, 'http://shop.test/account#/settings', 'form', 0.4, 0.6),
        page(latest.id, 'http://shop.test/admin', 'form', 0.7, 0.8),
        page(latest.id, 'http://shop.test/about', 'landing', 0.1, 0.2),
      ]);
      // A newer session still running is not the map.
      await store.discovery.createSession(org, { project_id: project, name: 'running', start_url: 'http://shop.test/', mode: 'dom_only', strategy: 'priority', max_pages: 10 });

      const map = await insights.coverageMap(org, CoverageQuery.parse({ project_id: project }));
      expect(map.discovery_session_id).toBe(latest.id);
      const state = Object.fromEntries(map.pages.map((p) => [new URL(p.url).pathname + new URL(p.url).hash, p.state]));
      expect(state).toEqual({
        '/checkout': 'covered', // its test passed in the latest run
        '/login/': 'covered', // trailing slash, and login's goto
        '/search/shoes': 'covered', // {{env.BASE}}/search/{{term}}
        '/account#/settings': 'covered', // the browser went there during login's run
        '/admin': 'uncovered',
        '/about': 'uncovered',
      });
      expect(map.pages.find((p) => p.url.endsWith('/login/'))?.tests.map((t) => t.name)).toEqual(['login']);
      expect(map.summary).toEqual({ pages: 6, covered: 4, failing: 0, declared: 0, uncovered: 2, coverage: 0.667 });
      expect(map.visited_elsewhere).toEqual([]);

      const asOld = await insights.coverageMap(org, CoverageQuery.parse({ project_id: project, discovery_session_id: old.id }));
      expect(asOld.pages.map((p) => p.state)).toEqual(['uncovered']);

      const gaps = await insights.coverageGaps(org, CoverageGapsQuery.parse({ project_id: project }));
      // /admin: 0.5 × risk 0.8 + 0.4 × importance 0.7 + 0.2 for a sensitive area = 0.88
      expect(gaps.items.map((g) => [new URL(g.url).pathname, g.state, g.priority, g.risk_score])).toEqual([
        ['/admin', 'uncovered', 'CRITICAL', 0.88],
        ['/about', 'uncovered', 'LOW', 0.14],
      ]);
      expect(gaps.items[0].reasons).toContain('no test goes here');
      expect(gaps.items[0].reasons).toContain('sensitive area (auth, payment, account or admin)');
      expect(gaps).toMatchObject({ total: 2, pages: 6, discovery_session_id: latest.id });
    });

    it('a test that goes to a page but did not run in the window is declared, and a gap', async () => {
      await test('admin panel', [{ type: 'goto', url: 'http://elsewhere.test/admin' }]);
      const map = await insights.coverageMap(org, CoverageQuery.parse({ project_id: project }));
      expect(map.pages.find((p) => p.url.endsWith('/admin'))).toMatchObject({ state: 'declared', tests: [{ test_id: ids['admin panel'], name: 'admin panel' }] });
      const gaps = await insights.coverageGaps(org, CoverageGapsQuery.parse({ project_id: project, limit: 1 }));
      expect(gaps.items).toHaveLength(1);
      expect(gaps.total).toBe(2);
      expect(gaps.items[0]).toMatchObject({ state: 'declared' });
      expect(gaps.items[0].reasons).toContain('a test goes here but did not run in the window');
    });

    it('a quality score from its parts, with what costs most first', async () => {
      const score = await insights.qualityScore(org, CoverageQuery.parse({ project_id: project }));
      const part = (n: string) => score.components.find((c) => c.name === n)!;
      // 24 executions decided (one skipped): 5 failed; 2 of 5 tests flaky; 1 healed; 4 of 6 pages reached
      expect(part('pass_rate')).toMatchObject({ score: 79.2, detail: '19 of 24 executions passed', weight: 0.35 });
      expect(part('stability')).toMatchObject({ score: 60, detail: '2 of 5 tests flaky' });
      expect(part('maintenance')).toMatchObject({ score: 95.8 });
      expect(part('coverage')).toMatchObject({ score: 66.7, detail: '4 of 6 discovered pages visited by a test in the window' });
      const expected = QUALITY_WEIGHTS.pass_rate * 79.2 + QUALITY_WEIGHTS.stability * 60 + QUALITY_WEIGHTS.maintenance * 95.8 + QUALITY_WEIGHTS.coverage * 66.7;
      expect(score.score).toBeCloseTo(expected, 0);
      expect(score.score).toBe(73.8);
      expect(score.grade).toBe('C');
      // biggest loss first: stability 0.25 × 40, coverage 0.25 × 33.3, pass rate 0.35 × 20.8, maintenance 0.15 × 4.2
      expect(score.reasons.slice(0, 3)).toEqual([
        '2 flaky tests (checkout, search): −10 points',
        '2 of 6 discovered pages not tested in the window (http://shop.test/admin, http://shop.test/about): −8.3 points',
        '5 of 24 executions failed (checkout, broken): −7.3 points',
      ]);
      expect(score.reasons.at(-1)).toMatch(/passed only after healing a locator/);

      time += 10 * 86_400_000;
      const stale = await insights.qualityScore(org, CoverageQuery.parse({ project_id: project }));
      expect(stale.reasons.at(-1)).toMatch(/latest run is more than 7 days old/);
    });

    it('model spend by day, model, task and run; a project sees its runs only', async () => {
      const runs = await store.testRuns.listForProject(project, 2);
      const [r1, r2] = runs.items;
      const otherProject = (await store.projects.create(org, { name: 'other' })).id;
      const theirs = await store.testRuns.create(org, { project_id: otherProject, trigger: 'api' });
      const usage = (run_id: string | null, model: string, task_type: string, cost_usd: number) =>
        store.aiUsage.record({ organization_id: org, run_id, test_id: null, model, input_tokens: 1000, output_tokens: 100, cost_usd, task_type, provider: 'openai', complexity: 'SIMPLE', tier: 'cheap' });
      await usage(r1.id, 'gpt-4o-mini', 'heal_selector', 0.01);
      await usage(r1.id, 'gpt-4o', 'plan_tests', 0.25);
      hours(24);
      await usage(r2.id, 'gpt-4o-mini', 'heal_selector', 0.02);
      await usage(theirs.id, 'gpt-4o', 'plan_tests', 1);
      await usage(null, 'claude-haiku', 'generate_test', 0.5);

      const mine = await insights.costBreakdown(org, CostBreakdownQuery.parse({ project_id: project }));
      expect(mine.total).toEqual({ requests: 3, input_tokens: 3000, output_tokens: 300, cost_usd: 0.28 });
      expect(mine.by_model.map((m) => [m.model, m.requests, m.cost_usd])).toEqual([['gpt-4o', 1, 0.25], ['gpt-4o-mini', 2, 0.03]]);
      expect(mine.by_task.map((t) => t.task_type)).toEqual(['plan_tests', 'heal_selector']);
      expect(mine.by_run.map((r) => [r.run_id, r.cost_usd])).toEqual([[r1.id, 0.26], [r2.id, 0.02]]);
      expect(mine.by_day.map((d) => [d.date, d.requests])).toHaveLength(2);
      expect(mine.outside_runs.requests).toBe(0);

      const all = await insights.costBreakdown(org, CostBreakdownQuery.parse({}));
      expect(all.total.cost_usd).toBe(1.78);
      expect(all.outside_runs).toEqual({ requests: 1, input_tokens: 1000, output_tokens: 100, cost_usd: 0.5 });
      expect(all.project_id).toBeNull();

      const today = await insights.costBreakdown(org, CostBreakdownQuery.parse({ days: 1 }));
      expect(today.total.requests).toBe(3);
      expect(today.from).toBe(today.to);
    });

    it('another organization gets 404 for the project and sees no spend', async () => {
      for (const call of [
        () => insights.flakyRanking(other, FlakyRankingQuery.parse({ project_id: project })),
        () => insights.heatmap(other, HeatmapQuery.parse({ project_id: project })),
        () => insights.timeline(other, window()),
        () => insights.coverageMap(other, CoverageQuery.parse({ project_id: project })),
        () => insights.coverageGaps(other, CoverageGapsQuery.parse({ project_id: project })),
        () => insights.qualityScore(other, CoverageQuery.parse({ project_id: project })),
        () => insights.costBreakdown(other, CostBreakdownQuery.parse({ project_id: project })),
      ]) {
        await expect(call()).rejects.toMatchObject({ code: 'NOT_FOUND' });
      }
      expect((await insights.costBreakdown(other, CostBreakdownQuery.parse({}))).total.requests).toBe(0);
      const session = await store.discovery.listForProject(project, 1);
      const otherProject = (await store.projects.create(other, { name: 'theirs' })).id;
      await expect(insights.coverageMap(other, CoverageQuery.parse({ project_id: otherProject, discovery_session_id: session.items[0].id }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('a project with no runs: no score, and says so', async () => {
      const empty = (await store.projects.create(org, { name: 'empty' })).id;
      const score = await insights.qualityScore(org, CoverageQuery.parse({ project_id: empty }));
      expect(score).toMatchObject({ score: null, grade: null, window: { runs: 0, from: null, to: null, executions: 0 } });
      expect(score.reasons).toContain('no finished run in the window: run the tests to get a score');
      expect((await insights.flakyRanking(org, FlakyRankingQuery.parse({ project_id: empty }))).items).toEqual([]);
      expect((await insights.heatmap(org, HeatmapQuery.parse({ project_id: empty }))).columns).toEqual([]);
    });

    it('a change of outcome across an edit of the test is not a flip', async () => {
      await store.tests.update(org, ids.broken, { steps: [{ type: 'goto', url: '/fixed' }] as never }, { changed_by: 'user:u-1', source: 'edited' });
      hours(1);
      await run({ checkout: 'passed', login: 'passed', search: 'passed', broken: 'passed', 'api health': 'passed' });
      const ranking = await insights.flakyRanking(org, FlakyRankingQuery.parse({ project_id: project }));
      const broken = ranking.items.find((i) => i.name === 'broken')!;
      expect(broken).toMatchObject({ history: 'PPFFF|P', flips: 1, flaky: false, flakiness: 0.25, executions: 6 });
      expect(broken.reasons).toEqual([
        'changed outcome 1 time in 6 executions with no edit of the test',
        'one change, to failing: a regression, not flakiness',
        'its outcome also changed when the test was edited; that change is not counted',
      ]);
    });

    it('a visual baseline accepted between a failure and a pass is a change of the test, as an edit is: not a flake', async () => {
      await test('looks right');
      const put = (hash: string) => store.visualBaselines.put(org, { project_id: project, test_id: ids['looks right'], name: 'page', screenshot_hash: hash, metadata: {} });
      await put('a'.repeat(64)); // recorded on its first run
      hours(1);
      await run({ 'looks right': 'passed' });
      await run({ 'looks right': 'failed' }); // the page changed on purpose
      await put('b'.repeat(64)); // accepted
      hours(1);
      await run({ 'looks right': 'passed' });
      const ranking = await insights.flakyRanking(org, FlakyRankingQuery.parse({ project_id: project }));
      const looks = ranking.items.find((i) => i.name === 'looks right');
      expect(looks).toMatchObject({ history: 'PF|P', flips: 1, flaky: false });
    });
  });
}

function page(sessionId: string, url: string, page_type: string, importance_score: number, risk_score: number) {
  return { id: uuidv7(), discovery_session_id: sessionId, url, page_type, screenshot_url: null, element_count: 3, importance_score, risk_score };
}
