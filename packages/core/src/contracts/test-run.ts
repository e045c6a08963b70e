import { z } from 'zod';
import { HttpUrl } from './project.ts';
import { IsoDateTime, JsonObject, ListQuery, Uuid } from './common.ts';
import { TestOrCaseId } from './parameter-sets.ts';
import { RunSourceInput, RunSourceSchema } from './run-source.ts';

/**
 * Run lifecycle. The spec names only pending and completed; the rest follow the run
 * graph and the approval workflow (an interrupt parks the run in awaiting_approval).
 */
export const testRunStatuses = ['pending', 'queued', 'running', 'awaiting_approval', 'completed', 'failed', 'cancelled'] as const;
export const TestRunStatus = z
  .enum(testRunStatuses)
  .describe('Run status: pending, queued, running, awaiting_approval, completed, failed or cancelled');
export type TestRunStatus = z.output<typeof TestRunStatus>;

/** Statuses a run never leaves. */
export const terminalRunStatuses: readonly TestRunStatus[] = ['completed', 'failed', 'cancelled'];
export const isTerminalRunStatus = (s: TestRunStatus) => terminalRunStatuses.includes(s);

/** Allowed status transitions (from → to). */
export const testRunTransitions: Record<TestRunStatus, readonly TestRunStatus[]> = {
  pending: ['queued', 'running', 'cancelled', 'failed'],
  queued: ['running', 'cancelled', 'failed'],
  running: ['awaiting_approval', 'completed', 'failed', 'cancelled'],
  awaiting_approval: ['running', 'cancelled', 'failed'],
  completed: [],
  failed: [],
  cancelled: [],
};
export const canTransitionRun = (from: TestRunStatus, to: TestRunStatus) => testRunTransitions[from].includes(to);

export const testRunTriggers = ['manual', 'api', 'agent', 'schedule', 'webhook', 'ci', 'retry', 'heal'] as const;
/** Every trigger a run can have: a start request's, and those svc gives its own runs (a fork, a source-control webhook, a chat command, an automation event). */
export const allRunTriggers = [...testRunTriggers, 'fork', 'vcs', 'chat', 'automation'] as const;
export const TestRunTrigger = z.enum(testRunTriggers).describe('What started the run: manual, api, agent, schedule, webhook, ci, retry or heal (a heal request, POST /api/heal)');

/** A test run (test_runs). */
export const TestRunSchema = z.object({
  id: Uuid.describe('Run id'),
  project_id: Uuid.describe('Project the run belongs to'),
  thread_id: z.string().describe('Execution thread id (unique); checkpoints hang off it'),
  status: TestRunStatus,
  trigger: z.string().describe('What started the run, e.g. manual, api, agent, schedule, webhook, ci, retry, fork, vcs (a source-control webhook), chat (a chat slash command) or automation (a workflow-automation event)'),
  test_plan: z.array(JsonObject).describe('Planned tests (TestSpec objects)'),
  results: JsonObject.describe('Run results summary (report data)'),
  total_tests: z.number().int().nonnegative().describe('Tests in the plan'),
  passed_tests: z.number().int().nonnegative().describe('Tests that passed (including healed)'),
  failed_tests: z.number().int().nonnegative().describe('Tests that failed'),
  error: z.string().nullable().describe('Why the run failed, or null'),
  created_at: IsoDateTime.describe('When the run was requested'),
  started_at: IsoDateTime.nullable().describe('When execution started, or null while pending/queued'),
  completed_at: IsoDateTime.nullable().describe('When the run reached a terminal status, or null'),
  source: RunSourceSchema.nullable().optional(),
  app_url: z.string().optional().describe("The application URL the run tested (the request's app_url, else the project's); a retry or heal of the run tests the same URL. Absent on runs from before it was kept"),
  max_concurrency: z.number().int().min(1).max(32).optional().describe('Tests the run executes in parallel, as resolved when it started (the request, else the project, else 2); reports say it as workers. Absent on runs from before it was kept'),
});
export type TestRun = z.output<typeof TestRunSchema>;

