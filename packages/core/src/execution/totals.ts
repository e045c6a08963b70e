import type { RunSummary, TestExecutionResult } from './types.ts';

/** A run's counts by status, computed one way for every kind of run (suite, graph, CLI). */
export function runTotals(results: TestExecutionResult[]): Pick<RunSummary, 'total' | 'passed' | 'failed' | 'skipped' | 'healed'> {
  const count = (s: TestExecutionResult['status']) => results.filter((r) => r.status === s).length;
  return { total: results.length, passed: count('passed'), failed: count('failed'), skipped: count('skipped'), healed: count('healed') };
}

/** Why a result's test was quarantined when it ran (its failure does not fail the run); undefined when it was not. */
export function quarantineOf(result: { metadata: Record<string, unknown> }): string | undefined {
  return typeof result.metadata.quarantined === 'string' ? result.metadata.quarantined : undefined;
}

/** Failed results of quarantined tests: kept and reported, but not failing the run. */
export function quarantinedFailures(results: Array<{ status: string; metadata: Record<string, unknown> }>): number {
  return results.filter((r) => r.status.toLowerCase() === 'failed' && quarantineOf(r) !== undefined).length;
}

/**
 * The failures that fail a stored run: its failed tests less those in quarantine (the
 * run's results summary counts them as `quarantined_failed`). What commit statuses,
 * notifications, automation callbacks and chat replies judge a run by.
 */
export function blockingFailedTests(run: { failed_tests: number; results?: Record<string, unknown> | null }): number {
  return run.failed_tests - quarantinedFailedTests(run);
}

/** Of a stored run's failed tests, those in quarantine (0 for runs recorded before quarantine existed). */
export function quarantinedFailedTests(run: { failed_tests: number; results?: Record<string, unknown> | null }): number {
  const quarantined = run.results?.quarantined_failed;
  return typeof quarantined === 'number' ? Math.min(run.failed_tests, Math.max(0, quarantined)) : 0;
}
