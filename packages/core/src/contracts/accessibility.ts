import { z } from 'zod';

/**
 * What axe-core reports, as svc keeps it: the shape the browser adapter hands back
 * (validated there, since it comes out of a page), what a result's metadata and the JSON
 * report carry, and what the quality audit answers with. Lists are capped so one broken
 * page cannot make a result or a report enormous; the counts stay exact.
 */

/** axe's impact levels, least to most severe. */
export const axeImpacts = ['minor', 'moderate', 'serious', 'critical'] as const;
export const AxeImpact = z.enum(axeImpacts).describe('axe impact: minor, moderate, serious or critical');
export type AxeImpact = z.output<typeof AxeImpact>;

/** 0 for minor … 3 for critical; a violation axe gives no impact counts as minor. */
export const impactRank = (impact: AxeImpact | null | undefined): number => axeImpacts.indexOf(impact ?? 'minor');

/** The default rule set: WCAG 2.0 and 2.1, levels A and AA (docs/decisions.md). */
export const DEFAULT_AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] as const;
/** Violations at or above this impact fail by default. */
export const DEFAULT_MIN_IMPACT: AxeImpact = 'serious';

/** An axe tag such as wcag2aa, best-practice, cat.forms, section508.22.a, EN-301-549, TTv5. */
export const AxeTag = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'an axe tag: letters, digits, dot, dash or underscore, e.g. wcag2aa or best-practice');
/** An axe rule id such as color-contrast or image-alt. */
export const AxeRuleId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,99}$/, 'an axe rule id: lower-case letters, digits and dashes, e.g. color-contrast');

/** At most this many elements are kept per violated rule (node_count has them all). */
export const MAX_NODES_PER_VIOLATION = 10;
/** At most this many violated rules are kept per check. */
export const MAX_VIOLATIONS_KEPT = 100;
/** An element's HTML is cut to this many characters. */
export const MAX_NODE_HTML = 300;

export const AxeNode = z.object({
  target: z.array(z.string().max(2000)).max(20).describe('CSS selectors of the element, one per frame or shadow root on the way to it'),
  html: z.string().max(MAX_NODE_HTML + 1).describe(`The element's opening HTML, at most ${MAX_NODE_HTML} characters`),
  failure_summary: z.string().max(2000).optional().describe('What is wrong with this element and how to fix it'),
});
export type AxeNode = z.output<typeof AxeNode>;

export const AxeViolation = z.object({
  id: z.string().describe('axe rule id, e.g. image-alt'),
  impact: AxeImpact.nullable(),
  help: z.string().describe('What the rule asks for, in one line'),
  description: z.string(),
  help_url: z.string().describe('Deque University page on the rule and how to fix it'),
  tags: z.array(z.string()),
  node_count: z.number().int().min(0).describe('How many elements violate the rule'),
  nodes: z.array(AxeNode).max(MAX_NODES_PER_VIOLATION).describe(`The first ${MAX_NODES_PER_VIOLATION} of them`),
});
export type AxeViolation = z.output<typeof AxeViolation>;

/** One axe run, as the browser adapter returns it. */
export const AxeScan = z.object({
  url: z.string(),
  engine: z.string().describe('axe-core version'),
  violations: z.array(AxeViolation).max(MAX_VIOLATIONS_KEPT),
  /** Violated rules in all (violations may be capped). */
  violation_count: z.number().int().min(0),
  passes: z.number().int().min(0).describe('Rules that passed'),
  incomplete: z.number().int().min(0).describe('Rules axe could not decide (need a human look)'),
  inapplicable: z.number().int().min(0).describe('Rules with nothing to check on this page'),
});
export type AxeScan = z.output<typeof AxeScan>;

/** How one accessibility assertion ended, kept in the result's metadata and the reports. */
export const AccessibilityOutcome = z.object({
  name: z.string().describe('The assertion as described in the test (or its name)'),
  status: z.enum(['passed', 'failed']),
  url: z.string().describe('The page checked'),
  selector: z.string().optional().describe('The element the check was scoped to'),
  min_impact: AxeImpact,
  tags: z.array(z.string()),
  max_violations: z.number().int().min(0),
  violations: z.array(AxeViolation).describe('Violated rules at or above min_impact, most severe first'),
  counted: z.number().int().min(0).describe('Violated rules at or above min_impact (compared with max_violations)'),
  below_threshold: z.number().int().min(0).describe('Violated rules below min_impact, not counted'),
  passes: z.number().int().min(0),
  incomplete: z.number().int().min(0),
  engine: z.string().describe('axe-core version'),
  message: z.string().optional(),
});
export type AccessibilityOutcome = z.output<typeof AccessibilityOutcome>;
