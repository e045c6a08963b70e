import { z } from 'zod';
import { JsonObject, Uuid } from '../../contracts/common.ts';
import { Locator } from '../../contracts/steps.ts';
import { describeLocator } from '../../execution/describe-step.ts';

/**
 * Request and response schemas of the healing endpoints (docs/healing.md "Endpoints").
 * Fingerprints stay loose objects here (every field optional, unknown ones ignored) and
 * are parsed leniently by parseFingerprint, as the ranking engine does everywhere.
 */
const FingerprintJson = z.record(z.string(), z.unknown()).describe('Element fingerprint (docs/healing.md); every field optional');
const Selector = z.string().trim().min(1).max(2000);
/** Big enough for huge pages (10k elements), small enough to stay one request. */
export const MAX_PAGE_CANDIDATES = 20_000;

export const SuggestFixesInput = z.strictObject({
  project_id: Uuid.describe('Project the selector belongs to'),
  original_selector: Selector.describe('Selector that stopped matching'),
  fingerprint: FingerprintJson.describe('Fingerprint of the element recorded when the selector last worked'),
  candidates: z.array(FingerprintJson).max(MAX_PAGE_CANDIDATES).describe('Fingerprints of the visible elements of the current page'),
  url: z.string().max(2048).optional().describe('URL of the current page (for remembered fixes of this page)'),
  limit: z.number().int().min(1).max(50).default(5).describe('How many suggestions (default 5)'),
});
export type SuggestFixesInput = z.output<typeof SuggestFixesInput>;

export const HealSuggestionSchema = z.object({
  rank: z.number().int().describe('1 = best'),
  index: z.number().int().nullable().describe('Index into `candidates` of the element, or null for a remembered fix'),
  healed_selector: z.string().describe('Replacement selector, as text'),
  locator: Locator.describe('Replacement locator, structured'),
  strategy: z.string().describe('How the locator addresses the element: testId, role, label, id, text, css, xpath, or the memory source'),
  unique: z.boolean().nullable().describe('Whether the locator matches exactly one candidate (null: cannot be told from fingerprints)'),
  confidence: z.number().min(0).max(1).describe('Calibrated confidence that this is the element'),
  score: z.number().nullable().describe('Ranking score, or null for a remembered fix'),
  method: z.string().describe('dom_similarity, llm (the ranker\'s pick confirmed by a model), pattern, memory or cache'),
  auto_apply: z.boolean().describe('Whether the healer would apply it without review (confidence ≥ threshold, unique, visible)'),
});

export const SuggestFixesResponse = z.object({
  project_id: Uuid,
  original_selector: z.string(),
  threshold: z.number().describe('Confidence needed to auto-apply'),
  suggestions: z.array(HealSuggestionSchema).describe('Best first; never applied by this call'),
  notes: z.array(z.string()).describe('Candidates skipped, empty target, etc.'),
  model: z.object({
    action: z.enum(['promote', 'withhold', 'keep']).describe('promote: the model confirmed the top candidate just below the threshold (auto_apply); withhold: it disagreed with an ambiguous above-threshold pick (no auto_apply); keep: the ranking stands'),
    reason: z.string().describe('What the model said, or why its answer was ignored'),
    index: z.number().int().nullable().describe('Index into `candidates` of the element the model chose, or null'),
    healed_selector: z.string().nullable().describe('Selector of the chosen element, or null'),
  }).nullable().optional().describe('Set when a model was asked about an ambiguous ranking (docs/healing.md "With a model"); null when none was asked'),
});

