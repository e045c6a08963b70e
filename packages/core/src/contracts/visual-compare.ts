import { z } from 'zod';
import { Uuid } from './common.ts';
import { VisualAssertion } from './steps.ts';
import { Base64Png, ScreenshotHash } from './visual-baseline.ts';

/** One side of a comparison: an image inline, a stored baseline, or a stored screenshot by hash. */
export const VisualImageRef = z.union([
  Base64Png,
  z.strictObject({ baseline_id: Uuid.describe('A stored baseline of your organization (GET /api/visual/baselines)') }).describe('The current image of a stored baseline'),
  z.strictObject({ screenshot_hash: ScreenshotHash.describe('An image a run kept: a result\'s proposed_hash or baseline_hash') }).describe('A stored screenshot of your organization'),
]);

/** POST /api/visual/compare body. */
export const VisualCompareInput = z.strictObject({
  baseline: VisualImageRef.describe('The expected image: base64 PNG, { baseline_id } or { screenshot_hash }'),
  actual: VisualImageRef.describe('The image to check: base64 PNG, { baseline_id } or { screenshot_hash }'),
  threshold: VisualAssertion.shape.threshold,
  max_diff_pixels: VisualAssertion.shape.max_diff_pixels,
  max_diff_ratio: VisualAssertion.shape.max_diff_ratio,
  include_diff: z.boolean().default(true).describe('Return the diff image as base64 PNG (default true; it can be hundreds of KB, so pass false when only the numbers matter)'),
});
export type VisualCompareInput = z.output<typeof VisualCompareInput>;

const Size = z.object({ width: z.number().int().describe('Pixels across'), height: z.number().int().describe('Pixels down') });

/** POST /api/visual/compare response. */
export const VisualCompareResponse = z.object({
  match: z.boolean().describe('Same size and within the tolerance'),
  width: z.number().int().describe('Width of the actual image'),
  height: z.number().int().describe('Height of the actual image'),
  size_mismatch: z.object({ baseline: Size, actual: Size }).optional().describe('Set when the sizes differ (nothing was compared pixel by pixel)'),
  diff_pixels: z.number().int().describe('Pixels that differ beyond the threshold'),
  diff_ratio: z.number().describe('diff_pixels / all pixels, 0–1'),
  summary: z.string().describe('The difference in words, e.g. "1,600 of 921,600 pixels differ (0.17 %)"'),
  diff_png: z.string().optional().describe('The actual image with differing pixels in red over a faded copy, base64 PNG; absent when identical, sizes differ or include_diff is false'),
});
export type VisualCompareResponse = z.output<typeof VisualCompareResponse>;
