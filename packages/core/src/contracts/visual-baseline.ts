import { z } from 'zod';
import { IsoDateTime, JsonObject, ListQuery, Uuid } from './common.ts';
import { VisualAssertion } from './steps.ts';

/** SHA-256 of an image's bytes, lower-case hex: the spec's screenshot_hash and the image's blob key. */
export const ScreenshotHash = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'must be a lower-case hex SHA-256')
  .describe('SHA-256 of the screenshot bytes (hex); also its blob key');

/** A baseline's name within its test: the visual assertion's `baseline` (default visual-<n>). */
export const BaselineName = VisualAssertion.shape.baseline.unwrap();

/** The accepted screenshot a visual-regression comparison is made against (visual_baselines). */
export const VisualBaselineSchema = z.object({
  id: Uuid.describe('Baseline id'),
  test_id: Uuid.describe('Test the baseline belongs to'),
  screenshot_hash: ScreenshotHash,
  metadata: JsonObject.describe('Viewport, browser, step name, ...'),
  created_at: IsoDateTime.describe('When the baseline was accepted'),
});
export type VisualBaseline = z.output<typeof VisualBaselineSchema>;

/** A stored baseline as the API returns it: the spec's fields plus its name, project and last change. */
export const VisualBaselineRecordSchema = VisualBaselineSchema.extend({
  project_id: Uuid.describe('Project of the test'),
  name: BaselineName,
  metadata: JsonObject.describe('width and height (pixels); selector or full_page as the assertion captured; step; accepted_by and accepted_at when accepted through the API'),
  created_at: IsoDateTime.describe('When the first baseline of this test and name was recorded'),
  updated_at: IsoDateTime.describe('When the baseline image was last replaced'),
});
export type VisualBaselineRecord = z.output<typeof VisualBaselineRecordSchema>;

/** GET /api/visual/baselines query. */
export const VisualBaselineQuery = ListQuery.extend({
  test_id: Uuid.optional().describe('Only the baselines of this test'),
  project_id: Uuid.optional().describe('Only the baselines of this project\'s tests'),
});
export type VisualBaselineQuery = z.output<typeof VisualBaselineQuery>;

/**
 * The largest image the API takes inline, decoded. Two of them base64-encoded (a compare
 * request) stay well inside the API's 100 MB request limit.
 */
export const VISUAL_IMAGE_MAX_BYTES = 25 * 1024 * 1024;
/** The most pixels an image the API decodes may have (a 1280 × 16384 full-page screenshot is 21 M). */
export const VISUAL_IMAGE_MAX_PIXELS = 25_000_000;

/** A PNG image inline, base64 (no data: prefix). Checked to decode as PNG by the service. */
export const Base64Png = z
  .base64({ error: 'must be a base64-encoded PNG image' })
  .max(Math.ceil(VISUAL_IMAGE_MAX_BYTES / 3) * 4, { error: `must be at most ${VISUAL_IMAGE_MAX_BYTES / 1024 / 1024} MB decoded` })
  .describe('PNG image, base64-encoded (no data: prefix)');

/** POST /api/visual/baselines body: accept a run's proposed screenshot, or upload a baseline. */
export const VisualBaselineAcceptInput = z
  .strictObject({
    test_id: Uuid.describe('Test the baseline belongs to (its project is the test\'s)'),
    name: BaselineName.describe('Baseline name within the test: the visual assertion\'s baseline, or visual-<n> for an unnamed one'),
    screenshot_hash: ScreenshotHash.optional().describe('A screenshot a run kept: proposed_hash from the result\'s metadata.visual (or any image hash of your organization)'),
    image: Base64Png.optional().describe('Upload this PNG (base64) as the baseline instead'),
  })
  .refine((v) => (v.screenshot_hash === undefined) !== (v.image === undefined), { message: 'give screenshot_hash or image, exactly one', path: ['screenshot_hash'] })
  .describe('Accept a screenshot as the baseline of a test\'s visual assertion');
export type VisualBaselineAcceptInput = z.output<typeof VisualBaselineAcceptInput>;
