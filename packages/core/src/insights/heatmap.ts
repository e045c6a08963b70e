import type { HeatmapResponse } from '../contracts/insights.ts';
import { nameOf, type Execution, type RunHistory } from './history.ts';

/**
 * Failures by test and by day (UTC) or by run: the rows are the tests with the most
 * failures, the columns the window's days or runs, oldest first. A cell counts the
 * test's executions and failures in that column, so an empty cell (0 of 0) is "did not
 * run", not "passed".
 */
export function failureHeatmap(projectId: string, history: RunHistory, tests: Map<string, { name: string }>, bucket: 'day' | 'run', limit: number): HeatmapResponse {
  const columnOf = (runCreatedAt: string, runId: string) => (bucket === 'day' ? runCreatedAt.slice(0, 10) : runId);
  const columns = new Map<string, { key: string; label: string; executions: number; failures: number }>();
  const rows = new Map<string, { executions: Execution[]; cells: Map<string, { executions: number; failures: number }> }>();

  for (const { run, executions } of history.runs) {
    const key = columnOf(run.created_at, run.id);
    const column = columns.get(key) ?? { key, label: bucket === 'day' ? key : `${run.created_at.slice(0, 16).replace('T', ' ')} (${run.trigger})`, executions: 0, failures: 0 };
    columns.set(key, column);
    for (const e of executions) {
      if (e.status === 'skipped') continue;
      const failed = e.status === 'failed' ? 1 : 0;
      column.executions++;
      column.failures += failed;
      const row = rows.get(e.test_id) ?? { executions: [] as Execution[], cells: new Map<string, { executions: number; failures: number }>() };
      rows.set(e.test_id, row);
      row.executions.push(e);
      const cell = row.cells.get(key) ?? { executions: 0, failures: 0 };
      row.cells.set(key, cell);
      cell.executions++;
      cell.failures += failed;
    }
  }

  const ordered = [...columns.values()];
  const out = [...rows].map(([testId, row]) => ({
    test_id: testId,
    name: testNameOf(testId, tests, row.executions),
    failures: row.executions.filter((e) => e.status === 'failed').length,
    executions: row.executions.length,
    cells: ordered.map((c) => row.cells.get(c.key) ?? { executions: 0, failures: 0 }),
  }));
  out.sort((a, b) => b.failures - a.failures || b.failures / b.executions - a.failures / a.executions || a.name.localeCompare(b.name));
  return { project_id: projectId, window: history.window, bucket, columns: ordered, rows: out.slice(0, limit), total_rows: out.length };
}

/**
 * A row's name: a row counts every case of a parameterised test together, so it is named by
 * the test ("checkout"), not by the case that ran last ("checkout [EUR]"); a deleted test by
 * the name its results recorded, without the set.
 */
function testNameOf(testId: string, tests: Map<string, { name: string }>, executions: Execution[]): string {
  const cases = executions.map(({ parameter_set: set, ...e }) => ({ ...e, name: set && e.name?.endsWith(` [${set.name}]`) ? e.name.slice(0, -` [${set.name}]`.length) : e.name }));
  return nameOf(testId, tests, cases);
}
