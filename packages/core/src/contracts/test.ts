import { z } from 'zod';
import { Step, Assertion, MAX_TEST_TIMEOUT_MS, TestTimeoutMs } from './steps.ts';
import { ParameterSets, SharedParameters } from './parameter-sets.ts';
import { BrowserSettings } from './browser-settings.ts';
import { atLeastOneField, atLeastOneFieldParams, DisplayName, IsoDateTime, JsonObject, ListQuery, Uuid } from './common.ts';

/** Kind of a stored test (tests.type). */
export const testTypes = ['ui', 'api', 'db'] as const;
export const TestType = z.enum(testTypes).describe('Test kind: ui (browser), api (HTTP) or db (database)');
export type TestType = z.output<typeof TestType>;

/**
 * Status of a stored test (tests.status), lower-case as stored. The run-state
 * `TestResult.status` uses the upper-case `TestStatus` enum for the same values.
 */
export const testStatusValues = ['pending', 'running', 'passed', 'failed', 'skipped', 'healed'] as const;
export const TestStatusValue = z.enum(testStatusValues).describe('Test status: pending, running, passed, failed, skipped or healed');
export type TestStatusValue = z.output<typeof TestStatusValue>;

export const testPriorities = ['critical', 'high', 'medium', 'low'] as const;
export const TestPriority = z.enum(testPriorities).describe('Test priority: critical, high, medium or low');
export type TestPriority = z.output<typeof TestPriority>;

/** One test step: the executable step model of docs/test-format.md (contracts/steps.ts). */
export const TestStepInput = Step;
export type TestStep = z.output<typeof TestStepInput>;

/** One assertion, checked after the steps (contracts/steps.ts). */
export const TestAssertionInput = Assertion;
export type TestAssertion = z.output<typeof TestAssertionInput>;

export const Tag = z.string().trim().min(1).max(100).describe('A tag');

/**
 * A quarantined test still runs and its results are kept, but its failure does not fail
 * the run: commit statuses, notifications, automation callbacks, chat replies and `svc run`'s
 * exit code go by the other tests (docs/quarantine.md).
 */
export const Quarantine = z.object({
  reason: z.string().describe('Why it is quarantined (a known flake, a bug being fixed)'),
  since: IsoDateTime.describe('When it was quarantined'),
  by: z.string().nullable().describe('Who quarantined it (user id), or null'),
});
export type Quarantine = z.output<typeof Quarantine>;

/** POST /api/tests/{id}/quarantine body. */
export const QuarantineInput = z.strictObject({
  reason: z.string().trim().min(1).max(500).describe('Why the test is quarantined, 1-500 characters (shown in reports and the dashboard)'),
});

/** A stored test. */
export const TestSchema = z.object({
  id: Uuid.describe('Test id'),
  project_id: Uuid.describe('Project the test belongs to'),
  name: z.string().describe('Test name'),
  description: z.string().nullable().describe('What the test checks, or null'),
  type: TestType,
  steps: z.array(TestStepInput).describe('Ordered steps'),
  assertions: z.array(TestAssertionInput).describe('Assertions checked after the steps'),
  status: TestStatusValue.describe('Latest status of the test (default pending)'),
  priority: TestPriority,
  tags: z.array(z.string()).describe('Free-form tags'),
  timeout_ms: TestTimeoutMs.describe('Whole-test timeout in milliseconds, 1000-600000 (default 600000: the 10-minute maximum); a run ends the test there as failed'),
  parameters: SharedParameters,
  parameter_sets: ParameterSets.describe('Data sets the test runs once each, as cases with their own results (empty: it runs once)'),
  browser: BrowserSettings.optional(),
  quarantine: Quarantine.nullable().describe('Set while the test is quarantined: it runs, but its failure does not fail the run; null otherwise'),
  revision: z.int().min(1).describe('Revision of the definition, from 1; each change adds one (GET answers it as the ETag; PATCH takes it in If-Match or expected_revision)'),
  created_at: IsoDateTime.describe('When the test was created'),
  updated_at: IsoDateTime.describe('When the test was last changed'),
});
export type Test = z.output<typeof TestSchema>;

/**
 * The revision the caller last read, for clients that cannot send If-Match: a change
 * to a test that has moved on since is refused with 412 (docs/test-revisions.md).
 */
export const ExpectedRevision = z.int().min(1).describe('Refuse (412) unless at this revision');

