import { uuidv7 } from '@svc/core/ids';
import type { RunSummary, TestExecutionResult } from '@svc/core/execution/types';
import { runTotals } from '@svc/core/execution/totals';
import type { InvalidTest } from '../execution/load-tests.ts';

/**
 * A test file's test that could not run as written, as a failed result: nothing was
 * executed (no steps, no time), and the error lists every problem with file and field.
 */
export function invalidTestResult(t: InvalidTest, at: string): TestExecutionResult {
  return {
    test_id: t.id,
    name: t.name,
    type: t.type,
    status: 'failed',
    started_at: at,
    finished_at: at,
    duration_ms: 0,
    steps: [],
    assertions_passed: 0,
    assertions_failed: 0,
    error_message: `not run: the test is invalid\n${t.problems.join('\n')}`,
    failure_kind: 'configuration',
    screenshots: [],
    console_errors: [],
    failed_requests: [],
    fingerprints: {},
    metadata: { file: t.file, invalid: true },
  };
}

/** The results of the valid tests (one list per test, in the files' order) with the invalid ones put back where they were. */
export function inFileOrder(perTest: TestExecutionResult[][], invalid: InvalidTest[], at: string): TestExecutionResult[] {
  const out: TestExecutionResult[] = [];
  const byPosition = (n: number) => invalid.filter((t) => t.position === n).map((t) => invalidTestResult(t, at));
  perTest.forEach((results, n) => out.push(...byPosition(n), ...results));
  out.push(...invalid.filter((t) => t.position >= perTest.length).map((t) => invalidTestResult(t, at)));
  return out;
}

/** A run in which no test was valid: nothing is executed, and every test is reported with its problems. */
export function invalidOnlySummary(name: string, baseUrl: string, invalid: InvalidTest[]): RunSummary {
  const at = new Date().toISOString();
  const results = inFileOrder([], invalid, at);
  return { run_id: uuidv7(), name, base_url: baseUrl, started_at: at, finished_at: at, duration_ms: 0, workers: 1, ...runTotals(results), results };
}
