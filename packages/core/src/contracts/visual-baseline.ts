import { z } from 'zod';
import { IsoDateTime, JsonObject, Uuid } from './common.ts';

/** The accepted screenshot a visual-regression comparison is made against (visual_baselines). */
export const VisualBaselineSchema = z.object({
  id: Uuid.describe('Baseline id'),
  test_id: Uuid.describe('Test the baseline belongs to'),
  screenshot_hash: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'must be a lower-case hex SHA-256')
    .describe('SHA-256 of the screenshot bytes (hex); also its blob key'),
  metadata: JsonObject.describe('Viewport, browser, step name, ...'),
  created_at: IsoDateTime.describe('When the baseline was accepted'),
});
export type VisualBaseline = z.output<typeof VisualBaselineSchema>;