/** POST /api/v1/tests/run (and /api/tests/run) body. */
export const TestRunCreateInput = z.strictObject({
  project_id: Uuid.describe('Project to run'),
  test_ids: z.array(TestOrCaseId).min(1).max(1000).optional().describe('Run only these tests (a case id <test id>[n] runs only that parameter set); omit to plan from the codebase/app'),
  app_url: HttpUrl.optional().describe("Application URL to test; defaults to the project's app_url"),
  codebase_path: z.string().min(1).max(4096).optional().describe('Codebase to analyse; defaults to the project repository'),
  pr_number: z.number().int().positive().optional().describe('Pull request being tested, if any (source.pull_request.number sets it too)'),
  source: RunSourceInput.optional(),
  changed_files: z.array(z.string().min(1)).max(10_000).optional().describe('Files changed by the pull request, to focus the plan'),
  trigger: TestRunTrigger.default('api'),
  healing_enabled: z.boolean().default(true).describe('Run the self-healer on selector failures (default true)'),
  require_test_plan_approval: z.boolean().default(false).describe('Pause before executing tests until the plan is approved (default false)'),
  require_healing_approval: z.boolean().default(false).describe('Pause before applying fixes until they are approved (default false)'),
  max_iterations: z.number().int().min(1).max(50).default(50).describe('Graph iteration cap, 1..50 (default 50)'),
  cost_limit_usd: z.number().positive().max(10).optional().describe('Hard cost cap for the run in USD (at most 10)'),
});
export type TestRunCreateInput = z.output<typeof TestRunCreateInput>;

/** GET /api/runs query: a project's runs (runs are kept per project), newest first. */
export const TestRunListQuery = ListQuery.extend({
  project_id: Uuid.describe('The project whose runs to list'),
  status: TestRunStatus.optional().describe('Only runs with this status'),
  // A misspelt trigger listed nothing, silently (found by QA).
  trigger: z.enum(allRunTriggers).optional().describe('Only runs with this trigger'),
});
export type TestRunListQuery = z.output<typeof TestRunListQuery>;

/** A run in a list: the run without its test plan (the plan's test specs; GET /api/v1/test/status/{id} has it). */
export const TestRunListItemSchema = TestRunSchema.omit({ test_plan: true });

/** GET /api/v1/tests/{id}/results query: every result by default; a status and a page narrow it. */
export const RunResultsQuery = z.strictObject({
  status: z
    .enum(['pending', 'running', 'passed', 'failed', 'skipped', 'healed', 'PENDING', 'RUNNING', 'PASSED', 'FAILED', 'SKIPPED', 'HEALED'])
    .transform((s) => s.toLowerCase())
    .optional()
    .describe('Only results with this status, e.g. failed'),
  limit: z.coerce.number().int().min(1).max(1000).optional().describe('Page size (default: all)'),
  // base64url, as every list's cursor; the plain `<id>#001` form of earlier answers is still read ('#' must be sent as %23).
  cursor: z.string().regex(/^([0-9a-f-]{36}(\[\d{1,4}\])?#\d{3}|[A-Za-z0-9_-]{40,80})$/, 'not a next_cursor of this list').optional().describe('next_cursor of the previous page'),
});
export type RunResultsQuery = z.output<typeof RunResultsQuery>;

/** Approve/reject an interrupted run (approval workflow). */
export const ApprovalDecisionInput = z.strictObject({
  comment: z.string().max(2000).optional().describe('Why the decision was made'),
});
export type ApprovalDecisionInput = z.output<typeof ApprovalDecisionInput>;

/** Modify the interrupted run's state, then resume. */
export const ApprovalModifyInput = z.strictObject({
  state: JsonObject.describe('Fields of the run state to replace before resuming (e.g. test_plan); the results of tests that ran stay as they are, and a result must be of a planned test'),
  comment: z.string().max(2000).optional().describe('Why the state was modified'),
});
export type ApprovalModifyInput = z.output<typeof ApprovalModifyInput>;