export const ApplyFixInput = z.strictObject({
  project_id: Uuid.describe('Project the fix belongs to'),
  original_selector: Selector.describe('Selector that stopped matching'),
  healed_selector: Selector.describe('Selector to use instead (a Playwright selector string unless healed_locator is given)'),
  healed_locator: Locator.optional().describe('Structured replacement locator; healed_selector must then be its description (as suggest-fixes gives them: test_id=x, role=button[name="Buy"], …)'),
  confidence: z.number().min(0).max(1).default(1).describe('Confidence in the fix (default 1: a person vouched for it)'),
  pattern_type: z.string().trim().min(1).max(100).optional().describe('Kind of fix; derived from the selectors when omitted'),
  git_commit: z.string().regex(/^[0-9a-f]{7,40}$/i, 'must be a git commit hash').optional().describe('Commit that changed the element'),
  git_context: JsonObject.optional().describe('Commit author, message, changed file'),
})
  // A fix must change something, and a replacement naming a role Playwright does not know would never match.
  // With healed_locator, healed_selector is its description: patterns, reports and reverts go by the description,
  // so a different one listed one selector while the healer applied another, and a revert left that one free.
  .superRefine((v, ctx) => {
    if (v.healed_locator !== undefined && describeLocator(v.healed_locator) !== v.healed_selector) {
      ctx.addIssue({ code: 'custom', path: ['healed_selector'], message: `does not describe healed_locator, which is ${describeLocator(v.healed_locator)}: give that (or leave healed_locator out)` });
    } else if (v.healed_selector === v.original_selector) ctx.addIssue({ code: 'custom', path: ['healed_selector'], message: 'the same as original_selector: there is nothing to fix' });
    if (v.healed_locator === undefined) {
      const checked = Locator.safeParse(v.healed_selector);
      if (!checked.success) for (const issue of checked.error.issues) ctx.addIssue({ code: 'custom', path: ['healed_selector'], message: issue.message });
    }
  });
export type ApplyFixInput = z.output<typeof ApplyFixInput>;

export const HealingConfigQuery = z.strictObject({ project_id: Uuid.optional().describe('Include this project\'s overrides') });

export const HealingStatsQuery = z.strictObject({ project_id: Uuid.optional().describe('Only this project\'s patterns in top_patterns and pattern counts') });

const ReviewSuggestion = z.strictObject({
  original_selector: Selector,
  healed_selector: Selector,
  confidence: z.number().min(0).max(1),
  kind: z.enum(['locator', 'assertion', 'data', 'other']).default('locator').describe('What the fix changes; only locator fixes may be auto-applied'),
  visible: z.boolean().optional().describe('Whether the target element is visible'),
  unique: z.boolean().optional().describe('Whether the new selector matches exactly one element'),
});

export const ReviewInput = z
  .strictObject({
    project_id: Uuid.optional().describe('Project whose threshold override applies'),
    pattern_ids: z.array(Uuid).max(100).optional().describe('Stored patterns to review'),
    suggestions: z.array(ReviewSuggestion).max(100).optional().describe('Suggestions to review (e.g. from suggest-fixes)'),
  })
  .refine((v) => (v.pattern_ids?.length ?? 0) + (v.suggestions?.length ?? 0) > 0, { message: 'give pattern_ids or suggestions (at least one)', path: ['pattern_ids'] });

export const ReviewItemSchema = z.object({
  pattern_id: Uuid.nullable(),
  original_selector: z.string(),
  healed_selector: z.string(),
  confidence: z.number(),
  safe_to_auto_apply: z.boolean(),
  reasons: z.array(z.string()).describe('Why it is safe or not, one rule per entry'),
});

export const HealRequestInput = z.strictObject({
  test_id: Uuid.describe('Test to heal'),
  step_index: z.number().int().nonnegative().optional().describe('Failing step: its selector and stored fingerprint are used'),
  field: z.string().max(100).optional().describe('The extract step\'s broken field'),
  original_selector: Selector.optional().describe('Broken selector (default: the step\'s)'),
  fingerprint: FingerprintJson.optional().describe('The element\'s recorded fingerprint (default: the stored one)'),
  candidates: z.array(FingerprintJson).max(MAX_PAGE_CANDIDATES).optional().describe('Fingerprints of the current page; without them the request is only queued'),
  url: z.string().max(2048).optional().describe('URL of the current page'),
  error_message: z.string().max(10_000).optional().describe('The failure message'),
  run_id: Uuid.optional().describe('Run of the failure'),
});
export type HealRequestInput = z.output<typeof HealRequestInput>;
