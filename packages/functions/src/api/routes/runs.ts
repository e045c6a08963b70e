import { withScopedThread } from '@svc/core/run-graph/thread-names';
import { z } from 'zod';
import type { Hono } from 'hono';
import { AppError, validationFailed } from '@svc/core/errors';
import { MAX_PARAMETER_SETS } from '@svc/core/contracts/parameter-sets';
import { isTerminalRunStatus, RunResultsQuery, TestRunSchema, type TestRun } from '@svc/core/contracts/test-run';
import { resultCaseId, TestResultRecordSchema } from '@svc/core/contracts/test-result';
import { RunStartInput, RunStartedSchema, RunStatusSchema } from '@svc/core/run-graph/contracts';
import { runSummaryOf } from '@svc/core/run-graph/run-summary';
import { renderReports, reportFormats } from '@svc/core/reporting/index';
import { runImages } from '../report-images.ts';
import type { Principal } from '@svc/core/services/identity';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import type { RunManager } from '../../run-graph/run-manager.ts';
import { startOneTestRun } from '../../run-graph/one-test-run.ts';
import { streamRoutes } from './stream.ts';
import { approvalRoutes } from './approvals.ts';
import { timeTravelRoutes } from './time-travel.ts';
import { runArtifactRoutes } from './run-artifacts.ts';
import { runCompareRoutes } from './run-compare.ts';
import { runListRoutes } from './run-list.ts';

/** AppDeps plus the run graph (absent: every run endpoint answers 501 NOT_CONFIGURED). */
export type RunGraphAppDeps = AppDeps & { runGraph?: RunManager };

export function runGraphOf(deps: RunGraphAppDeps): RunManager {
  if (!deps.runGraph) throw new AppError('NOT_CONFIGURED', 'the run graph is not configured on this server');
  return deps.runGraph;
}

export const userOf = (p: Principal | undefined) => p?.userId ?? null;

/**
 * A run as its reports take it: an unfinished one (running, cancelled) with its planned
 * cases from the run state, so those not run are listed as skipped with the reason.
 */
export async function reportSummaryOf(deps: RunGraphAppDeps, orgId: string, run: TestRun, threadId: string) {
  const unfinished = run.status === 'cancelled' || !isTerminalRunStatus(run.status);
  const plan = unfinished ? await runGraphOf(deps).checkpointer.load(threadId).then(({ state }) => state.test_plan, () => undefined) : undefined;
  return runSummaryOf(deps.store, orgId, run, plan);
}

const IdParams = z.strictObject({ id: z.string().min(1).max(200).describe('Run id (or thread id)') });
const TestIdParams = z.strictObject({ id: z.uuid().describe('Test id') });
const ResultsResponse = z.object({ run: TestRunSchema, items: z.array(TestResultRecordSchema.extend({ attempt: z.number().int() })), next_cursor: z.string().nullable().describe('Cursor of the next page when limit cut the list, else null') });
const RetryInput = RunStartInput.omit({ project_id: true, test_ids: true, trigger: true })
  .partial()
  .extend({
    parameter_set: z.number().int().min(1).max(MAX_PARAMETER_SETS).optional().describe('Retry only this parameter set (1-based) of a parameterised test'),
    run_id: z.uuid().optional().describe("The run whose failure is retried: the new run carries that run's source (branch, commit, pull request, host) and app URL, so it tests, compares and reports the same code. `source` or `app_url` given as well wins"),
  });
const ExecuteInput = RunStartInput.omit({ project_id: true, test_ids: true })
  .partial()
  .extend({
    test_id: z.uuid().describe('The test to execute'),
    parameter_set: z.number().int().min(1).max(MAX_PARAMETER_SETS).optional().describe('Only this parameter set (1-based) of a parameterised test; default all its cases'),
  });
// `markdown` is accepted for `md`, as the report downloads (POST …/download) accept both.
const ReportQuery = z.strictObject({
  format: z.enum([...reportFormats, 'markdown']).default('json').transform((v) => (v === 'markdown' ? 'md' : v)).describe('json (default), html, md (or markdown) or junit'),
});

/**
 * Run endpoints (spec: versioned and unversioned families) and, through it, every run
 * graph route: streams, approvals and time travel. Mounted by the app with
 * `runGraphRoutes(app, deps, registry)`.
 */
