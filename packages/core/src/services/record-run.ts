import type { Store } from '../store/index.ts';
import type { RunSummary } from '../execution/types.ts';

/**
 * Persists a finished suite: one test_results row per test (idempotent per test and
 * attempt) and the run's totals. `testIds` maps the suite's test ids to stored test ids.
 */
export async function recordRunSummary(store: Store, orgId: string, runId: string, summary: RunSummary, opts: { attempt?: number } = {}) {
  for (const r of summary.results) {
    await store.testRuns.recordResult(orgId, {
      test_id: r.test_id,
      test_run_id: runId,
      status: r.status,
      duration_ms: r.duration_ms,
      error_message: r.error_message ?? null,
      screenshots: r.screenshots.slice(0, 100),
      metadata: {
        assertions_passed: r.assertions_passed,
        assertions_failed: r.assertions_failed,
        ...(r.failure_kind ? { failure_kind: r.failure_kind, failed_step: r.failed_step } : {}),
        ...(r.stack_trace ? { stack_trace: r.stack_trace } : {}),
        ...(r.trace ? { trace: r.trace } : {}),
        steps: r.steps,
        ...(r.assertion_results ? { assertion_results: r.assertion_results } : {}),
        console_errors: r.console_errors,
        failed_requests: r.failed_requests,
        ...(r.pages_visited?.length ? { pages_visited: r.pages_visited } : {}),
      },
      attempt: opts.attempt,
    });
  }
  return store.testRuns.setStatus(orgId, runId, 'completed', {
    completed_at: summary.finished_at,
    started_at: summary.started_at,
    total_tests: summary.total,
    passed_tests: summary.passed + summary.healed,
    failed_tests: summary.failed,
    results: { passed: summary.passed, healed: summary.healed, failed: summary.failed, skipped: summary.skipped, duration_ms: summary.duration_ms },
  });
}
