import { z } from 'zod';
import { Uuid } from './common.ts';
import { Step } from './steps.ts';
import { TestPriority } from './test.ts';

/**
 * POST /api/act and the svc_act tool (docs/act.md): browser actions performed once on a
 * project's app — given as steps in the product's format, as an instruction in plain
 * language, or both — answered with what happened on each step and where the browser
 * ended up. Stateless: every call is a fresh browser context (docs/decisions.md).
 */

export const ACT_MAX_STEPS = 200;
export const ACT_MAX_INSTRUCTION = 10_000;
/** A final screenshot larger than this is left out (with a note): it travels inline, base64, inside a 6 MB Lambda answer. */
export const ACT_MAX_SCREENSHOT_BYTES = 1_500_000;

export const ActSaveAsTest = z.strictObject({
  name: z.string().trim().min(1).max(255).describe('Name of the test to create from the performed steps'),
  tags: z.array(z.string().trim().min(1).max(100)).max(50).optional().describe('Tags of the test (default act)'),
  priority: TestPriority.optional().describe('Priority of the test (default medium)'),
});

export const ActInput = z
  .strictObject({
    project_id: Uuid.describe('Project whose app the browser acts on'),
    url: z.string().min(1).max(8000).optional().describe("Where to start: an absolute URL, or a path resolved against the project's app_url (default: the app_url, or the first step when it is a goto)"),
    steps: z.array(Step).min(1).max(ACT_MAX_STEPS).optional().describe('Browser steps in the product format (docs/test-format.md), performed in order; to continue an earlier call, pass its steps again'),
    instruction: z.string().trim().min(1).max(ACT_MAX_INSTRUCTION).optional().describe('What to do in plain language, one action per line, e.g. `open /login`, `fill "Email" with "demo@example.com"`, `click "Sign in"`, `I should see "Welcome"`; performed after steps'),
    screenshot: z.boolean().default(true).describe('Answer with a PNG of the final page (default true)'),
    save_as_test: ActSaveAsTest.optional().describe('Keep the performed steps as a project test; only when every step passed'),
  })
  .refine((b) => b.steps !== undefined || b.instruction !== undefined, { message: 'give steps, instruction or both', path: ['steps'] });
export type ActInput = z.output<typeof ActInput>;

export const ActScreenshot = z.object({
  mime_type: z.literal('image/png'),
  width: z.number().int(),
  height: z.number().int(),
  bytes: z.number().int(),
  base64: z.string().describe('The PNG, base64'),
});
export type ActScreenshot = z.output<typeof ActScreenshot>;

/** The page the browser was on when the actions ended (passed or not). */
export const ActFinalPage = z.object({
  url: z.string(),
  title: z.string().nullable(),
  screenshot: ActScreenshot.nullable(),
  screenshot_note: z.string().optional().describe('Why there is no screenshot although one was asked for'),
  snapshot: z.object({ text: z.string(), chars: z.number().int(), truncated: z.boolean() }).optional().describe('The page as text (accessibility snapshot), when asked for: what POST /api/extract gives a model'),
});
export type ActFinalPage = z.output<typeof ActFinalPage>;

export const ActStepOutcome = z.object({
  index: z.number().int().describe('Position in `steps` of this answer'),
  type: z.string(),
  description: z.string().describe('The step in words'),
  status: z.enum(['passed', 'failed', 'skipped']),
  duration_ms: z.number().int(),
  error: z.string().optional().describe('Why the step failed, naming it'),
  healed: z.object({ original: z.string(), healed: z.string(), confidence: z.number() }).optional(),
  healed_fields: z.array(z.object({ field: z.string(), original: z.string(), healed: z.string(), confidence: z.number() })).optional().describe('An extract step\'s fields whose locators were healed'),
  extracted: z.unknown().optional().describe('What a passed extract step read (its save_as name is in the step): the fields as an object, or the model\'s answer; secret values and fields named like credentials masked (***)'),
});

export const ActResult = z.object({
  status: z.enum(['passed', 'failed']),
  start_url: z.string(),
  url: z.string().nullable().describe('Where the browser ended up'),
  title: z.string().nullable(),
  duration_ms: z.number().int(),
  error: z.string().nullable().describe('The first failure, naming its step'),
  outcomes: z.array(ActStepOutcome).describe('One per step of `steps`, in order; steps after a failure are skipped'),
  steps: z.array(z.record(z.string(), z.unknown())).describe('Every step of this call in the product format (healed selectors applied); pass them again to continue, or save them'),
  performed: z.number().int().describe('How many of `steps` passed (all of them when status is passed)'),
  console_errors: z.array(z.string()),
  failed_requests: z.array(z.object({ url: z.string(), method: z.string(), failure: z.string() })),
  screenshot: ActScreenshot.nullable(),
  screenshot_note: z.string().optional(),
  instruction: z.object({
    understood: z.array(z.object({ line: z.number().int(), text: z.string(), source: z.enum(['grammar', 'model']), steps: z.number().int() })),
    model: z.string().nullable().optional(),
  }).optional().describe('How the instruction became steps'),
  saved_test: z.object({ id: z.string(), name: z.string() }).nullable(),
});
export type ActResult = z.output<typeof ActResult>;
