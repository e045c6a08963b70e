import { z } from 'zod';
import { IsoDateTime, JsonObject, ListQuery, Uuid } from './common.ts';

/** A learned selector fix (healing_patterns). Reused when the same selector breaks again. */
export const HealingPatternSchema = z.object({
  id: Uuid.describe('Pattern id'),
  project_id: Uuid.nullable().describe('Project the pattern was learned in (tenant scope), or null for organization-wide'),
  pattern_type: z.string().describe('Kind of fix, e.g. selector_renamed, attribute_changed, text_changed, structure_changed'),
  original_selector: z.string().describe('Selector that stopped matching'),
  healed_selector: z.string().describe('Selector that replaced it'),
  confidence: z.number().min(0).max(1).describe('Confidence in the fix, 0..1; applied automatically at or above 0.8'),
  git_commit: z
    .string()
    .regex(/^[0-9a-f]{7,40}$/i, 'must be a git commit hash')
    .nullable()
    .describe('Commit that changed the element (git-aware mode), or null'),
  git_context: JsonObject.nullable().describe('Commit author, message, changed file, rename vs removal; null in DOM-only mode'),
  success_count: z.number().int().nonnegative().describe('Times the fix was applied and the test then passed'),
  failure_count: z.number().int().nonnegative().describe('Times the fix was applied and the test still failed'),
  created_at: IsoDateTime.describe('When the pattern was learned'),
  last_used_at: IsoDateTime.nullable().describe('When the pattern was last applied, or null'),
  method: z.string().default('dom_similarity').describe('How the fix was found: dom_similarity, cache, pattern, memory, git, manual'),
  applied_by: z.string().nullable().default(null).describe('User or API key that applied the fix by hand, or null when the healer applied it'),
  reverted_at: IsoDateTime.nullable().default(null).describe('When the fix was reverted (it is no longer applied), or null'),
  reverted_by: z.string().nullable().default(null).describe('Who reverted the fix, or null'),
});
export type HealingPattern = z.output<typeof HealingPatternSchema>;

/** GET /api/v1/healing/patterns query. */
export const HealingPatternQuery = ListQuery.extend({
  project_id: Uuid.optional().describe('Only patterns of this project'),
  pattern_type: z.string().min(1).max(100).optional().describe('Only patterns of this kind'),
  min_confidence: z.coerce.number().min(0).max(1).optional().describe('Only patterns at or above this confidence'),
  reverted: z.enum(['true', 'false']).optional().describe('true: only reverted patterns; false: only active ones (default: both)'),
});
export type HealingPatternQuery = z.output<typeof HealingPatternQuery>;
