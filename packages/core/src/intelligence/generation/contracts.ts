import { z } from 'zod';
import { HttpUrl } from '../../contracts/project.ts';
import { isMetadataUrl, metadataHostMessage } from '../../net/metadata-hosts.ts';
import { Step, Assertion } from '../../contracts/steps.ts';
import { Uuid } from '../../contracts/common.ts';
import { FailureEvent } from './from-event.ts';
import { FlowInput } from './suite.ts';

/** Request bodies of the generation endpoints (routes in packages/functions/src/api/routes/generation.ts). */

const common = {
  project_id: Uuid.describe('Project to generate the test for'),
  name: z.string().trim().min(1).max(255).optional().describe('Test name (default: from the text or recording)'),
  base_url: HttpUrl.optional().describe("URL the test is executed against once (default: the project's app_url)"),
  execute: z.boolean().default(true).describe('Execute the generated test once (default true); only a passing test is saved to tests'),
};

export const CreateFromTextInput = z.strictObject({
  ...common,
  text: z.string().min(1).max(100_000).describe('Sentences, one per line: imperative ("click \\"Sign in\\"") or Given/When/Then (docs/test-format.md, "Plain language")'),
  allow_partial: z.boolean().default(false).describe('Generate from the understood lines even when some are not understood (default false: answer 400 listing them)'),
});
export type CreateFromTextInput = z.output<typeof CreateFromTextInput>;

export const CreateFromStoryInput = z.strictObject({
  ...common,
  story: z.string().min(1).max(100_000).optional().describe('A user story: optional "As a … I want … so that …" header, then Given/When/Then lines'),
  text: z.string().min(1).max(100_000).optional().describe('Alias of story'),
  allow_partial: z.boolean().default(false),
}).refine((v) => (v.story ?? v.text) !== undefined, { message: 'give story (or text)', path: ['story'] });
export type CreateFromStoryInput = z.output<typeof CreateFromStoryInput>;

export const RecordingFormatInput = z.enum(['chrome-recorder', 'playwright']).describe('chrome-recorder (DevTools Recorder JSON) or playwright (codegen script); default: detected');

export const ConvertRecordingInput = z.strictObject({
  ...common,
  recording: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).describe('The recording: Chrome DevTools Recorder JSON (object or text) or a Playwright codegen script (text)'),
  format: RecordingFormatInput.optional(),
});
export type ConvertRecordingInput = z.output<typeof ConvertRecordingInput>;

export const FromEventInput = z.strictObject({
  ...common,
  event: FailureEvent.describe('The failure event: message, stack, url, user_agent, breadcrumbs'),
});
export type FromEventInput = z.output<typeof FromEventInput>;

export const GenerateInput = z.strictObject({
  ...common,
  url: z
    .string()
    .min(1)
    .max(8000)
    .refine((u) => !isMetadataUrl(u), { message: metadataHostMessage('the host') })
    // A URL with a scheme other than http(s) (javascript:, file:, ftp:, or "localhost:3000/x", read as the scheme localhost:)
    // is no page a test can open: it was generated, run, refused by the runner and kept as a failed generated test (found by QA).
    .refine((u) => !/^[a-z][a-z0-9+.-]*:/i.test(u) || /^https?:\/\/[^/?#]/i.test(u), { message: 'give a path on the app (/login) or an http(s) URL (http://localhost:3000/login): svc opens web pages only' })
    .optional()
    .describe('Page to test: a path or an http(s) URL (with intent)'),
  intent: z.string().max(100_000).optional().describe('What to test on the page, in plain language; "smoke" or nothing for a page-loads test'),
  flow: FlowInput.optional().describe('A discovered flow whose steps are in the product format'),
}).refine((v) => (v.url !== undefined) !== (v.flow !== undefined), { message: 'give url (with an optional intent) or flow', path: ['url'] });
export type GenerateInput = z.output<typeof GenerateInput>;

export const GenerateBatchInput = z.strictObject({
  project_id: Uuid,
  base_url: common.base_url,
  execute: common.execute,
  flows: z.array(FlowInput).min(1).max(50).optional().describe('Discovered flows (at most 50)'),
  discovery_session_id: Uuid.optional().describe('Generate from the flows a discovery session stored'),
}).refine((v) => (v.flows !== undefined) !== (v.discovery_session_id !== undefined), { message: 'give flows or discovery_session_id', path: ['flows'] });
export type GenerateBatchInput = z.output<typeof GenerateBatchInput>;

export const ReviewInput = z.strictObject({
  test_id: Uuid.optional().describe('A stored test to review'),
  test: z.looseObject({
    type: z.enum(['ui', 'api', 'db']).default('ui'),
    steps: z.array(Step).max(500),
    assertions: z.array(Assertion).max(500).default([]),
  }).optional().describe('A test (the product format) to review'),
}).refine((v) => (v.test_id !== undefined) !== (v.test !== undefined), { message: 'give test_id or test', path: ['test'] });
export type ReviewInput = z.output<typeof ReviewInput>;
