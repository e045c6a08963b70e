import { z } from 'zod';
import { IsoDateTime, JsonObject } from '../contracts/common.ts';
import { baselineModes } from '../visual/baseline-store.ts';
import { limits } from '../contracts/limits.ts';
import { TestingStateSchema, type TestingState } from '../contracts/run-state.ts';

/**
 * The run graph's state: the spec's TestingState plus a `graph` object with what the
 * graph itself needs to be resumable and auditable — the run's configuration, the route
 * each node took, per-test attempts and healing, approvals and the limits that fired.
 * This whole object is what a checkpoint serialises.
 */

/** Tests a run executes in parallel when neither the request nor the project says. */
export const DEFAULT_MAX_CONCURRENCY = 2;

export const limitNames = ['COST_LIMIT_PER_RUN', 'COST_LIMIT_PER_TEST', 'MAX_ITERATIONS', 'MAX_SCREENSHOTS', 'EXECUTION_TIMEOUT'] as const;
export const LimitName = z.enum(limitNames).describe('Which limit fired');
export type LimitName = z.output<typeof LimitName>;

export const LimitEventSchema = z.object({
  limit: LimitName,
  message: z.string().describe('What happened, e.g. "run cost 10.20 USD reached COST_LIMIT_PER_RUN (10 USD)"'),
  at: IsoDateTime,
  node: z.string().describe('Node that observed the limit'),
  test_id: z.string().nullable().default(null).describe('Test concerned, or null for the whole run'),
});
export type LimitEvent = z.output<typeof LimitEventSchema>;

export const RunConfigSchema = z.object({
  thread_id: z.string().min(1),
  organization_id: z.string().min(1),
  project_id: z.string().min(1),
  trigger: z.string().default('api'),
  test_ids: z.array(z.string()).nullable().default(null).describe('Tests asked for, in order; null to use the project\'s tests'),
  healing_enabled: z.boolean().default(true),
  require_test_plan_approval: z.boolean().default(false),
  require_healing_approval: z.boolean().default(false),
  approval_timeout_seconds: z.number().int().min(1).max(86_400).default(limits.APPROVAL_TIMEOUT_SECONDS),
  max_concurrency: z.number().int().min(1).max(32).default(DEFAULT_MAX_CONCURRENCY).describe('Tests executed in parallel (the Map state\'s MaxConcurrency)'),
  cost_limit_usd: z.number().positive().max(limits.COST_LIMIT_PER_RUN_USD).default(limits.COST_LIMIT_PER_RUN_USD),
  baseline_mode: z.enum(baselineModes).default('missing').describe('What visual assertions may do with baselines'),
  retries: z.number().int().min(0).max(limits.MAX_TEST_RETRIES).default(0).describe('Times a failed test is run again before it counts as failed'),
  cost_limit_per_test_usd: z.number().positive().max(limits.COST_LIMIT_PER_TEST_USD).default(limits.COST_LIMIT_PER_TEST_USD),
  /** Stored result attempts before this execution of the thread (raised by replay so attempts never collide). */
  attempt_offset: z.number().int().nonnegative().default(0),
});
export type RunConfig = z.output<typeof RunConfigSchema>;

export const healStatuses = ['none', 'awaiting_approval', 'approved', 'applied', 'rejected', 'cannot_heal', 'exhausted'] as const;
export const HealRecordSchema = z.object({
  status: z.enum(healStatuses),
  attempts: z.number().int().nonnegative().default(0).describe('Fixes proposed so far (at most SELF_HEAL_MAX_RETRIES)'),
  reason: z.string().nullable().default(null),
  proposal: JsonObject.nullable().default(null).describe('The fix awaiting approval or last applied: { test, changes, confidence, kind }'),
});
export type HealRecord = z.output<typeof HealRecordSchema>;

export const approvalDecisions = ['approved', 'modified', 'rejected', 'expired', 'cancelled'] as const;
export const ApprovalDecision = z.enum(approvalDecisions);
export type ApprovalDecision = z.output<typeof ApprovalDecision>;

