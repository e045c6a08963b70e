import type { Store } from '../store/index.ts';
import type { TestRun } from '../contracts/test-run.ts';
import type { InsightWindow } from '../contracts/insights.ts';
import { isTerminalRunStatus } from '../contracts/test-run.ts';
import { resultCaseId } from '../contracts/test-result.ts';
import { mapLimited } from '../concurrency.ts';
import { quarantineOf } from '../execution/totals.ts';

/** One test's outcome in one run: its last attempt, with what earlier attempts did. */
export interface Execution {
  test_id: string;
  /** For a parameterised test: the set this execution ran (its case id is `<test id>[index]`). */
  parameter_set?: { index: number; name: string };
  /** The test, or for a parameter set the case: what has one outcome per run. */
  case_id: string;
  run_id: string;
  /** Outcome of the last attempt. */
  status: 'passed' | 'healed' | 'failed' | 'skipped';
  /** Some attempt failed and a later one passed (a retry within the run). */
  retry_flake: boolean;
  duration_ms: number | null;
  error_message: string | null;
  created_at: string;
  /** Name recorded with the result (tests can be deleted; their results stay). */
  name?: string;
  /** Pages the browser was on during the test (UI tests; results recorded before svc kept them have none). */
  pages_visited: string[];
  /** Why the test was quarantined when its run planned it (its failure did not fail the run); absent when it was not. */
  quarantined?: string;
}

export interface RunWithExecutions {
  run: TestRun;
  executions: Execution[];
}

/** The latest finished runs of a project, oldest first, with one execution per test per run. */
export interface RunHistory {
  runs: RunWithExecutions[];
  window: InsightWindow;
}

export interface HistoryWindow {
  runs: number;
  /** ISO date or date-time; runs created earlier are not read. */
  since?: string;
}

/** Result reads in flight at once (one query per run). */
const CONCURRENCY = 8;
/** Runs listed per page while looking for finished ones. */
const PAGE = 100;

const passing = new Set(['passed', 'healed']);

/**
 * Reads the window: the project's newest runs (by id, which is time-ordered) that have
 * finished, at most `runs` of them and none created before `since`, then each run's
 * results. A run still going is left out: its results are not all in yet.
 */
export async function loadRunHistory(store: Store, orgId: string, projectId: string, window: HistoryWindow): Promise<RunHistory> {
  const since = window.since ? new Date(window.since).toISOString() : undefined;
  const runs: TestRun[] = [];
  let cursor: string | undefined;
  scan: do {
    const page = await store.testRuns.listForProject(projectId, PAGE, cursor);
    for (const run of page.items) {
      if (since && run.created_at < since) break scan;
      if (!isTerminalRunStatus(run.status)) continue;
      runs.push(run);
      if (runs.length >= window.runs) break scan;
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  runs.reverse();

  const withExecutions: RunWithExecutions[] = await mapLimited(runs, CONCURRENCY, async (run) => ({ run, executions: executionsOf(run.id, await store.testRuns.results(orgId, run.id)) }));

  return {
    runs: withExecutions,
    window: {
      runs: runs.length,
      from: runs[0]?.created_at ?? null,
      to: runs.at(-1)?.created_at ?? null,
      executions: withExecutions.reduce((n, r) => n + r.executions.length, 0),
    },
  };
}

type StoredResult = Awaited<ReturnType<Store['testRuns']['results']>>[number];

/** Folds a run's results (one per test and attempt) into one execution per test. */
export function executionsOf(runId: string, results: StoredResult[]): Execution[] {
  // A parameterised test's cases are tests of their own here: one set may fail while another passes.
  const byTest = new Map<string, StoredResult[]>();
  for (const r of results) byTest.set(resultCaseId(r), [...(byTest.get(resultCaseId(r)) ?? []), r]);
  const out: Execution[] = [];
  for (const [caseKey, attempts] of byTest) {
    attempts.sort((a, b) => a.attempt - b.attempt);
    const last = attempts[attempts.length - 1];
    const status = (['passed', 'healed', 'failed', 'skipped'] as const).find((s) => s === last.status);
    if (!status) continue; // pending/running results are not outcomes
    const failedBefore = attempts.slice(0, -1).some((a) => a.status === 'failed');
    const metadata = last.metadata as Record<string, unknown>;
    const quarantined = quarantineOf(last);
    out.push({
      test_id: last.test_id,
      ...(last.parameter_set ? { parameter_set: last.parameter_set } : {}),
      case_id: caseKey,
      run_id: runId,
      status,
      retry_flake: failedBefore && passing.has(status),
      duration_ms: last.duration_ms,
      error_message: last.error_message,
      created_at: last.created_at,
      ...(typeof metadata.name === 'string' ? { name: metadata.name } : {}),
      pages_visited: attempts.flatMap((a) => stringList((a.metadata as Record<string, unknown>).pages_visited)),
      ...(quarantined !== undefined ? { quarantined } : {}),
    });
  }
  return out;
}

const stringList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

export const isPassing = (status: Execution['status']) => passing.has(status);

/** Test names and last edits of a project (every test, paged through); withBaselineChanges adds accepted baselines. */
export async function projectTests(store: Store, orgId: string, projectId: string) {
  const out = new Map<string, { id: string; name: string; type: string; updated_at: string; steps: unknown[] }>();
  let cursor: string | undefined;
  do {
    const page = await store.tests.list(orgId, { projectId, limit: 200, cursor });
    for (const t of page.items) out.set(t.id, { id: t.id, name: t.name, type: t.type, updated_at: t.updated_at, steps: t.steps });
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return out;
}

/**
 * The tests' last changes for the flaky ranking: a visual baseline accepted (or replaced)
 * is a wanted change of what the test expects, as an edit is, so fail → accept → pass is
 * not read as a flake. Only the ranking reads it: other insights skip the query.
 */
export async function withBaselineChanges<T extends Map<string, { updated_at: string }>>(store: Store, orgId: string, projectId: string, tests: T): Promise<T> {
  let cursor: string | undefined;
  do {
    const page = await store.visualBaselines.list(orgId, { project_id: projectId, limit: 200, cursor });
    for (const b of page.items) {
      const test = tests.get(b.test_id);
      if (test && b.updated_at > test.updated_at) test.updated_at = b.updated_at;
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return tests;
}

/** A test's name: the test's own, else the name its latest result recorded. */
export function nameOf(testId: string, tests: Map<string, { name: string }>, executions: Execution[]): string {
  // A case's name is its test's with the set's ("sign in [admin]"), as its results recorded it.
  const set = executions.findLast((e) => e.parameter_set)?.parameter_set;
  if (set && tests.has(testId)) return `${tests.get(testId)!.name} [${set.name}]`;
  return tests.get(testId)?.name ?? executions.findLast((e) => e.name)?.name ?? `(deleted test ${testId.slice(0, 8)})`;
}
