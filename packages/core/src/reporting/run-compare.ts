import type { BaseRule, RunChange, RunCompare, RunCompareCase } from '../contracts/run-compare.ts';
import { resultCaseId } from '../contracts/test-result.ts';
import { quarantineOf } from '../execution/totals.ts';

/** A stored result row (test_results), as both runs' results are read. */
export interface CompareResult {
  test_id: string;
  parameter_set?: { index: number; name: string };
  status: string;
  duration_ms: number | null;
  error_message: string | null;
  metadata: Record<string, unknown>;
  attempt: number;
}

export interface CompareRun {
  id: string;
  /** false while the run goes: its missing cases may still come, so they are not "removed". */
  finished: boolean;
  results: CompareResult[];
}

/** What "slower" means: both at least this ratio and this many milliseconds more than the base. */
export const SLOWER_RATIO = 1.5;
export const SLOWER_MS = 500;
const SLOWER_TOP = 5;

/** The order cases are listed in: what a red run's reader needs first. */
const ORDER: readonly RunChange[] = ['new_failure', 'still_failing', 'fixed', 'new_test', 'removed', 'skipped', 'not_run', 'passing'];

/**
 * The last attempt of each case (a test, or one parameter set of it): a retried or
 * re-run case counts by its final outcome, as the run's totals and reports do.
 */
export function lastAttempts(results: CompareResult[]): Map<string, CompareResult> {
  const last = new Map<string, CompareResult>();
  for (const r of results) {
    const key = resultCaseId(r);
    if ((last.get(key)?.attempt ?? -Infinity) <= r.attempt) last.set(key, r);
  }
  return last;
}

const lower = (s: string) => s.toLowerCase();
const failed = (r: CompareResult | undefined) => !!r && lower(r.status) === 'failed';
/** Healed is passing: the test did what it should, the healer only found its element again. */
const passing = (r: CompareResult) => lower(r.status) === 'passed' || lower(r.status) === 'healed';

function changeOf(now: CompareResult | undefined, base: CompareResult | undefined, exists: (r: CompareResult) => boolean): RunChange {
  if (!now) return exists(base!) ? 'not_run' : 'removed';
  if (!base) return 'new_test';
  if (failed(now)) return failed(base) ? 'still_failing' : 'new_failure';
  if (passing(now)) return failed(base) ? 'fixed' : 'passing';
  return 'skipped';
}

/** A case's name: the run's own ("sign in [admin]"), else the given test name, else its id. */
function nameOf(r: CompareResult, names: ReadonlyMap<string, string>): string {
  if (typeof r.metadata.name === 'string' && r.metadata.name) return r.metadata.name;
  const test = names.get(r.test_id) ?? `test ${r.test_id}`;
  return r.parameter_set ? `${test} [${r.parameter_set.name}]` : test;
}

/**
 * A run against a base run, case by case: what newly failed (what this change broke),
 * what got fixed, what was already failing, what is new or gone (or only not selected this
 * time: `stillExists`), and what got much slower. A quarantined test's new failure is counted apart (it does not fail the run).
 * Without a base every case is a new test. Pure: the caller reads both runs' results.
 */
export function compareRuns(run: CompareRun, base: CompareRun | null, names: ReadonlyMap<string, string> = new Map(), baseRule: BaseRule = 'previous_run', stillExists: (r: CompareResult) => boolean = () => false): RunCompare {
  const now = lastAttempts(run.results);
  const before = lastAttempts(base?.results ?? []);
  const cases: RunCompareCase[] = [];
  let notYetRun = 0;
  for (const key of new Set([...now.keys(), ...before.keys()])) {
    const a = now.get(key);
    const b = before.get(key);
    // A base case this run has not reported yet may still run: not "removed" until it ends.
    if (!a && !run.finished) {
      notYetRun++;
      continue;
    }
    const r = (a ?? b)!;
    const quarantined = a ? quarantineOf(a) : undefined;
    const duration = a?.duration_ms ?? null;
    const baseDuration = b?.duration_ms ?? null;
    cases.push({
      test_id: r.test_id,
      name: nameOf(r, names),
      ...(r.parameter_set ? { parameter_set: { index: r.parameter_set.index, name: r.parameter_set.name } } : {}),
      status: a ? lower(a.status) : null,
      base_status: b ? lower(b.status) : null,
      change: changeOf(a, b, stillExists),
      ...(quarantined !== undefined ? { quarantined } : {}),
      ...(failed(a) && a!.error_message ? { error: a!.error_message } : {}),
      duration_ms: duration,
      base_duration_ms: baseDuration,
      ...(duration !== null && baseDuration ? { duration_change_ratio: Math.round((duration / baseDuration) * 100) / 100 } : {}),
    });
  }
  cases.sort((x, y) => ORDER.indexOf(x.change) - ORDER.indexOf(y.change) || x.name.localeCompare(y.name) || (x.parameter_set?.index ?? 0) - (y.parameter_set?.index ?? 0));

  const count = (change: RunChange, also: (c: RunCompareCase) => boolean = () => true) => cases.filter((c) => c.change === change && also(c)).length;
  const isQuarantined = (c: RunCompareCase) => c.quarantined !== undefined;
  const slower = cases
    .filter((c) => c.duration_ms !== null && c.base_duration_ms !== null && c.status !== 'skipped' && c.base_status !== 'skipped')
    .filter((c) => c.duration_ms! >= c.base_duration_ms! * SLOWER_RATIO && c.duration_ms! - c.base_duration_ms! >= SLOWER_MS)
    .sort((x, y) => y.duration_ms! - y.base_duration_ms! - (x.duration_ms! - x.base_duration_ms!))
    .slice(0, SLOWER_TOP);
  return {
    run_id: run.id,
    base_run_id: base?.id ?? null,
    base_rule: base ? baseRule : null,
    partial: !run.finished || (base !== null && !base.finished),
    summary: {
      new_failures: count('new_failure', (c) => !isQuarantined(c)),
      quarantined_new_failures: count('new_failure', isQuarantined),
      fixed: count('fixed'),
      still_failing: count('still_failing'),
      new_tests: count('new_test'),
      removed_tests: count('removed'),
      not_run: count('not_run'),
      unchanged_passing: count('passing'),
      skipped: count('skipped'),
      not_yet_run: notYetRun,
    },
    cases,
    slower,
  };
}