export const ApprovalEntrySchema = z.object({
  approval_id: z.string(),
  interrupt_key: z.string().describe('Which interrupt: "plan" or "heal:<test_id>:<attempt>"'),
  node: z.enum(['execute_test', 'self_heal']),
  test_id: z.string().nullable().default(null),
  status: z.enum(['pending', ...approvalDecisions, 'superseded']).describe('superseded: a replay went back to before this approval was decided; it is asked again'),
  reason: z.string().describe('Why the run was interrupted'),
  requested_at: IsoDateTime,
  expires_at: IsoDateTime,
  decided_at: IsoDateTime.nullable().default(null),
  decided_by: z.string().nullable().default(null),
  comment: z.string().nullable().default(null),
});
export type ApprovalEntry = z.output<typeof ApprovalEntrySchema>;

export const GraphFieldsSchema = z.object({
  config: RunConfigSchema,
  /** Route each one-shot node took (analyze_code, plan_tests, report): resumed nodes return it. */
  routes: z.record(z.string(), z.string()).default({}),
  root_steps: z.number().int().nonnegative().default(0).describe('Root nodes executed (analyze_code, plan_tests, report)'),
  test_steps: z.record(z.string(), z.number().int().nonnegative()).default({}).describe('Nodes executed per test (execute_test, self_heal)'),
  attempts: z.record(z.string(), z.number().int().nonnegative()).default({}).describe('Executions per test'),
  rerun: z.array(z.string()).default([]).describe('Tests to execute again (a fix was applied)'),
  heal: z.record(z.string(), HealRecordSchema).default({}),
  test_costs: z.record(z.string(), z.number().nonnegative()).default({}),
  approvals: z.array(ApprovalEntrySchema).default([]),
  limits: z.array(LimitEventSchema).default([]).describe('Every limit that fired'),
  stop: LimitEventSchema.nullable().default(null).describe('The limit that stopped the run, or null'),
  screenshots_dropped: z.number().int().nonnegative().default(0),
  forked_from: z.object({ thread_id: z.string(), checkpoint_id: z.string() }).nullable().default(null),
});
export type GraphFields = z.output<typeof GraphFieldsSchema>;

export const RunGraphStateSchema = TestingStateSchema.extend({ graph: GraphFieldsSchema });
export type RunGraphState = z.output<typeof RunGraphStateSchema>;

/** The state a run starts with (the input checkpoint). */
export function initialState(input: { run_id: string; started_at: string; app_url?: string; codebase_path?: string; pr_number?: number | null; changed_files?: string[]; user_id?: string | null; max_iterations?: number; config: z.input<typeof RunConfigSchema> }): RunGraphState {
  return RunGraphStateSchema.parse({
    run_id: input.run_id,
    started_at: input.started_at,
    app_url: input.app_url ?? '',
    codebase_path: input.codebase_path ?? '',
    pr_number: input.pr_number ?? null,
    changed_files: input.changed_files ?? [],
    user_id: input.user_id ?? null,
    max_iterations: input.max_iterations ?? limits.MAX_ITERATIONS,
    next_agent: 'analyze_code',
    graph: { config: input.config },
  });
}

/** Final result statuses: a test with one of these does not run again unless a fix was applied. */
export const finalStatuses = new Set(['PASSED', 'FAILED', 'HEALED', 'SKIPPED']);

export function resultOf(state: TestingState, testId: string) {
  return state.test_results.find((r) => r.test_id === testId);
}

/** The results of the planned tests, one per test (the one resultOf reads), in plan order: what the run counts and stores. */
export function plannedResults(state: TestingState) {
  return [...new Set(state.test_plan.map((t) => t.id))].flatMap((id) => {
    const r = resultOf(state, id);
    return r ? [r] : [];
  });
}

/** Fields of TestingState a caller may replace (approval modify, fork). */
export const editableFields = Object.keys(TestingStateSchema.shape).filter((f) => f !== 'run_id') as Array<keyof TestingState>;

export function serializeState(state: RunGraphState): string {
  return Buffer.from(JSON.stringify(state), 'utf8').toString('base64');
}

export function deserializeState(blob: string): RunGraphState {
  return RunGraphStateSchema.parse(JSON.parse(Buffer.from(blob, 'base64').toString('utf8')));
}
