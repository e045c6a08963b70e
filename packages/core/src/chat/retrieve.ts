import type { Store, TestRun, TestResultRecord, TestRecord } from '../store/index.ts';
import { keys, stripLayout } from '../store/keys.ts';
import { resultCaseId } from '../contracts/test-result.ts';

/** How far back the answers look: the latest runs of the scope. */
export const RECENT_RUNS = 10;
const MAX_TESTS = 5_000;

export interface ResultRow {
  run_id: string;
  run_created_at: string;
  test_id: string;
  /** The test, or for a parameterised test one set of it (`<test id>[n]`). */
  case_id: string;
  /** The test's name, with the set's (`sign in [admin]`) for a parameter set's case. */
  test_name: string;
  status: TestResultRecord['status'];
  duration_ms: number | null;
  error_message: string | null;
  metadata: Record<string, unknown>;
}

/** The stored data chat answers come from, newest run first. */
export interface ChatData {
  scope: { project_id: string | null };
  runs: TestRun[];
  /** Final attempt of every test in each of `runs`. */
  results: ResultRow[];
  testCount: number;
  testsCapped: boolean;
}

/**
 * Reads what the answers need for one organization (optionally one project, already
 * checked to be the organization's): the latest runs, their results, and the tests.
 */
export async function retrieveChatData(store: Store, orgId: string, projectId: string | null): Promise<ChatData> {
  const runs = projectId
    ? (await store.testRuns.listForProject(projectId, RECENT_RUNS)).items
    : await orgRuns(store, orgId, RECENT_RUNS);
  const { tests, capped } = await allTests(store, orgId, projectId);
  const names = new Map(tests.map((t) => [t.id, t.name]));
  const perRun = await Promise.all(runs.map((r) => store.testRuns.results(orgId, r.id)));
  const results: ResultRow[] = [];
  runs.forEach((run, i) => {
    // The last attempt of each case (a test, or each of its parameter sets) is its outcome in that run.
    const last = new Map<string, (typeof perRun)[number][number]>();
    for (const r of perRun[i]) if ((last.get(resultCaseId(r))?.attempt ?? 0) <= r.attempt) last.set(resultCaseId(r), r);
    for (const r of last.values()) {
      const test = names.get(r.test_id) ?? r.test_id;
      results.push({
        run_id: run.id,
        run_created_at: run.created_at,
        test_id: r.test_id,
        case_id: resultCaseId(r),
        test_name: r.parameter_set ? `${test} [${r.parameter_set.name}]` : test,
        status: r.status,
        duration_ms: r.duration_ms,
        error_message: r.error_message,
        metadata: r.metadata,
      });
    }
  });
  return { scope: { project_id: projectId }, runs, results, testCount: tests.length, testsCapped: capped };
}

/** Runs of every project of the organization, newest first (run ids are uuidv7, so sk order is time order). */
async function orgRuns(store: Store, orgId: string, limit: number): Promise<TestRun[]> {
  const prefix = keys.testRun(orgId, '');
  const page = await store.table.query({ pk: prefix.pk, skPrefix: prefix.sk, descending: true, limit });
  return page.items.map((item) => {
    const { organization_id: _o, ...run } = stripLayout<TestRun & { organization_id: string }>(item);
    return run;
  });
}

async function allTests(store: Store, orgId: string, projectId: string | null): Promise<{ tests: TestRecord[]; capped: boolean }> {
  const tests: TestRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.tests.list(orgId, { projectId: projectId ?? undefined, limit: 1000, cursor });
    tests.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor && tests.length < MAX_TESTS);
  return { tests, capped: Boolean(cursor) };
}
