import { z } from 'zod';
import { BrowserSettings } from './browser-settings.ts';
import { ParameterSets, SharedParameters } from './parameter-sets.ts';
import { TestTimeoutMs } from './steps.ts';
import { IsoDateTime, ListQuery, Uuid } from './common.ts';
import { TestAssertionInput, TestPriority, TestStepInput, TestType } from './test.ts';

/** The fields of a test that are its definition: what a revision keeps and a restore brings back. */
export const definitionFields = ['name', 'description', 'type', 'steps', 'assertions', 'priority', 'tags', 'timeout_ms', 'parameters', 'parameter_sets', 'browser'] as const;
export type DefinitionField = (typeof definitionFields)[number];

/** Why a revision was written. */
export const revisionSources = ['created', 'edited', 'restored', 'autonomous_loop', 'before_history', 'healed'] as const;
export const RevisionSource = z
  .enum(revisionSources)
  .describe('Why the revision was written: created, edited (PATCH), restored, autonomous_loop, healed (a run\'s heals applied: POST /api/tests/{id}/apply-heal), or before_history (the definition a test had when revisions began, kept at its first change)');
export type RevisionSource = z.output<typeof RevisionSource>;

/** A test's definition as one revision kept it. */
export const TestDefinition = z.object({
  name: z.string().describe('Test name'),
  description: z.string().nullable().describe('What the test checks, or null'),
  type: TestType,
  steps: z.array(TestStepInput).describe('Ordered steps'),
  assertions: z.array(TestAssertionInput).describe('Assertions checked after the steps'),
  priority: TestPriority,
  tags: z.array(z.string()).describe('Free-form tags'),
  // Optional: revisions written before tests had them (the test then had the defaults).
  timeout_ms: TestTimeoutMs.optional().describe('Whole-test timeout in milliseconds (absent in revisions from before it existed: the 10-minute default)'),
  parameters: SharedParameters.optional().describe('Shared {{name}} values (absent in revisions from before they existed: none)'),
  parameter_sets: ParameterSets.describe('Data sets the test runs once each'),
  browser: BrowserSettings.optional(),
});
export type TestDefinition = z.output<typeof TestDefinition>;

/** One entry of a test's history, without its definition (GET /api/tests/{id}/revisions). */
export const TestRevisionSummary = z.object({
  test_id: Uuid.describe('Test id'),
  revision: z.int().min(1).describe('Revision number, from 1'),
  created_at: IsoDateTime.describe('When this revision was written'),
  changed_by: z.string().describe('Who wrote it: a user id, api_key:<id>, or system:<what> (the autonomous loop, generation, the CLI)'),
  source: RevisionSource,
  changed_fields: z.array(z.string()).describe('Definition fields that differ from the revision before (all of them for the first)'),
  restored_from: z.int().min(1).nullable().describe('For a restore: the revision whose definition it brought back; null otherwise'),
});
export type TestRevisionSummary = z.output<typeof TestRevisionSummary>;

/** One revision with the definition it kept (GET /api/tests/{id}/revisions/{revision}). */
export const TestRevision = TestRevisionSummary.extend({ definition: TestDefinition.describe('The test definition at this revision') });
export type TestRevision = z.output<typeof TestRevision>;

const ChangedByName = z.string().describe('Who wrote it, in words: the member\'s email, API key "<name>", or which part of svc (the autonomous loop, test generation, svc run); the id when the member has left or the key is revoked');
/** A revision summary as the API answers it: with who wrote it in words. */
export const NamedRevisionSummary = TestRevisionSummary.extend({ changed_by_name: ChangedByName });
/** A revision as the API answers it: with who wrote it in words. */
export const NamedRevision = TestRevision.extend({ changed_by_name: ChangedByName });

/** GET /api/tests/{id}/revisions query. */
export const TestRevisionListQuery = ListQuery;

/** Path of one revision. */
export const TestRevisionParams = z.strictObject({
  id: Uuid.describe('Test id'),
  revision: z.coerce.number().int().min(1).describe('Revision number'),
});
