import { z } from 'zod';
import { acceptAliases, IsoDateTime, JsonObject, Uuid } from './common.ts';
import { durationSecondsAlias } from './duration.ts';
import { TestStatusValue, testStatusValues } from './test.ts';
import { caseId } from './parameter-sets.ts';

/**
 * A stored test result (test_results). Canonical names: `test_run_id` (not run_id),
 * `duration_ms` integer (not duration_seconds), `error_message` (not error); status is
 * lower-case like tests.status. See docs/decisions.md.
 */
export const TestResultRecordSchema = z.object({
  id: Uuid.describe('Result id'),
  test_id: Uuid.describe('Test that was executed'),
  test_run_id: Uuid.describe('Run the execution belongs to'),
  status: TestStatusValue,
  duration_ms: z.number().int().nonnegative().nullable().describe('Wall-clock duration in milliseconds, or null if it never ran'),
  error_message: z.string().nullable().describe('Failure message, or null'),
  screenshots: z.array(z.string()).describe('Screenshot references (blob keys or URLs)'),
  parameter_set: z
    .object({ index: z.number().int().min(1).describe('1-based position of the set'), name: z.string().describe('The set\'s name') })
    .optional()
    .describe('The parameter set this result is a case of (parameterised tests only)'),
  metadata: JsonObject.describe('Extra data: browser, retries, healed selector, ...'),
  created_at: IsoDateTime.describe('When the result was recorded'),
});
export type TestResultRecord = z.output<typeof TestResultRecordSchema>;

/** The case a stored result belongs to: `<test id>[n]` for a parameter set's, else the test id. */
export const resultCaseId = (r: Pick<TestResultRecord, 'test_id' | 'parameter_set'>): string => (r.parameter_set ? caseId(r.test_id, r.parameter_set.index) : r.test_id);

const upper = testStatusValues.map((s) => s.toUpperCase() as Uppercase<(typeof testStatusValues)[number]>);

/** Status in either case (the run state uses upper case); stored lower-case. */
const AnyCaseStatus = z
  .enum([...testStatusValues, ...upper])
  .transform((s) => s.toLowerCase() as TestStatusValue)
  .describe('Result status, either case: passed/PASSED, failed, skipped, healed, pending, running');

const TestResultRecordFields = z.strictObject({
  test_id: Uuid.describe('Test that was executed'),
  test_run_id: Uuid.describe('Run the execution belongs to (alias: run_id)'),
  status: AnyCaseStatus,
  duration_ms: z.number().int().nonnegative().nullable().optional().describe('Duration in milliseconds (alias: duration_seconds, converted)'),
  error_message: z.string().max(100_000).nullable().optional().describe('Failure message (alias: error)'),
  screenshots: z.array(z.string().min(1)).max(100).default([]).describe('Screenshot references (default none)'),
  metadata: JsonObject.default({}).describe('Extra data (default {})'),
});

/**
 * Recording a result. Accepts `run_id` for test_run_id, `error` for error_message and
 * `duration_seconds` (float) for duration_ms (converted, rounded to whole ms).
 */
export const TestResultRecordInput = acceptAliases(TestResultRecordFields, {
  run_id: 'test_run_id',
  error: 'error_message',
  duration_seconds: durationSecondsAlias,
});
export type TestResultRecordInput = z.output<typeof TestResultRecordInput>;
