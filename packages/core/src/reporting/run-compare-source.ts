import type { BaseRule, RunCompare } from '../contracts/run-compare.ts';
import { isTerminalRunStatus, type TestRunStatus } from '../contracts/test-run.ts';
import { notFound, validationFailed } from '../errors.ts';
import type { Store, TestRun } from '../store/index.ts';
import { compareRuns, lastAttempts, type CompareResult, type CompareRun } from './run-compare.ts';
import { mapLimited } from '../concurrency.ts';
import type { TestRecord } from '../store/tests.ts';

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

/** How many default-base candidates are looked through for one that ran every test the run ran. */
const COVERING_CANDIDATES = 5;

/**
 * Runs that re-execute a few tests of another run: a retry (trigger retry, the dashboard's
 * Retry) and a heal's re-run (trigger heal). As a default base such a run would call every
 * test it did not re-run new, or compare a run with one flaky test's second try, so it ranks
 * after the ordinary runs of its rule. It is still taken when its rule found nothing else.
 */
const RERUN_TRIGGERS: ReadonlySet<string> = new Set(['retry', 'heal']);
const isRerun = (r: Pick<TestRun, 'trigger'>) => RERUN_TRIGGERS.has(r.trigger);

/**
 * The default base candidates of a run, best first, with how each was chosen: the runs its
 * source's rule wants (see sourceRule), then — and for runs without a source only these —
 * the latest completed or failed runs of its project created before it; within each, the
 * ordinary runs before re-runs (isRerun), newest first. Run ids are uuidv7, so id order is
 * creation order, as notifications' "recovered" reads it. One pass over the project's runs
 * serves both rules; it stops once the best tier is full, so a run of re-runs reads further
 * back (within the MAX_PAGES bound) to find ordinary runs behind them.
 */
async function defaultBaseCandidates(store: Store, run: TestRun, max: number): Promise<Array<{ run: TestRun; rule: BaseRule }>> {
  const byRule = sourceRule(run);
  // Tiers, best first: the rule's ordinary runs, the rule's re-runs, previous ordinary runs, previous re-runs.
  const tiers: Array<Array<{ run: TestRun; rule: BaseRule }>> = [[], [], [], []];
  const best = byRule ? tiers[0] : tiers[2];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES && best.length < max; page++) {
    const { items, next_cursor } = await store.testRuns.listForProject(run.project_id, PAGE, cursor, run.id);
    for (const r of items) {
      if (r.id >= run.id || !BASE_STATUSES.has(r.status)) continue;
      const wanted = !!byRule?.wants(r);
      const tier = tiers[(wanted ? 0 : 2) + (isRerun(r) ? 1 : 0)];
      if (tier.length < max) tier.push({ run: r, rule: wanted ? byRule!.rule : 'previous_run' });
      if (best.length >= max) break;
    }
    if (!next_cursor) break;
    cursor = next_cursor;
  }
  return tiers.flat().slice(0, max);
}

/**
 * The default base: among the best few candidates, the first that ran every case this run
 * ran, else the best. A full run after a run of one test is compared with the full run
 * before it, not with the one test (which would call every other test new).
 */
async function defaultBase(store: Store, orgId: string, run: TestRun, now: CompareRun): Promise<{ run: TestRun; results: CompareRun; rule: BaseRule } | undefined> {
  const candidates = await defaultBaseCandidates(store, run, COVERING_CANDIDATES);
  const wanted = [...lastAttempts(now.results).keys()];
  let first: { run: TestRun; results: CompareRun; rule: BaseRule } | undefined;
  for (const c of candidates) {
    const results = await resultsOf(store, orgId, c.run);
    const had = lastAttempts(results.results);
    const chosen = { run: c.run, results, rule: c.rule };
    if (wanted.every((k) => had.has(k))) return chosen;
    first ??= chosen;
  }
  return first;
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
 * outside may carry no name: those are named by their stored test. A base case this run
 * did not run is "removed" only when its test (or parameter set) is gone; a test that
 * still exists was just not selected ("not_run").
 */
export async function runComparisonOf(store: Store, orgId: string, run: TestRun, baseId?: string): Promise<RunCompare> {
  const now = await resultsOf(store, orgId, run);
  const chosen = baseId
    ? await (async () => {
        const named = await namedBaseRun(store, orgId, run, baseId);
        return { run: named, results: await resultsOf(store, orgId, named), rule: 'named' as const };
      })()
    : await defaultBase(store, orgId, run, now);
  const before = chosen?.results ?? null;
  // Read only the tests that matter: results with no name, and base cases this run did not run.
  const ran = lastAttempts(now.results);
  const unnamed = [...now.results, ...(before?.results ?? [])].filter((r) => typeof r.metadata.name !== 'string');
  const notHere = [...lastAttempts(before?.results ?? []).entries()].filter(([key]) => !ran.has(key)).map(([, r]) => r);
  const ids = new Set([...unnamed, ...notHere].map((r) => r.test_id));
  const tests = new Map<string, TestRecord | undefined>();
  await mapLimited([...ids].slice(0, 500), 8, async (testId) => tests.set(testId, await store.tests.get(orgId, testId)));
  const names = new Map<string, string>();
  for (const [id, test] of tests) if (test) names.set(id, test.name);
  const stillExists = (r: CompareResult) => {
    const test = tests.get(r.test_id);
    return !!test && test.project_id === run.project_id && (!r.parameter_set || test.parameter_sets.length >= r.parameter_set.index);
  };
  return compareRuns(now, before, names, chosen?.rule, stillExists);
}
