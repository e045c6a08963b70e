import { z } from 'zod';
import { acceptAliases, IsoDateTime, JsonObject } from './common.ts';
import { durationSecondsAlias } from './duration.ts';
import { limits } from './limits.ts';
import { TestSpecSchema } from './test-spec.ts';
import type { TestStatusValue } from './test.ts';

/**
 * The run state (spec "Run state (TestingState)") carried through the graph and
 * saved in every checkpoint. Every field has a default except run_id and started_at,
 * so `TestingStateSchema.parse({ run_id, started_at })` is a valid initial state.
 */

/** Result status in the run state: upper case (stored results use lower case). */
export const testStatuses = ['PENDING', 'RUNNING', 'PASSED', 'FAILED', 'SKIPPED', 'HEALED'] as const;
export const TestStatus = z.enum(testStatuses).describe('Test status: PENDING, RUNNING, PASSED, FAILED, SKIPPED or HEALED');
export type TestStatus = z.output<typeof TestStatus>;

/** Run-state status → stored lower-case status, and back. */
export const storedStatus = (s: TestStatus): TestStatusValue => s.toLowerCase() as TestStatusValue;
export const runStateStatus = (s: TestStatusValue): TestStatus => s.toUpperCase() as TestStatus;

const TestResultFields = z.object({
  test_id: z.string().min(1).describe('Test the result is for'),
  status: TestStatus,
  duration_ms: z
    .number()
    .int()
    .nonnegative()
    .default(0)
    .describe('Duration in whole milliseconds (alias: duration_seconds, a float, converted)'),
  assertions_passed: z.number().int().nonnegative().default(0).describe('Assertions that held'),
  assertions_failed: z.number().int().nonnegative().default(0).describe('Assertions that failed'),
  error_message: z.string().nullable().default(null).describe('Failure message (alias: error), or null'),
  stack_trace: z.string().nullable().default(null).describe('Stack trace, or null'),
  screenshots: z.array(z.string()).default([]).describe('Screenshots (base64 or blob references)'),
  metadata: JsonObject.default({}).describe('Extra data'),
});

/** One test's result in the run state. Accepts duration_seconds and error as aliases. */
export const TestResultSchema = acceptAliases(TestResultFields, { duration_seconds: durationSecondsAlias, error: 'error_message' });
export type TestResult = z.output<typeof TestResultSchema>;

/** Analysis of one failure, produced before healing. */
export const FailureAnalysisSchema = z.object({
  test_id: z.string().min(1).describe('Failed test'),
  failure_type: z.string().describe('Classification, e.g. selector_not_found, assertion, timeout, network, server_error'),
  root_cause: z.string().describe('Most likely cause'),
  confidence: z.number().min(0).max(1).describe('Confidence in the root cause, 0..1'),
  suggested_fixes: z.array(z.string()).default([]).describe('Fixes to try, best first'),
  context: JsonObject.default({}).describe('Evidence: DOM excerpt, selector, git context, similar past failures'),
});
export type FailureAnalysis = z.output<typeof FailureAnalysisSchema>;

/** One message of the agents' conversation. */
export const RunMessageSchema = z
  .looseObject({
    role: z.enum(['system', 'user', 'assistant', 'tool']).describe('Author of the message'),
    content: z.union([z.string(), z.array(JsonObject)]).describe('Text, or content parts'),
    name: z.string().optional().describe('Agent or tool name'),
    tool_call_id: z.string().optional().describe('Tool call this message answers'),
  })
  .describe('A conversation message');
export type RunMessage = z.output<typeof RunMessageSchema>;

const Count = z.number().int().nonnegative().default(0);

export const TestingStateSchema = z.object({
  run_id: z.string().min(1).describe('Run id'),
  codebase_path: z.string().default('').describe('Codebase under analysis ("" when DOM-only)'),
  app_url: z.string().default('').describe('Application under test'),
  pr_number: z.number().int().positive().nullable().default(null).describe('Pull request being tested, or null'),
  changed_files: z.array(z.string()).default([]).describe('Files changed by the pull request'),
  messages: z.array(RunMessageSchema).default([]).describe('Agent conversation'),
  codebase_summary: z.string().default('').describe('Summary written by the code analyser'),
  testable_surfaces: z.array(JsonObject).default([]).describe('Surfaces found by the code analyser'),
  test_plan: z.array(TestSpecSchema).default([]).describe('Planned tests, in execution order'),
  test_priorities: z.record(z.string(), z.string()).default({}).describe('Test id → priority'),
  current_test_index: Count.describe('Index into test_plan of the next test to execute'),
  current_test: TestSpecSchema.nullable().default(null).describe('Test being executed, or null'),
  test_results: z.array(TestResultSchema).default([]).describe('Results so far'),
  failures: z.array(FailureAnalysisSchema).default([]).describe('Analysed failures'),
  screenshots: z
    .array(z.string())
    .max(limits.MAX_SCREENSHOTS_PER_RUN)
    .default([])
    .describe('Screenshots (base64), at most 100 per run'),
  healing_queue: z.array(z.string()).default([]).describe('Test ids waiting for the self-healer'),
  healing_attempts: Count.describe('Healing attempts for the current test'),
  healed_tests: z.array(JsonObject).default([]).describe('Tests healed in this run, with the fix applied'),
  iteration: Count.describe('Graph iterations so far'),
  max_iterations: z.number().int().positive().max(limits.MAX_ITERATIONS).default(limits.MAX_ITERATIONS).describe('Iteration cap (default 50)'),
  total_input_tokens: Count.describe('LLM prompt tokens so far'),
  total_output_tokens: Count.describe('LLM completion tokens so far'),
  total_tokens: Count.describe('LLM tokens so far'),
  total_cost: z.number().nonnegative().default(0).describe('LLM cost so far in USD'),
  passed_count: Count.describe('Tests passed (including healed)'),
  failed_count: Count.describe('Tests failed'),
  skipped_count: Count.describe('Tests skipped'),
  next_agent: z.string().default('').describe('Node the supervisor routes to next ("" before the first decision)'),
  should_continue: z.boolean().default(true).describe('False once the run must stop (limits hit, fatal error, done)'),
  error: z.string().nullable().default(null).describe('Fatal error, or null'),
  user_id: z.string().nullable().default(null).describe('User who started the run, or null'),
  security_summary: JsonObject.nullable().default(null).describe('Security scanner findings, or null'),
  started_at: IsoDateTime.describe('When the run started'),
  completed_at: IsoDateTime.nullable().default(null).describe('When the run finished, or null'),
});
export type TestingState = z.output<typeof TestingStateSchema>;
export type TestingStateInput = z.input<typeof TestingStateSchema>;