export function runGraphRoutes(app: Hono<ApiEnv>, deps: RunGraphAppDeps, registry: RouteDef[]) {
  runRoutes(app, deps, registry);
  streamRoutes(app, deps, registry);
  approvalRoutes(app, deps, registry);
  timeTravelRoutes(app, deps, registry);
  runArtifactRoutes(app, deps, registry);
  runCompareRoutes(app, deps, registry);
  runListRoutes(app, deps, registry);
}

function runRoutes(app: Hono<ApiEnv>, deps: RunGraphAppDeps, registry: RouteDef[]) {
  const started = (run: z.output<typeof TestRunSchema>, threadId: string) => ({ run, thread_id: threadId, job_id: run.id, stream_url: `/stream/${encodeURIComponent(threadId)}` });

  /** A run of one stored test, or of one case of it (`set`, 1-based): retry and execute start runs this way. */
  const startOneTest = (orgId: string, userId: string | null, testId: string, set: number | undefined, settings: Record<string, unknown>, sourceOf?: string) =>
    startOneTestRun(deps.store, runGraphOf(deps), orgId, userId, { testId, set, settings: withScopedThread(orgId, settings as { thread_id?: string }), sourceOfRun: sourceOf });

  for (const [path, summary] of [
    ['/api/v1/test/run', 'Start test execution (the run graph)'],
    ['/api/v1/tests/run', 'Start a test run (dashboard flow)'],
    ['/api/tests/run', 'Start test execution'],
  ] as const) {
    mountRoute(app, deps, registry, {
      method: 'post', path, summary, tags: ['runs'], auth: 'member', body: RunStartInput,
      responses: { 201: { description: 'run started', schema: RunStartedSchema }, 404: { description: 'no such project or test' } },
    }, async ({ c, body, access, principal }) => {
      const { run, threadId } = await runGraphOf(deps).start(access.organizationId, userOf(principal), withScopedThread(access.organizationId, body));
      c.set('audit', { action: 'test_run.start', resource: `test_run:${run.id}`, metadata: { project_id: run.project_id, thread_id: threadId } });
      return c.json(started(run, threadId), 201);
    });
  }

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/v1/test/status/:id', summary: 'Execution status of a run', tags: ['runs'], auth: 'viewer', params: IdParams,
    responses: { 200: { description: 'status', schema: RunStatusSchema }, 404: { description: 'no such run' } },
  }, async ({ c, params, access }) => {
    const g = runGraphOf(deps);
    const { threadId } = await g.runs.resolve(access.organizationId, params.id);
    return c.json(await g.runs.status(access.organizationId, params.id, (await g.isActive(threadId))));
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/jobs/:id', summary: 'Job status (a run is a job; its id is the run id)', tags: ['runs'], auth: 'viewer', params: IdParams,
    responses: { 200: { description: 'status', schema: RunStatusSchema.extend({ id: z.string(), type: z.literal('test_run'), status: z.string() }) }, 404: { description: 'no such job' } },
  }, async ({ c, params, access }) => {
    const g = runGraphOf(deps);
    const { threadId } = await g.runs.resolve(access.organizationId, params.id);
    const status = await g.runs.status(access.organizationId, params.id, (await g.isActive(threadId)));
    return c.json({ id: status.run.id, type: 'test_run' as const, status: status.run.status, ...status });
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/v1/test/cancel/:id', summary: 'Cancel a run: stops its tests and browser, status cancelled', tags: ['runs'], auth: 'member', params: IdParams,
    responses: { 200: { description: 'cancelled', schema: TestRunSchema }, 404: { description: 'no such run' }, 409: { description: 'the run already finished' } },
  }, async ({ c, params, access, principal }) => {
    const run = await runGraphOf(deps).cancel(access.organizationId, params.id, userOf(principal));
    c.set('audit', { action: 'test_run.cancel', resource: `test_run:${run.id}` });
    return c.json(run);
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/v1/tests/:id/results', summary: 'Stored results of a run, one per test and attempt (status and limit narrow them)', tags: ['runs'], auth: 'viewer', params: IdParams, query: RunResultsQuery,
    responses: { 200: { description: 'results', schema: ResultsResponse }, 400: { description: 'a bad status, limit or cursor (named)' }, 404: { description: 'no such run' } },
  }, async ({ c, params, query, access }) => {
    const { run } = await runGraphOf(deps).runs.resolve(access.organizationId, params.id);
    // Results come in the store's order (by case, then attempt); a cursor is the last one given, so pages neither repeat nor skip.
    const key = (r: Parameters<typeof resultCaseId>[0] & { attempt: number }) => `${resultCaseId(r)}#${String(r.attempt).padStart(3, '0')}`;
    const after = query.cursor === undefined ? undefined : resultsCursorKey(query.cursor);
    const all = (await deps.store.testRuns.results(access.organizationId, run.id)).filter((r) => (!query.status || r.status === query.status) && (after === undefined || key(r) > after));
    const items = query.limit === undefined ? all : all.slice(0, query.limit);
    // URL-safe, as every list's: the plain key's '#' was cut off as a fragment by clients that pasted it into a URL (found by QA).
    return c.json({ run, items, next_cursor: items.length < all.length ? Buffer.from(key(items.at(-1)!), 'utf8').toString('base64url') : null });
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/tests/:id/retry', summary: 'Retry a test: a new run of that test (trigger retry)', tags: ['runs'], auth: 'member', params: TestIdParams, body: RetryInput,
    responses: { 201: { description: 'run started', schema: RunStartedSchema }, 400: { description: 'a bad field (named): a parameter_set the test does not have, a run_id of another project' }, 404: { description: 'no such test, or no such run_id' } },
  }, async ({ c, params, body, access, principal }) => {
    const { parameter_set: set, run_id: from, ...settings } = body;
    const { test, run, threadId } = await startOneTest(access.organizationId, userOf(principal), params.id, set, { ...settings, trigger: 'retry' }, from);
    c.set('audit', { action: 'test.retry', resource: `test:${test.id}`, metadata: { run_id: run.id, ...(from && { retry_of: from }) } });
    return c.json(started(run, threadId), 201);
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/execute', summary: 'Execute a single test (spec: svc_test\'s route): a run of that one test, as POST /api/v1/test/run starts it', tags: ['runs'], auth: 'member', body: ExecuteInput,
    responses: { 201: { description: 'run started', schema: RunStartedSchema }, 400: { description: 'a bad field (named), or a parameter_set the test does not have' }, 404: { description: 'no such test' } },
  }, async ({ c, body, access, principal }) => {
    const { test_id: testId, parameter_set: set, ...settings } = body;
    const { test, run, threadId } = await startOneTest(access.organizationId, userOf(principal), testId, set, settings);
    c.set('audit', { action: 'test_run.start', resource: `test_run:${run.id}`, metadata: { project_id: run.project_id, thread_id: threadId, test_id: test.id } });
    return c.json(started(run, threadId), 201);
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/reports/:run_id', summary: 'Report of a run: json (default), html, md or junit', tags: ['runs'], auth: 'viewer',
    params: z.strictObject({ run_id: z.string().min(1).max(200) }), query: ReportQuery,
    responses: { 200: { description: 'the report in the asked format' }, 404: { description: 'no such run' } },
  }, async ({ c, params, query, access }) => {
    const { run, threadId } = await runGraphOf(deps).runs.resolve(access.organizationId, params.run_id);
    const summary = await reportSummaryOf(deps, access.organizationId, run, threadId);
    const embed = query.format === 'html' ? await runImages(deps, summary, threadId) : undefined;
    const [report] = renderReports(summary, [query.format], embed ? { embed: (key) => embed.get(key) } : {});
    return c.body(report.body, 200, { 'content-type': report.contentType });
  });
}

const RESULT_KEY = /^[0-9a-f-]{36}(\[\d{1,4}\])?#\d{3}$/;

/** The result key a results cursor stands for: base64url, or the plain key earlier answers gave. */
function resultsCursorKey(cursor: string): string {
  if (RESULT_KEY.test(cursor)) return cursor;
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!RESULT_KEY.test(key)) throw validationFailed([{ path: 'cursor', message: 'not a next_cursor of this list' }]);
  return key;
}
