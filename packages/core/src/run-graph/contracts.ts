import { z } from 'zod';
import { TestRunCreateInput, ApprovalDecisionInput, ApprovalModifyInput, TestRunSchema } from '../contracts/test-run.ts';
import { IsoDateTime, JsonObject } from '../contracts/common.ts';
import { limits } from '../contracts/limits.ts';
import { baselineModes } from '../visual/baseline-store.ts';

/**
 * Request and response bodies of the run graph's endpoints. A run's approval and
 * concurrency settings come from the request, else the project's config, else the
 * defaults (approvals off, 3600 s approval timeout, 2 tests in parallel).
 */
const runGraphSettings = {
  healing_enabled: z.boolean().optional().describe('Run the self-healer on failures (default: project setting, else true)'),
  require_test_plan_approval: z.boolean().optional().describe('Interrupt before execute_test until the plan is approved (default: project setting, else false)'),
  require_healing_approval: z.boolean().optional().describe('Interrupt before self_heal applies a fix (default: project setting, else false)'),
  approval_timeout_seconds: z.number().int().min(1).max(86_400).optional().describe('Seconds an approval may wait; on expiry it counts as a reject (default: project setting, else 3600)'),
  max_concurrency: z.number().int().min(1).max(32).optional().describe('Tests executed in parallel, the Map state\'s MaxConcurrency (default: project setting, else 2)'),
  retries: z.number().int().min(0).max(limits.MAX_TEST_RETRIES).optional().describe(`Times a failed test is run again before it counts as failed, 0..${limits.MAX_TEST_RETRIES}; one that passes on a retry is reported as flaky (default: project setting, else 0)`),
  baseline_mode: z.enum(baselineModes).optional().describe('What visual assertions may do with baselines: missing (record one where none exists), all (also replace one that differs, after a wanted change) or none (a missing one fails) (default: project setting, else missing)'),
};

/** POST /api/v1/test/run, /api/v1/tests/run, /api/tests/run and /api/v1/stream/test. */
export const RunStartInput = TestRunCreateInput.extend({
  ...runGraphSettings,
  max_iterations: z.number().int().min(1).max(limits.MAX_ITERATIONS).optional().describe('Graph iteration cap, 1..50 (default 50)'),
  thread_id: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/).optional().describe("A name for the execution thread (default: the run id), kept in your organization's namespace: the run's thread_id is o-<organization id>-<name>, and either names it in every route"),
});
export type RunStartInput = z.output<typeof RunStartInput>;

/** The same settings under a project's config (PATCH /api/v1/projects/{id} { config: { … } }). */
export const ProjectRunSettings = z.looseObject(runGraphSettings);

export const ApprovalDecisionBody = ApprovalDecisionInput.extend({
  approval_id: z.string().min(1).max(100).optional().describe('Which pending approval of the thread (needed only when several are pending)'),
});
export type ApprovalDecisionBody = z.output<typeof ApprovalDecisionBody>;

export const ApprovalModifyBody = ApprovalModifyInput.extend({
  approval_id: z.string().min(1).max(100).optional().describe('Which pending approval of the thread (needed only when several are pending)'),
});
export type ApprovalModifyBody = z.output<typeof ApprovalModifyBody>;

export const RunStartedSchema = z.object({
  run: TestRunSchema,
  thread_id: z.string().describe('Execution thread: checkpoints, events and approvals hang off it'),
  job_id: z.string().describe('The run id, for GET /api/jobs/{id}'),
  stream_url: z.string().describe('SSE stream of the run (GET, resumable with Last-Event-ID)'),
});

export const RunStatusSchema = z.object({
  thread_id: z.string(),
  active: z.boolean().describe('An execution of the graph is running in this process'),
  next_agent: z.string().describe('Node the graph goes to next'),
  iteration: z.number().int(),
  current_test_index: z.number().int(),
  passed_count: z.number().int(),
  failed_count: z.number().int(),
  skipped_count: z.number().int(),
  total_cost: z.number(),
  pending_approvals: z.array(z.object({ approval_id: z.string(), node: z.string(), test_id: z.string().nullable(), reason: z.string(), expires_at: IsoDateTime })),
  stop: JsonObject.nullable().describe('The limit that stopped the run, or null'),
  last_event_id: z.number().int().describe('Id of the newest SSE event'),
  checkpoint_id: z.string().nullable().describe('Newest checkpoint'),
  run: TestRunSchema.describe('The run record, last (its test_plan last in it): an answer cut short keeps the status and totals'),
});
export type RunStatus = z.output<typeof RunStatusSchema>;
