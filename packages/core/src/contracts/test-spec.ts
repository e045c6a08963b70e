import { z } from 'zod';
import { JsonObject } from './common.ts';
import { TestAssertionInput, TestStepInput } from './test.ts';
import { limits } from './limits.ts';
import { ParameterCase } from './parameter-sets.ts';
import { BrowserSettings } from './browser-settings.ts';

/**
 * A planned test inside a run (spec "TestSpec"). Upper-case enums, as the run state
 * uses them; the stored `tests` record uses lower-case `TestType`/`TestPriority`.
 */
export const testSpecTypes = ['UI', 'API', 'E2E', 'INTEGRATION', 'UNIT'] as const;
export const TestSpecType = z.enum(testSpecTypes).describe('Planned test kind: UI, API, E2E, INTEGRATION or UNIT');
export type TestSpecType = z.output<typeof TestSpecType>;

export const priorities = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const;
export const Priority = z.enum(priorities).describe('Planned test priority: CRITICAL, HIGH, MEDIUM or LOW');
export type Priority = z.output<typeof Priority>;

export const TestSpecSchema = z.object({
  id: z.string().min(1).describe('Test id (the stored test id when planned from one)'),
  type: TestSpecType,
  name: z.string().min(1).describe('Test name'),
  priority: Priority.default('MEDIUM'),
  steps: z.array(TestStepInput).default([]).describe('Ordered steps'),
  assertions: z.array(TestAssertionInput).default([]).describe('Assertions checked after the steps'),
  preconditions: JsonObject.default({}).describe('State required before the test (e.g. logged in, seeded data)'),
  postconditions: JsonObject.default({}).describe('State the test leaves behind / cleanup'),
  timeout_seconds: z
    .number()
    .int()
    .positive()
    .max(limits.EXECUTION_TIMEOUT_MAX_SECONDS)
    .default(120)
    .describe('Per-test timeout in seconds, at most 600 (default 120)'),
  tags: z.array(z.string()).default([]).describe('Free-form tags'),
  browser: BrowserSettings.optional().describe('Device, viewport, locale, time zone and colour scheme of the test\'s browser context'),
  quarantine: z.string().optional().describe('Set while the test is quarantined (why): it runs, but its failure does not fail the run'),
  parameters: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional().describe("The test's shared {{name}} values (a stored test's `parameters`); a parameter set's values win over them"),
  parameter_set: ParameterCase.optional().describe('Set when this is one case of a parameterised test: which test and set, and the values of its {{name}} variables'),
});
export type TestSpec = z.output<typeof TestSpecSchema>;

/** Stored test type → planned test type (db tests run as INTEGRATION). */
export const specTypeFor = { ui: 'UI', api: 'API', db: 'INTEGRATION' } as const satisfies Record<string, TestSpecType>;
/** Stored priority → planned priority. */
export const specPriorityFor = { critical: 'CRITICAL', high: 'HIGH', medium: 'MEDIUM', low: 'LOW' } as const satisfies Record<string, Priority>;
