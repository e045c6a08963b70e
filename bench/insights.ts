/**
 * npm run bench:insights — what asking for an insight costs. Insights are computed when
 * asked from a project's stored runs (docs/insights.md), so their cost grows with the
 * window. Seeds one project of 100 tests with 100 finished runs (every test in every run,
 * results shaped as the run graph stores them: steps, diagnostics, pages visited; a few
 * flaky and broken tests) and a discovery session of 40 pages, on the local file table
 * and on DynamoDB Local, then times each endpoint's computation (median of 7) over a
 * window of 30 runs (the default) and 100 runs.
 * Prints a table and writes bench/results/insights.json. No target is set by an issue.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createStore, type Store } from '../packages/core/src/store/index.ts';
import { insightsService } from '../packages/core/src/services/insights.ts';
import { CoverageGapsQuery, CoverageQuery, FlakyRankingQuery, HeatmapQuery, InsightWindowQuery } from '../packages/core/src/contracts/insights.ts';
import { uuidv7 } from '../packages/core/src/ids.ts';
import type { Clock } from '../packages/core/src/ports/clock.ts';
import type { Table } from '../packages/core/src/ports/table.ts';
import { FileTable } from '../packages/functions/src/local/file-table.ts';
import { DynamoDbTable, ensureTable } from '../packages/functions/src/aws/dynamodb-table.ts';
import { localClient, startDynamoDbLocal } from '../test/support/dynamodb-local.ts';

const TESTS = 100;
const RUNS = 100;
const PAGES = 40;
const ROUNDS = 7;

let time = Date.now() - RUNS * 3_600_000;
const clock: Clock = { now: () => new Date(time) };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A result's metadata as the run graph stores it for an 8-step UI test. */
function metadata(name: string, i: number) {
  return {
    name,
    type: 'ui',
    attempt: 1,
    steps: Array.from({ length: 8 }, (_, s) => ({ index: s, type: s ? 'click' : 'goto', description: s ? `click "#button-${s}"` : 'goto "/page"', status: 'passed', duration_ms: 40 + s })),
    console_errors: [],
    failed_requests: [],
    pages_visited: [`http://127.0.0.1:3000/page-${i % PAGES}`, `http://127.0.0.1:3000/page-${(i + 1) % PAGES}`],
    assertions_passed: 2,
    assertions_failed: 0,
  };
}

async function seed(store: Store) {
  const org = uuidv7();
  const project = (await store.projects.create(org, { name: 'bench', app_url: 'http://127.0.0.1:3000' })).id;
  const tests: string[] = [];
  for (let i = 0; i < TESTS; i++) tests.push((await store.tests.create(org, { project_id: project, name: `test ${i}`, description: null, type: 'ui', steps: [{ type: 'goto', url: `/page-${i % PAGES}` }] as never, assertions: [], priority: 'medium', tags: [] })).id);
  for (let r = 0; r < RUNS; r++) {
    const run = await store.testRuns.create(org, { project_id: project, trigger: 'schedule', total_tests: TESTS });
    await store.testRuns.setStatus(org, run.id, 'running', { started_at: clock.now().toISOString() });
    // Ten writers at a time, as parallel workers would.
    for (let i = 0; i < TESTS; i += 10) {
      await Promise.all(
        tests.slice(i, i + 10).map((testId, k) => {
          const t = i + k;
          const failed = t < 5 ? (r + t) % 2 === 0 : t < 8 ? r > RUNS / 2 : false; // 5 flaky, 3 broken half way
          return store.testRuns.recordResult(org, { test_id: testId, test_run_id: run.id, status: failed ? 'failed' : 'passed', duration_ms: 900 + t, error_message: failed ? `step 3 (click "#button-3"): element not found` : null, screenshots: [], metadata: metadata(`test ${t}`, t) });
        }),
      );
    }
    time += 600_000;
    await store.testRuns.setStatus(org, run.id, 'completed', { completed_at: clock.now().toISOString() });
    time += 3_000_000;
  }
  const session = await store.discovery.createSession(org, { project_id: project, name: 'crawl', start_url: 'http://127.0.0.1:3000/', mode: 'dom_only', strategy: 'priority', max_pages: PAGES + 10 });
  await store.discovery.putPages(org, session.id, Array.from({ length: PAGES + 10 }, (_, p) => ({ id: uuidv7(), discovery_session_id: session.id, url: `http://127.0.0.1:3000/page-${p}`, page_type: 'detail', screenshot_url: null, element_count: 10, importance_score: 0.5, risk_score: 0.4 })));
  await store.discovery.updateSession(org, session.id, { status: 'completed', completed_at: clock.now().toISOString() });
  return { org, project };
}

