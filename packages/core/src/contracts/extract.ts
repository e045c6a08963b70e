import { z } from 'zod';
import { Uuid } from './common.ts';
import { ExtractFields, ExtractInstruction, ExtractSchema, Step } from './steps.ts';
import { ACT_MAX_STEPS, ActStepOutcome } from './act.ts';

/**
 * POST /api/extract and the svc_extract tool (docs/extract.md): structured data read from
 * a project's app in a fresh browser — after optional steps (e.g. signing in) — by
 * selectors (no model) or by the configured model from the page's text, its answer
 * validated against a JSON Schema.
 */

export const ExtractInput = z
  .strictObject({
    project_id: Uuid.describe('Project whose app the data is read from'),
    url: z.string().min(1).max(8000).optional().describe("Where to start: an absolute URL, or a path resolved against the project's app_url (default: the app_url, or the first step when it is a goto)"),
    steps: z.array(Step).min(1).max(ACT_MAX_STEPS).optional().describe('Browser steps in the product format performed first, in order (e.g. sign in, open a page); the data is read where they end'),
    fields: ExtractFields.optional().describe('Read by selectors, no model: field name → { selector, attribute?, all? } (text by default; a list with all: true)'),
    instruction: ExtractInstruction.optional().describe('What to extract in plain language, answered by the configured model from the page\'s text; needs schema'),
    schema: ExtractSchema.optional().describe('JSON Schema ("type": "object") the model\'s answer must satisfy; required with instruction'),
  })
  .refine((b) => (b.fields !== undefined) !== (b.instruction !== undefined), { message: 'give fields (read by selectors) or instruction with schema (read by a model), not both', path: ['fields'] })
  .refine((b) => b.fields === undefined || Object.keys(b.fields).length >= 1, { message: 'give at least one field', path: ['fields'] })
  .refine((b) => b.instruction === undefined || b.schema !== undefined, { message: 'an instruction needs a JSON Schema for the answer', path: ['schema'] })
  .refine((b) => b.schema === undefined || b.instruction !== undefined, { message: 'schema goes with instruction (fields need none)', path: ['schema'] });
export type ExtractInput = z.output<typeof ExtractInput>;

export const ExtractResult = z.object({
  status: z.enum(['passed', 'failed']).describe('passed: data was extracted; failed: a step or the extraction failed (see error)'),
  data: z.unknown().describe('The extracted data (null when failed): the fields as an object, or the model\'s validated answer'),
  start_url: z.string(),
  url: z.string().nullable().describe('The page the data was read from (where the browser was when it ended)'),
  title: z.string().nullable(),
  duration_ms: z.number().int(),
  error: z.string().nullable().describe('The first failure, naming its step or the field'),
  steps: z.array(ActStepOutcome).describe('One outcome per step, in order, the extraction last; steps after a failure are skipped'),
  performed: z.number().int().describe('How many steps passed, the extraction included'),
  console_errors: z.array(z.string()),
  model: z.string().optional().describe('The model that answered (instruction only)'),
  snapshot: z.object({ chars: z.number().int(), truncated: z.boolean() }).optional().describe('Size of the page text the model read, and whether it was cut at the cap'),
  validation_errors: z.array(z.object({ path: z.string(), keyword: z.string(), message: z.string().optional() })).optional().describe('Why the model\'s answer did not match the schema'),
});
export type ExtractResult = z.output<typeof ExtractResult>;
