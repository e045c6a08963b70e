import type { BaseRule, RunCompare } from '../contracts/run-compare.ts';
import { isTerminalRunStatus, type TestRunStatus } from '../contracts/test-run.ts';
import { notFound, validationFailed } from '../errors.ts';
import type { Store, TestRun } from '../store/index.ts';
import { compareRuns, type CompareRun } from './run-compare.ts';

/** How far back the default base is looked for: runs of the project from the run back, newest first. */
const PAGE = 50;
const MAX_PAGES = 20;
/** Runs a default base may be: finished with a verdict (a cancelled run's missing cases would read as removed). */
const BASE_STATUSES: ReadonlySet<TestRunStatus> = new Set(['completed', 'failed']);

/** A run of a push (or an API caller's branch) to `branch`: what a pull request into it is compared with. */
const isPushTo = (r: TestRun, branch: string) => r.source?.branch === branch && !r.source.pull_request;

/**
 * Which earlier run the source's rule wants, and the rule's name. A pull request's run is
 * compared with its target branch's push run (the code it merges into), not with whatever
 * other pull request ran last; a branch's run with that branch's previous run.
 */
function sourceRule(run: TestRun): { rule: BaseRule; wants: (r: TestRun) => boolean } | undefined {
  const source = run.source;
  if (!source) return undefined;
  const pr = source.pull_request;
  if (pr) return { rule: 'pull_request_target', wants: (r) => isPushTo(r, pr.base_branch) };
  return { rule: 'same_branch', wants: (r) => r.source?.branch === source.branch };
}

/**
 * The default base of a run and how it was chosen: the run its source's rule wants (see
 * sourceRule), else — and for runs without a source — the latest completed or failed run
 * of its project created before it. Run ids are uuidv7, so id order is creation order, as
 * notifications' "recovered" reads it. One pass over the project's runs serves both rules.
 */
export async function defaultBaseRun(store: Store, run: TestRun): Promise<{ run: TestRun; rule: BaseRule } | undefined> {
  const byRule = sourceRule(run);
  let previous: TestRun | undefined;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const { items, next_cursor } = await store.testRuns.listForProject(run.project_id, PAGE, cursor, run.id);
    for (const r of items) {
      if (r.id >= run.id || !BASE_STATUSES.has(r.status)) continue;
      if (!byRule) return { run: r, rule: 'previous_run' };
      if (byRule.wants(r)) return { run: r, rule: byRule.rule };
      previous ??= r;
    }
    if (!next_cursor) break;
    cursor = next_cursor;
  }
  return previous ? { run: previous, rule: 'previous_run' } : undefined;
}

/**
 * The base a caller named, checked: another organization's run is missing (404, as any
 * run of theirs), another project's is a bad `base` (400): its cases are other tests.
 */
async function namedBaseRun(store: Store, orgId: string, run: TestRun, baseId: string): Promise<TestRun> {
  const base = await store.testRuns.get(orgId, baseId);
  if (!base) throw notFound('base run');
  if (base.id === run.id) throw validationFailed([{ path: 'base', message: 'a run cannot be compared with itself' }]);
  if (base.project_id !== run.project_id) throw validationFailed([{ path: 'base', message: `run ${base.id} is of another project: compare runs of project ${run.project_id}` }]);
  return base;
}

async function resultsOf(store: Store, orgId: string, run: TestRun): Promise<CompareRun> {
  return { id: run.id, finished: isTerminalRunStatus(run.status), results: await store.testRuns.results(orgId, run.id) };
}

/**
 * A stored run compared with its base (named, or the default). Results recorded from
 * outside may carry no name: those are named by their stored test.
 */
export async function runComparisonOf(store: Store, orgId: string, run: TestRun, baseId?: string): Promise<RunCompare> {
  const chosen = baseId ? { run: await namedBaseRun(store, orgId, run, baseId), rule: 'named' as const } : await defaultBaseRun(store, run);
  const base = chosen?.run;
  const [now, before] = await Promise.all([resultsOf(store, orgId, run), base ? resultsOf(store, orgId, base) : null]);
  const unnamed = new Set([...now.results, ...(before?.results ?? [])].filter((r) => typeof r.metadata.name !== 'string').map((r) => r.test_id));
  const names = new Map<string, string>();
  await Promise.all([...unnamed].slice(0, 200).map(async (testId) => {
    const test = await store.tests.get(orgId, testId);
    if (test) names.set(testId, test.name);
  }));
  return compareRuns(now, before, names, chosen?.rule);
}
