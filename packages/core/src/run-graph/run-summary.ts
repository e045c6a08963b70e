import type { RunSummary, TestExecutionResult } from '../execution/types.ts';
import { isTerminalRunStatus, type TestRun } from '../contracts/test-run.ts';
import type { Store } from '../store/index.ts';
import { runTotals } from '../execution/totals.ts';
import { resultCaseId } from '../contracts/test-result.ts';
import type { TestSpec } from '../contracts/test-spec.ts';
import { notRunResult } from './results.ts';

/** Why a planned case of an unfinished run has no result, as its skipped entry says. */
const NOT_RUN: Record<'cancelled' | 'running', string> = {
  cancelled: 'not run: the run was cancelled before this test finished',
  running: 'not run yet: the run is still running',
};

/**
 * A finished (or running) run as the RunSummary the report renderers take, from what is
 * stored: the run record and, per test, its latest stored attempt. `plan` (the run state's
 * test plan) lists an unfinished run's planned cases: each one with no result is in the
 * summary as skipped, saying why, so a report's tests agree with its totals (found by QA:
 * a cancelled run's JUnit report said tests="1" skipped="0" for a plan of 3).
 */
export async function runSummaryOf(store: Store, orgId: string, run: TestRun, plan?: ReadonlyArray<Pick<TestSpec, 'id' | 'name' | 'type'>>): Promise<RunSummary> {
  const stored = await store.testRuns.results(orgId, run.id);
  const latest = new Map<string, (typeof stored)[number]>();
  for (const r of stored) if ((latest.get(resultCaseId(r))?.attempt ?? -1) < r.attempt) latest.set(resultCaseId(r), r);
  const results = [...latest.values()].map((r) => executionResultOf({ test_id: resultCaseId(r), status: r.status, duration_ms: r.duration_ms ?? 0, error_message: r.error_message, screenshots: r.screenshots, metadata: r.metadata as Record<string, unknown>, attempt: r.attempt, created_at: r.created_at }));
  const started = run.started_at ?? run.created_at;
  const finished = run.completed_at ?? new Date().toISOString();
  const unfinished = run.status === 'cancelled' ? 'cancelled' : isTerminalRunStatus(run.status) ? undefined : 'running';
  if (unfinished && plan) {
    const have = new Set(results.map((r) => r.test_id));
    for (const spec of plan) {
      if (have.has(spec.id)) continue;
      have.add(spec.id);
      results.push({ ...executionResultOf({ ...notRunResult(spec, 'SKIPPED', NOT_RUN[unfinished]), created_at: finished }), started_at: finished });
    }
  }
  const totals = runTotals(results);
  // Cases planned and not run (a cancelled run's rest, a running run's yet to come) count as skipped: a report of
  // one passed test out of twelve planned said "1 of 1 passed" (found by QA).
  const notRun = unfinished ? Math.max(0, run.total_tests - results.length) : 0;
  return {
    run_id: run.id,
    name: `run ${run.id}`,
    ...(run.app_url ? { base_url: run.app_url } : {}),
    started_at: started,
    finished_at: finished,
    duration_ms: Math.max(0, Date.parse(finished) - Date.parse(started)),
    // As many as ran side by side: the run's concurrency, at most one per test (runs from before it was kept: 1).
    workers: Math.max(1, Math.min(run.max_concurrency ?? 1, results.length || 1)),
    ...totals,
    total: totals.total + notRun,
    skipped: totals.skipped + notRun,
    results,
    ...(unfinished ? { unfinished } : {}),
    // Failed as a whole (an error, a limit): the reports say so, as the commit status does (found by QA: "Nothing ran", no reason).
    ...(run.status === 'failed' ? { error: run.error ?? 'the run failed' } : {}),
  };
}

/** A result as stored (test_results row) or as held in the run state: what executionResultOf reads. */
export interface ResultLike {
  test_id: string;
  status: string;
  duration_ms: number;
  error_message?: string | null;
  screenshots: string[];
  metadata: Record<string, unknown>;
  attempt?: number;
  created_at?: string;
}

/**
 * A graph result back as the runner's TestExecutionResult (what reports and progress
 * take): toTestResult keeps steps, timings, failure kind and step, trace and
 * diagnostics in the metadata, so nothing a report shows is lost on the way.
 */
export function executionResultOf(r: ResultLike): TestExecutionResult {
  const m = r.metadata;
  const status = r.status.toLowerCase();
  const finished = typeof m.finished_at === 'string' ? m.finished_at : (r.created_at ?? new Date(0).toISOString());
  return {
    test_id: r.test_id,
    name: typeof m.name === 'string' ? m.name : r.test_id,
    type: (m.type as TestExecutionResult['type']) ?? 'api',
    status: status === 'passed' || status === 'failed' || status === 'healed' ? status : 'skipped',
    started_at: typeof m.started_at === 'string' ? m.started_at : finished,
    finished_at: finished,
    duration_ms: r.duration_ms ?? 0,
    steps: Array.isArray(m.steps) ? (m.steps as TestExecutionResult['steps']) : [],
    assertions_passed: Number(m.assertions_passed ?? 0),
    assertions_failed: Number(m.assertions_failed ?? 0),
    ...(Array.isArray(m.assertion_results) ? { assertion_results: m.assertion_results as NonNullable<TestExecutionResult['assertion_results']> } : {}),
    ...(r.error_message ? { error_message: r.error_message } : {}),
    ...(typeof m.stack_trace === 'string' ? { stack_trace: m.stack_trace } : {}),
    ...(typeof m.failure_kind === 'string' ? { failure_kind: m.failure_kind as TestExecutionResult['failure_kind'] } : {}),
    ...(typeof m.failed_step === 'number' ? { failed_step: m.failed_step } : {}),
    screenshots: r.screenshots,
    ...(typeof m.screenshots_dropped === 'number' && m.screenshots_dropped > 0 ? { screenshots_dropped: m.screenshots_dropped } : {}),
    ...(typeof m.trace === 'string' ? { trace: m.trace } : {}),
    ...(typeof m.dom_snapshot === 'string' ? { dom_snapshot: m.dom_snapshot } : {}),
    console_errors: Array.isArray(m.console_errors) ? (m.console_errors as string[]) : [],
    failed_requests: Array.isArray(m.failed_requests) ? (m.failed_requests as TestExecutionResult['failed_requests']) : [],
    fingerprints: {},
    ...(Array.isArray(m.visual) ? { visual: m.visual as NonNullable<TestExecutionResult['visual']> } : {}),
    ...(Array.isArray(m.accessibility) ? { accessibility: m.accessibility as NonNullable<TestExecutionResult['accessibility']> } : {}),
    metadata: { attempt: r.attempt ?? m.attempt ?? 0, ...(Array.isArray(m.heals) ? { heals: m.heals } : {}), ...(typeof m.retries === 'number' ? { retries: m.retries, flaky: true } : {}), ...(typeof m.quarantined === 'string' ? { quarantined: m.quarantined } : {}) },
  };
}
