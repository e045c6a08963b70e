import { z } from 'zod';
import type { Hono } from 'hono';
import { AppError, notFound, validationFailed } from '@svc/core/errors';
import { TestSchema } from '@svc/core/contracts/test';
import { healedDefinition, mergeCaseHeals, type RunHeal } from '@svc/core/healing/apply-heals';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { actorOf } from '../actor.ts';
import { ETAG_HEADER, IF_MATCH_HEADER, expectedRevision, revisionEtag } from '../if-match.ts';
import { runGraphOf, type RunGraphAppDeps } from './runs.ts';

const IdParams = z.strictObject({ id: z.uuid().describe('Test id') });
const ApplyHealInput = z.strictObject({
  run_id: z.string().min(1).max(200).describe('The run whose heals of this test are written into it (a heal run, or any run that healed it): its id, or its thread id (a heal run\'s heal_run.thread_id)'),
  expected_revision: z.number().int().positive().optional().describe('Write only if the test is still at this revision (or send If-Match)'),
});
const ApplyHealResponse = z.object({
  test: TestSchema,
  run_id: z.string(),
  changes: z.array(z.object({ path: z.string().describe('e.g. steps.1.selector'), from: z.string(), to: z.string() })).describe('Each locator written, before and after'),
});

/**
 * Makes a run's heals permanent: the locators a run healed in a test — the self-healer's
 * applied fix and the in-step heals of the test's last execution, which passed on them —
 * are written into the stored test as a new revision (source `healed`, by the caller), so
 * the next run needs no healing. Docs: docs/healing.md "Writing heals into the test".
 */
export function applyHealRoutes(app: Hono<ApiEnv>, deps: RunGraphAppDeps, registry: RouteDef[]) {
  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/tests/:id/apply-heal', summary: "Write a run's heals of a test into the test (a new revision, source healed)", tags: ['tests', 'healing'], auth: 'member', params: IdParams, body: ApplyHealInput, headers: [IF_MATCH_HEADER],
    responses: {
      200: { description: 'the test as healed (ETag: its revision) and the locators changed', schema: ApplyHealResponse, headers: ETAG_HEADER },
      400: { description: 'a run_id of another project than the test\'s' },
      404: { description: 'no such test or run in this organization' },
      409: { description: 'nothing to write: the run healed nothing in the test, its last execution failed, the test uses flows, or the test changed since the run' },
      412: { description: 'the test is no longer at the revision in If-Match or expected_revision' },
    },
  }, async ({ c, params, body, access, principal }) => {
    const org = access.organizationId;
    const test = await deps.store.tests.get(org, params.id);
    if (!test) throw notFound('test');
    const run = await runGraphOf(deps).runs.resolve(org, body.run_id).then(
      (found) => found.run,
      (err: unknown) => {
        throw err instanceof AppError && err.code === 'NOT_FOUND' ? notFound(`run ${body.run_id} (run_id)`) : err;
      },
    );
    if (run.project_id !== test.project_id) throw validationFailed([{ path: 'run_id', message: `run ${run.id} is a run of another project than the test's` }]);

    // The test's last execution in the run — of each case, for a parameterised test — which must all have passed, on their heals.
    const executions = (await deps.store.testRuns.results(org, run.id)).filter((r) => r.test_id === test.id);
    const lastOfCase = new Map<number, (typeof executions)[number]>();
    for (const r of executions) {
      const index = r.parameter_set?.index ?? 0;
      if ((lastOfCase.get(index)?.attempt ?? -1) < r.attempt) lastOfCase.set(index, r);
    }
    const lasts = [...lastOfCase.values()];
    if (!lasts.length) throw new AppError('CONFLICT', `run ${run.id} did not run this test`);
    const caseName = (r: (typeof lasts)[number]) => (r.parameter_set ? `case ${r.parameter_set.name}` : 'the test');
    const caseOf = (r: (typeof lasts)[number]) => (r.parameter_set ? ` (${caseName(r)})` : '');
    const failed = lasts.find((r) => r.status === 'failed');
    if (failed) {
      // "Did not hold" only when something was healed; a failure the run did not heal (an assertion, a removed element) says so.
      const tried = lasts.some((r) => r.status === 'healed' || inStepHeals(r.metadata).length > 0) || (await selfHealFix(deps, run.thread_id, test.id)).length > 0;
      throw new AppError('CONFLICT', `the test's last execution${caseOf(failed)} in run ${run.id} failed${tried ? ': its heals did not hold' : `, and the run healed nothing in it${failed.error_message ? ` (${failed.error_message.split('\n')[0].slice(0, 200)})` : ''}: nothing to write`}`);
    }
    const healedCases = lasts.filter((r) => r.status === 'healed');
    if (!healedCases.length) throw new AppError('CONFLICT', `the test's last execution in run ${run.id} ${lasts[0].status} without healing: nothing to write`);

    const merged = mergeCaseHeals([
      { label: 'the self-healer\'s fix', heals: await selfHealFix(deps, run.thread_id, test.id) },
      ...healedCases.map((r) => ({ label: caseName(r), heals: inStepHeals(r.metadata) })),
    ]);
    if (!merged.ok) throw new AppError('CONFLICT', merged.reason);
    const heals: RunHeal[] = merged.heals;
    const healed = healedDefinition(test, heals);
    if (!healed.ok) throw new AppError('CONFLICT', healed.reason);
    const updated = await deps.store.tests.update(org, test.id, { steps: healed.steps as never, assertions: healed.assertions as never }, { changed_by: actorOf(principal), source: 'healed' }, expectedRevision(c, body.expected_revision));
    if (!updated) throw notFound('test');
    c.set('audit', { action: 'test.apply_heal', resource: `test:${test.id}`, metadata: { run_id: run.id, revision: updated.revision, changes: healed.changes.length } });
    c.header('ETag', revisionEtag(updated.revision));
    return c.json({ test: updated, run_id: run.id, changes: healed.changes });
  });
}

/** The self-healer's fix the run applied to the test (its re-run validated it), as heals in step order. */
async function selfHealFix(deps: RunGraphAppDeps, threadId: string, testId: string): Promise<RunHeal[]> {
  const { state } = await runGraphOf(deps).checkpointer.load(threadId);
  const h = state.graph.heal[testId];
  if (h?.status !== 'applied') return [];
  const fix = h.proposal as { changes?: Array<Record<string, unknown>>; test?: { steps?: Array<Record<string, unknown>> } } | null;
  return (fix?.changes ?? []).flatMap((change) => {
    const step = typeof change.step === 'number' ? fix?.test?.steps?.[change.step] : undefined;
    const field = typeof change.extract_field === 'string' ? change.extract_field : undefined;
    const locator = field === undefined ? step?.selector : (step?.fields as Record<string, { selector?: unknown }> | undefined)?.[field]?.selector;
    return step && typeof change.from === 'string' ? [{ index: change.step as number, ...(field !== undefined && { field }), original: change.from, healed_locator: locator }] : [];
  });
}

/** The in-step heals an execution recorded (metadata.heals). */
function inStepHeals(metadata: Record<string, unknown>): RunHeal[] {
  const heals = Array.isArray(metadata.heals) ? (metadata.heals as Array<Record<string, unknown>>) : [];
  return heals.filter((h) => typeof h.index === 'number' && typeof h.original === 'string').map((h) => ({
    index: h.index as number,
    ...(typeof h.field === 'string' && { field: h.field }),
    original: h.original as string,
    healed_locator: h.healed_locator,
  }));
}
