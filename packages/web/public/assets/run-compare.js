import { api } from './api.js';

/**
 * The run view's "vs previous run" line and "new" marks, from GET /api/runs/{id}/compare
 * with its default base (a pull request's target branch's run, a branch's previous run, else
 * the project's latest finished run before this one): a red run's
 * reader first wants to know what this change broke, rather than what was broken before.
 *
 * @typedef {{ test_id: string, parameter_set?: { index: number }, change: string, status: string | null }} ComparedCase
 * @typedef {{ base_run_id: string | null, base_rule?: string | null, summary: { new_failures: number, quarantined_new_failures: number, fixed: number, new_tests: number }, cases: ComparedCase[] }} RunComparison
 */

/**
 * The run compared with its previous one; undefined when it cannot be read (the run view
 * then shows its results without the line) or when the project has no earlier run.
 * @param {string} runId
 * @returns {Promise<RunComparison | undefined>}
 */
export async function previousRunComparison(runId) {
  try {
    /** @type {RunComparison} */
    const comparison = await api(`/api/runs/${encodeURIComponent(runId)}/compare`);
    return comparison.base_run_id ? comparison : undefined;
  } catch {
    return undefined;
  }
}

/** @param {number} n @param {string} word */
const count = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What the base is, by the rule that chose it (a pull request's is its target branch's run, not the previous one). */
const BASES = /** @type {Record<string, string>} */ ({ pull_request_target: "target branch's run", same_branch: "branch's previous run" });

/**
 * "vs previous run: 2 new failures, 1 fixed" (a quarantined test's new failure is said
 * apart: it does not fail the run); "vs target branch's run: …" for a pull request's run.
 * Cases the base did not run are counted apart, with how many of them failed ("3 new tests,
 * 1 failing"): they are not new failures (nothing they did passed before), but a reader who
 * sees a red row and "0 new failures" must not think the row was red before.
 * @param {RunComparison} comparison
 */
export function comparisonLine(comparison) {
  const s = comparison.summary;
  const quarantined = s.quarantined_new_failures ? ` (+${s.quarantined_new_failures} quarantined)` : '';
  const base = BASES[comparison.base_rule ?? ''] ?? 'previous run';
  const failingNew = comparison.cases.filter((c) => c.change === 'new_test' && c.status === 'failed').length;
  const newTests = s.new_tests ? `, ${count(s.new_tests, 'new test')}${failingNew ? `, ${failingNew} failing` : ''}` : '';
  return `vs ${base}: ${count(s.new_failures, 'new failure')}${quarantined}, ${s.fixed} fixed${newTests}`;
}

/**
 * The cases that failed here and not in the previous run, as `<test id>[<set index or 0>]`.
 * @param {RunComparison | undefined} comparison
 */
export function newFailureKeys(comparison) {
  return new Set((comparison?.cases ?? []).filter((c) => c.change === 'new_failure').map((c) => `${c.test_id}[${c.parameter_set?.index ?? 0}]`));
}