/** POST /api/tests body. */
export const TestCreateInput = z.strictObject({
  project_id: Uuid.describe('Project to create the test in'),
  name: DisplayName.describe('Test name, 1-255 characters'),
  description: z.string().max(10_000).optional().describe('What the test checks'),
  type: TestType,
  steps: z.array(TestStepInput).max(500).default([]).describe('Ordered steps (default none)'),
  assertions: z.array(TestAssertionInput).max(500).default([]).describe('Assertions (default none)'),
  priority: TestPriority.default('medium').describe('Priority (default medium)'),
  tags: z.array(Tag).max(50).default([]).describe('Free-form tags (default none)'),
  timeout_ms: TestTimeoutMs.default(MAX_TEST_TIMEOUT_MS).describe('Test timeout, ms (1000-600000, default 600000)'),
  parameters: SharedParameters.default({}).describe('Shared {{name}} values; a parameter set\'s win'),
  parameter_sets: ParameterSets.default([]).describe('Data sets: the test runs once per set, each a case with its own result ({{name}} variables take the set\'s values; default none: it runs once)'),
  browser: BrowserSettings.optional(),
});
export type TestCreateInput = z.output<typeof TestCreateInput>;

/** PATCH a test: any subset of the editable fields, at least one. */
export const TestUpdateInput = z
  .strictObject({
    name: DisplayName.optional().describe('Test name, 1-255 characters'),
    description: z.string().max(10_000).nullable().optional().describe('What the test checks; null to clear'),
    type: TestType.optional(),
    steps: z.array(TestStepInput).max(500).optional().describe('Ordered steps, replaced as a whole'),
    assertions: z.array(TestAssertionInput).max(500).optional().describe('Assertions, replaced as a whole'),
    priority: TestPriority.optional(),
    tags: z.array(Tag).max(50).optional().describe('Tags, replaced as a whole'),
    timeout_ms: TestTimeoutMs.optional().describe('Test timeout, ms (1000-600000)'),
    parameters: SharedParameters.optional().describe('Shared {{name}} values, replaced whole'),
    parameter_sets: ParameterSets.optional().describe('Data sets, replaced as a whole ([] makes it an ordinary test again)'),
    browser: BrowserSettings.nullable().optional().describe('Device, viewport, locale…, replaced as a whole; null for the default browser'),
    expected_revision: ExpectedRevision.optional(),
  })
  // expected_revision alone changes nothing: at least one definition field is still required.
  .refine(({ expected_revision: _r, ...fields }) => atLeastOneField(fields), atLeastOneFieldParams);
export type TestUpdateInput = z.output<typeof TestUpdateInput>;

/**
 * A test as `GET /api/tests?view=summary` lists it: everything but the step, assertion
 * and parameter-set lists, which are counted instead. A 200-test project's full list runs
 * to megabytes; an assistant (svc_list_tests lists summaries) or a picker needs the names.
 */
export const TestSummarySchema = TestSchema.omit({ steps: true, assertions: true, parameter_sets: true, parameters: true }).extend({
  step_count: z.int().min(0).describe('How many steps the test has'),
  assertion_count: z.int().min(0).describe('How many trailing assertions it has'),
  parameter_set_count: z.int().min(0).describe('How many parameter sets (cases) it runs; 0: it runs once'),
});
export type TestSummary = z.output<typeof TestSummarySchema>;

export function testSummary({ steps, assertions, parameter_sets, parameters: _shared, ...rest }: Test): TestSummary {
  return { ...rest, step_count: steps.length, assertion_count: assertions.length, parameter_set_count: parameter_sets.length };
}

export const testListViews = ['full', 'summary'] as const;

/** GET /api/tests query. */
export const TestListQuery = ListQuery.extend({
  view: z.enum(testListViews).default('full').describe('full (default), or summary: no steps, assertions or parameters, counted instead'),
  project_id: Uuid.optional().describe('Only tests of this project'),
  // Either case, as the results filter takes it (run states say PASSED, tests say passed).
  status: z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), TestStatusValue).optional().describe('Only tests with this status (either case)'),
  type: TestType.optional().describe('Only tests of this type'),
  quarantined: z.enum(['true', 'false']).transform((v) => v === 'true').optional().describe('true: only quarantined tests; false: only the others'),
});
export type TestListQuery = z.output<typeof TestListQuery>;
