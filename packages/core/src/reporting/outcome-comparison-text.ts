import type { RunCompare, RunCompareCase } from '../contracts/run-compare.ts';
import type { BasedRunCompare } from './outcome-comparison.ts';

/**
 * What the outcomes of a run (commit status, notifications, automation callback, Slack
 * command reply) say about it against the previous run, in their few words. Pure.
 */

/** The counts a machine reads (automation callback, webhook channel): the compare endpoint's summary, fewer fields. */
export interface OutcomeCompare {
  base_run_id: string;
  new_failures: number;
  fixed: number;
  still_failing: number;
}

export function compareCounts(c: BasedRunCompare): OutcomeCompare {
  return { base_run_id: c.base_run_id, new_failures: c.summary.new_failures, fixed: c.summary.fixed, still_failing: c.summary.still_failing };
}

const NAMED = 3;
const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const quarantined = (c: RunCompareCase) => c.quarantined !== undefined;

/**
 * "vs previous run: 1 new failure (checkout works), 1 fixed": the dashboard's line, with
 * up to three new failures named (a quarantined test's new failure is said apart: it does
 * not fail the run).
 */
export function comparisonLine(c: RunCompare): string {
  const fresh = c.cases.filter((x) => x.change === 'new_failure' && !quarantined(x)).map((x) => x.name);
  const names = fresh.length ? ` (${fresh.slice(0, NAMED).join(', ')}${fresh.length > NAMED ? ` and ${fresh.length - NAMED} more` : ''})` : '';
  const held = c.summary.quarantined_new_failures ? ` (+${c.summary.quarantined_new_failures} quarantined)` : '';
  return `vs previous run: ${count(c.summary.new_failures, 'new failure')}${names}${held}, ${c.summary.fixed} fixed`;
}

/**
 * What a commit status says of the failed tests: "1 new, 1 already failing, 1 quarantined"
 * (new: passed in the previous run; a failing test the previous run did not have is a
 * "new test"). Without a comparison only the quarantined, as before comparisons.
 */
export function failedBreakdown(c: RunCompare | undefined, quarantinedCount: number): string {
  const parts: string[] = [];
  if (c) {
    const blocking = c.cases.filter((x) => x.status === 'failed' && !quarantined(x));
    const of = (change: RunCompareCase['change']) => blocking.filter((x) => x.change === change).length;
    const [fresh, already, added] = [of('new_failure'), of('still_failing'), of('new_test')];
    if (fresh) parts.push(`${fresh} new`);
    if (already) parts.push(`${already} already failing`);
    if (added) parts.push(count(added, 'new test'));
  }
  if (quarantinedCount) parts.push(`${quarantinedCount} quarantined`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/** " · 1 fixed" after a commit status's counts; nothing when nothing was fixed. */
export function fixedSuffix(c: RunCompare | undefined): string {
  return c?.summary.fixed ? ` · ${c.summary.fixed} fixed` : '';
}