async function measure(label: string, table: Table) {
  const store = createStore(table, clock);
  const t0 = performance.now();
  const { org, project } = await seed(store);
  const seedMs = performance.now() - t0;
  const insights = insightsService({ store, clock });
  const rows: Array<{ store: string; insight: string; runs: number; ms: number }> = [];
  for (const runs of [30, 100]) {
    const w = { project_id: project, runs };
    const cases: Array<[string, () => Promise<unknown>]> = [
      ['quality score', () => insights.qualityScore(org, CoverageQuery.parse(w))],
      ['flaky ranking', () => insights.flakyRanking(org, FlakyRankingQuery.parse(w))],
      ['failure heatmap', () => insights.heatmap(org, HeatmapQuery.parse(w))],
      ['timeline', () => insights.timeline(org, InsightWindowQuery.parse(w))],
      ['coverage gaps', () => insights.coverageGaps(org, CoverageGapsQuery.parse(w))],
    ];
    for (const [insight, work] of cases) {
      const ms: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const s = performance.now();
        await work();
        ms.push(performance.now() - s);
      }
      rows.push({ store: label, insight, runs, ms: Math.round(median(ms)) });
    }
  }
  const check = await insights.flakyRanking(org, FlakyRankingQuery.parse({ project_id: project, runs: 100 }));
  if (check.flaky_tests !== 5) throw new Error(`expected the 5 seeded flaky tests, found ${check.flaky_tests}`);
  return { rows, seedMs: Math.round(seedMs) };
}

const results: Array<{ store: string; insight: string; runs: number; ms: number }> = [];
const seeding: Record<string, number> = {};

const file = await measure('file table', new FileTable());
results.push(...file.rows);
seeding['file table'] = file.seedMs;

const ddb = await startDynamoDbLocal();
try {
  const client = localClient(ddb.endpoint);
  await ensureTable(client, 'bench-insights');
  const dynamo = await measure('DynamoDB Local', new DynamoDbTable({ tableName: 'bench-insights', client }));
  results.push(...dynamo.rows);
  seeding['DynamoDB Local'] = dynamo.seedMs;
  client.destroy();
} finally {
  await ddb.stop();
}

console.log(`\nInsights over one project: ${TESTS} tests, ${RUNS} finished runs (${TESTS * RUNS} results), ${PAGES + 10} discovered pages; median of ${ROUNDS}\n`);
console.log('| store | insight | window 30 runs (ms) | window 100 runs (ms) |');
console.log('|---|---|---:|---:|');
for (const store of ['file table', 'DynamoDB Local']) {
  for (const insight of [...new Set(results.map((r) => r.insight))]) {
    const at = (runs: number) => results.find((r) => r.store === store && r.insight === insight && r.runs === runs)?.ms;
    console.log(`| ${store} | ${insight} | ${at(30)} | ${at(100)} |`);
  }
}
const out = { tests: TESTS, runs: RUNS, results: results.length ? results : [], seedingMs: seeding };
console.log(`\n${JSON.stringify(out)}`);
await mkdir(resolve('bench/results'), { recursive: true });
await writeFile(resolve('bench/results/insights.json'), `${JSON.stringify(out, null, 2)}\n`);
