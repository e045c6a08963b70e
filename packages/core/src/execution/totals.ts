import type { RunSummary, TestExecutionResult } from './types.ts';

/** A run's counts by status, computed one way for every kind of run (suite, graph, CLI). */
export function runTotals(results: TestExecutionResult[]): Pick<RunSummary, 'total' | 'passed' | 'failed' | 'skipped' | 'healed'> {
  const count = (s: TestExecutionResult['status']) => results.filter((r) => r.status === s).length;
  return { total: results.length, passed: count('passed'), failed: count('failed'), skipped: count('skipped'), healed: count('healed') };
}
