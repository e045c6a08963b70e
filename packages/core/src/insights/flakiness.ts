import type { FlakyRankingResponse, FlakyTest } from '../contracts/insights.ts';
import { isPassing, nameOf, type Execution, type RunHistory } from './history.ts';

const LETTER: Record<Execution['status'], string> = { passed: 'P', healed: 'H', failed: 'F', skipped: 'S' };
const round = (n: number) => Math.round(n * 1000) / 1000;

/** Test metadata the ranking reads: a name, and when the test was last changed (edited, or a visual baseline of it accepted). */
export type TestsById = Map<string, { name: string; updated_at: string }>;

/**
 * Flaky tests, most flaky first. A test is flaky when its outcome changes with nothing
 * about it changing: it passed on a retry within one run, or it went from failing back to
 * passing and then failed again (or the reverse) with no edit of the test in between.
 * One change of outcome is a regression or a fix, not flakiness, so it needs two.
 *
 * `flakiness` is the flip rate: changes of outcome between consecutive executions, over
 * the chances to change (executions − 1). A change across an edit of the test (the test's
 * updated_at falls between the two runs) is not counted: the test changed, so did its
 * outcome. We cannot see the application's own deploys, so a page that broke and was
 * fixed twice in the window reads as flaky; the history string shows it.
 */
export function flakyRanking(projectId: string, history: RunHistory, tests: TestsById, limit: number): FlakyRankingResponse {
  const byTest = new Map<string, Execution[]>();
  // Each case of a parameterised test is ranked on its own: one set failing is no flake.
  for (const { executions } of history.runs) for (const e of executions) byTest.set(e.case_id, [...(byTest.get(e.case_id) ?? []), e]);

  const items: FlakyTest[] = [];
  for (const all of byTest.values()) {
    const { test_id: testId, parameter_set } = all[all.length - 1];
    const stats = flakinessOf(all, tests.get(testId)?.updated_at);
    if (stats.flips === 0 && stats.retry_flakes === 0) continue;
    items.push({ test_id: testId, ...(parameter_set ? { parameter_set } : {}), name: nameOf(testId, tests, all), ...stats });
  }
  items.sort((a, b) => Number(b.flaky) - Number(a.flaky) || b.flakiness - a.flakiness || b.retry_flakes - a.retry_flakes || b.failed - a.failed || a.name.localeCompare(b.name));
  return {
    project_id: projectId,
    window: history.window,
    items: items.slice(0, limit),
    flaky_tests: items.filter((i) => i.flaky).length,
    tests_executed: byTest.size,
  };
}

/** The numbers of one test's executions (oldest first). */
export function flakinessOf(all: Execution[], editedAt: string | undefined): Omit<FlakyTest, 'test_id' | 'name'> {
  const decided = all.filter((e) => e.status !== 'skipped');
  let flips = 0;
  let chances = 0;
  let history = '';
  for (let i = 0; i < all.length; i++) {
    if (i > 0 && editedAt && all[i - 1].created_at < editedAt && editedAt <= all[i].created_at) history += '|';
    history += LETTER[all[i].status];
  }
  let lastFlipToPassing = false;
  let changedAcrossEdit = false;
  for (let i = 1; i < decided.length; i++) {
    const changed = isPassing(decided[i].status) !== isPassing(decided[i - 1].status);
    const edited = !!editedAt && decided[i - 1].created_at < editedAt && editedAt <= decided[i].created_at;
    if (edited) {
      changedAcrossEdit ||= changed;
      continue;
    }
    chances++;
    if (changed) {
      flips++;
      lastFlipToPassing = isPassing(decided[i].status);
    }
  }
  const passed = decided.filter((e) => isPassing(e.status)).length;
  const failedOnes = decided.filter((e) => e.status === 'failed');
  const retryFlakes = all.filter((e) => e.retry_flake).length;
  const lastFailure = failedOnes.at(-1);
  const flaky = retryFlakes > 0 || flips >= 2;
  const reasons: string[] = [];
  if (retryFlakes) reasons.push(`passed on a retry after failing in ${retryFlakes} run${retryFlakes === 1 ? '' : 's'}`);
  if (flips) reasons.push(`changed outcome ${flips} time${flips === 1 ? '' : 's'} in ${decided.length} executions with no edit of the test`);
  if (!flaky && flips === 1) reasons.push(lastFlipToPassing ? 'one change, to passing: a fix, not flakiness' : 'one change, to failing: a regression, not flakiness');
  if (changedAcrossEdit) reasons.push('its outcome also changed when the test was edited; that change is not counted');
  return {
    flaky,
    flakiness: chances ? round(flips / chances) : 0,
    executions: all.length,
    passed,
    failed: failedOnes.length,
    healed: decided.filter((e) => e.status === 'healed').length,
    flips,
    retry_flakes: retryFlakes,
    pass_rate: decided.length ? round(passed / decided.length) : 0,
    history: history.slice(-60),
    last_status: all.at(-1)?.status ?? 'none',
    last_failure_at: lastFailure?.created_at ?? null,
    last_error: lastFailure?.error_message?.slice(0, 500) ?? null,
    reasons,
  };
}
