import type { Store } from '@svc/core/store/index';
import { notFound, validationFailed } from '@svc/core/errors';
import { caseId } from '@svc/core/contracts/parameter-sets';
import { RunStartInput } from '@svc/core/run-graph/contracts';
import type { RunManager } from './run-manager.ts';

export interface OneTestRun {
  testId: string;
  /** One case of a parameterised test (1-based); absent: every case. */
  set?: number;
  /** Run settings (trigger, healing_enabled, thread_id, ...), as POST /api/v1/test/run takes them. */
  settings: Record<string, unknown>;
  /**
   * A run of the same project (the failure's, the retried one) whose source (branch, commit,
   * pull request) and app URL this run carries, unless the settings give their own.
   */
  sourceOfRun?: string;
}

/**
 * A run of one stored test: retry, execute and heal requests start runs this way. A test,
 * parameter set or source run the organization does not have is a 404 or a 400 naming
 * the field, before anything is created.
 */
export async function startOneTestRun(store: Store, runGraph: RunManager, orgId: string, userId: string | null, r: OneTestRun) {
  const test = await store.tests.get(orgId, r.testId);
  if (!test) throw notFound('test');
  if (r.set !== undefined && r.set > test.parameter_sets.length) throw validationFailed([{ path: 'parameter_set', message: test.parameter_sets.length ? `the test has ${test.parameter_sets.length} parameter sets` : 'the test has no parameter sets' }]);
  const from = r.sourceOfRun === undefined ? undefined : await runOfProject(store, orgId, r.sourceOfRun, test.project_id);
  // The failure was seen at the run's URL (a preview deployment, a local build): a heal or
  // retry against the project's default URL would test another app.
  const input = RunStartInput.parse({ ...(from?.app_url && { app_url: from.app_url }), ...r.settings, project_id: test.project_id, test_ids: [r.set === undefined ? test.id : caseId(test.id, r.set)] });
  const source = input.source ? undefined : from?.source ?? undefined;
  return { test, ...(await runGraph.start(orgId, userId, input, undefined, source)) };
}

/** A run named by a request's run_id; it must be one of the test's project. */
async function runOfProject(store: Store, orgId: string, runId: string, projectId: string) {
  const from = await store.testRuns.get(orgId, runId);
  if (!from) throw notFound(`run ${runId} (run_id)`);
  if (from.project_id !== projectId) throw validationFailed([{ path: 'run_id', message: `run ${runId} is a run of another project than the test's` }]);
  return from;
}

/** The source of a run (none when it had none); the run must be one of the test's project. */
export async function sourceOfRun(store: Store, orgId: string, runId: string, projectId: string) {
  return (await runOfProject(store, orgId, runId, projectId)).source ?? undefined;
}
