/**
 * The comparison a finished run's outcomes say (commit status, notifications, automation
 * callback, Slack reply), over a real store on the local file table: made once per run
 * with the compare endpoint's default base, nothing for a project's first run or a
 * cancelled run, and — when the store cannot be read — nothing either, with a warning, so
 * the outcome still goes out. Then the words: the line names up to three new failures,
 * the commit status tells new failures from those already failing, from failing new
 * tests and from quarantined ones.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createStore, type Store, type TestRun } from '@svc/core/store/index';
import { systemClock } from '@svc/core/ports/clock';
import type { Logger } from '@svc/core/ports/logger';
import { uuidv7 } from '@svc/core/ids';
import { outcomeComparison } from '@svc/core/reporting/outcome-comparison';
import { runComparisonOf } from '@svc/core/reporting/run-compare-source';
import { compareCounts, comparisonLine, failedBreakdown, fixedSuffix } from '@svc/core/reporting/outcome-comparison-text';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';

const ORG = 'org-outcomes';
let store: Store;
let projectId: string;
const tests = Object.fromEntries(['cart', 'checkout', 'search', 'login', 'profile', 'invoice'].map((n) => [n, uuidv7()]));

/** A finished run of the project with these outcomes (metadata.quarantined marks a quarantined test). */
async function runWith(outcomes: Array<[keyof typeof tests, 'passed' | 'failed', string?]>, status: 'completed' | 'cancelled' = 'completed'): Promise<TestRun> {
  const run = await store.testRuns.create(ORG, { project_id: projectId, trigger: 'api', total_tests: outcomes.length });
  for (const [name, outcome, quarantined] of outcomes) {
    await store.testRuns.recordResult(ORG, { test_id: tests[name], test_run_id: run.id, status: outcome, duration_ms: 10, error_message: outcome === 'failed' ? 'boom' : null, screenshots: [], metadata: { name, ...(quarantined ? { quarantined } : {}) } });
  }
  const failed = outcomes.filter(([, o]) => o === 'failed').length;
  return store.testRuns.setStatus(ORG, run.id, status, { completed_at: new Date().toISOString(), passed_tests: outcomes.length - failed, failed_tests: failed });
}

function recordingLogger() {
  const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const logger: Logger = { debug() {}, info() {}, error() {}, warn: (message, fields) => void warnings.push({ message, fields }) };
  return { logger, warnings };
}

beforeAll(async () => {
  store = createStore(new FileTable(), systemClock);
  projectId = (await store.projects.create(ORG, { name: 'shop' })).id;
});

describe('the comparison of a finished run', () => {
  let first: TestRun;
  let second: TestRun;

  it("is none for a project's first run", async () => {
    first = await runWith([['cart', 'passed'], ['checkout', 'passed'], ['search', 'failed']]);
    expect(await outcomeComparison(store, ORG)(first)).toBeUndefined();
  });

  it('is the compare endpoint\'s, against the previous finished run, made once for every outcome that asks', async () => {
    second = await runWith([['cart', 'passed'], ['checkout', 'failed'], ['search', 'passed']]);
    const comparison = outcomeComparison(store, ORG);
    const [a, b] = await Promise.all([comparison(second), comparison(second)]);
    expect(a).toBe(b);
    expect(a).toEqual(await runComparisonOf(store, ORG, second));
    expect(compareCounts(a!)).toEqual({ base_run_id: first.id, new_failures: 1, fixed: 1, still_failing: 0 });
    expect(comparisonLine(a!)).toBe('vs previous run: 1 new failure (checkout), 1 fixed');
  });

  it('is none for a cancelled run (its missing tests are not removed ones)', async () => {
    const cancelled = await runWith([['cart', 'failed']], 'cancelled');
    expect(await outcomeComparison(store, ORG)(cancelled)).toBeUndefined();
  });

  it('is none, with a warning, when the runs cannot be read: the outcome goes out without it', async () => {
    // The same store whose results read fails, as a table that is down would.
    const failing: Store = { ...store, testRuns: { ...store.testRuns, results: async () => Promise.reject(new Error('the table is unreachable')) } };
    const { logger, warnings } = recordingLogger();
    expect(await outcomeComparison(failing, ORG, logger)(second)).toBeUndefined();
    expect(warnings).toEqual([{ message: 'comparing a finished run with its previous run failed: its outcome goes out without the comparison', fields: { run_id: second.id, error: 'the table is unreachable' } }]);
  });
});

describe('the words', () => {
  it('the line names three new failures and counts the rest; a quarantined one is said apart', async () => {
    await runWith([['cart', 'passed'], ['checkout', 'passed'], ['search', 'passed'], ['login', 'passed'], ['profile', 'passed'], ['invoice', 'passed']]);
    const run = await runWith([['cart', 'failed'], ['checkout', 'failed'], ['search', 'failed'], ['login', 'failed'], ['profile', 'passed'], ['invoice', 'failed', 'flaky upstream']]);
    const compared = (await outcomeComparison(store, ORG)(run))!;
    expect(comparisonLine(compared)).toBe('vs previous run: 4 new failures (cart, checkout, login and 1 more) (+1 quarantined), 0 fixed');
    expect(failedBreakdown(compared, 1)).toBe(' (4 new, 1 quarantined)');
    expect(fixedSuffix(compared)).toBe('');
  });

  it('the commit status tells new failures from those already failing, from failing new tests, and names the fixed', async () => {
    const other = (await store.projects.create(ORG, { name: 'blog' })).id;
    const base = await store.testRuns.create(ORG, { project_id: other, trigger: 'api' });
    await store.testRuns.recordResult(ORG, { test_id: tests.cart, test_run_id: base.id, status: 'failed', duration_ms: 1, error_message: 'x', screenshots: [], metadata: { name: 'cart' } });
    await store.testRuns.recordResult(ORG, { test_id: tests.login, test_run_id: base.id, status: 'failed', duration_ms: 1, error_message: 'x', screenshots: [], metadata: { name: 'login' } });
    await store.testRuns.setStatus(ORG, base.id, 'failed', { error: 'the browser crashed' }); // failed runs are bases too
    const run = await store.testRuns.create(ORG, { project_id: other, trigger: 'api' });
    for (const [name, status] of [['cart', 'failed'], ['login', 'passed'], ['search', 'failed']] as const) {
      await store.testRuns.recordResult(ORG, { test_id: tests[name], test_run_id: run.id, status, duration_ms: 1, error_message: null, screenshots: [], metadata: { name } });
    }
    const done = await store.testRuns.setStatus(ORG, run.id, 'completed');
    const compared = (await outcomeComparison(store, ORG)(done))!;
    expect(compared.base_run_id).toBe(base.id);
    expect(failedBreakdown(compared, 0)).toBe(' (1 already failing, 1 new test)');
    expect(fixedSuffix(compared)).toBe(' · 1 fixed');
    expect(failedBreakdown(undefined, 2)).toBe(' (2 quarantined)'); // no comparison: as before comparisons
    expect(failedBreakdown(undefined, 0)).toBe('');
  });
});
