import type { AccessibilityAssertion } from '../contracts/steps.ts';
import type { Fingerprint } from '../contracts/fingerprint.ts';
import { DEFAULT_AXE_TAGS, DEFAULT_MIN_IMPACT, impactRank, type AccessibilityOutcome, type AxeImpact, type AxeScan, type AxeViolation } from '../contracts/accessibility.ts';
import { StepFailure, type StepContext, type UiSession } from '../execution/types.ts';
import { describeLocator } from '../execution/describe-step.ts';

/** Violated rules named in a failure message; the outcome (and the reports) have them all. */
const RULES_IN_MESSAGE = 5;
/** Target selectors named per rule in a failure message. */
const TARGETS_IN_MESSAGE = 3;

/**
 * Checks one accessibility assertion: axe-core runs on the page (or the element) with the
 * assertion's rules, and the violations at or above `min_impact` are compared with
 * `max_violations`. Returns the outcome (and the scoped element's fingerprint, for
 * healing); throws StepFailure('assertion') with the outcome in its details when there are
 * too many.
 */
export async function checkAccessibility(a: AccessibilityAssertion, name: string, session: UiSession, ctx: StepContext): Promise<{ outcome: AccessibilityOutcome; fingerprint?: Fingerprint }> {
  const tags = a.tags ?? [...DEFAULT_AXE_TAGS];
  const { scan, fingerprint } = await session.accessibility({ selector: a.selector, exclude: a.exclude, tags, disableRules: a.disable_rules ?? [] }, ctx);
  const outcome = judge(scan, {
    name,
    minImpact: a.min_impact ?? DEFAULT_MIN_IMPACT,
    maxViolations: a.max_violations ?? 0,
    tags,
    ...(a.selector !== undefined && { selector: describeLocator(a.selector) }),
  });
  if (outcome.status === 'failed') throw new StepFailure('assertion', outcome.message!, { accessibility: outcome });
  return { outcome, ...(fingerprint && { fingerprint }) };
}

export interface Judgement {
  name: string;
  minImpact: AxeImpact;
  maxViolations: number;
  tags: string[];
  selector?: string;
}

/** An axe run against the assertion's thresholds: which violations count, and whether they are too many. */
export function judge(scan: AxeScan, j: Judgement): AccessibilityOutcome {
  const threshold = impactRank(j.minImpact);
  const counted = mostSevereFirst(scan.violations.filter((v) => impactRank(v.impact) >= threshold));
  // The adapter keeps at most MAX_VIOLATIONS_KEPT rules; those past it are unknown here, and count as at or above.
  const uncounted = Math.max(0, scan.violation_count - scan.violations.length);
  const countedTotal = counted.length + uncounted;
  const failed = countedTotal > j.maxViolations;
  return {
    name: j.name,
    status: failed ? 'failed' : 'passed',
    url: scan.url,
    ...(j.selector !== undefined && { selector: j.selector }),
    min_impact: j.minImpact,
    tags: j.tags,
    max_violations: j.maxViolations,
    violations: counted,
    counted: countedTotal,
    below_threshold: scan.violations.length - counted.length,
    passes: scan.passes,
    incomplete: scan.incomplete,
    engine: scan.engine,
    ...(failed && { message: failureMessage(counted, countedTotal, j) }),
  };
}

/** Most severe first; within an impact, the rule with more elements first, then by id (stable reports). */
export function mostSevereFirst(violations: AxeViolation[]): AxeViolation[] {
  return [...violations].sort((x, y) => impactRank(y.impact) - impactRank(x.impact) || y.node_count - x.node_count || x.id.localeCompare(y.id));
}

/** "accessibility: 2 rules violated at or above serious (0 allowed): image-alt (critical, 1 element: img) Images must have alternative text; …" */
function failureMessage(counted: AxeViolation[], total: number, j: Judgement): string {
  const where = j.selector !== undefined ? ` in ${j.selector}` : '';
  const head = `accessibility${where}: ${total} rule${total === 1 ? '' : 's'} violated at or above ${j.minImpact} (${j.maxViolations} allowed)`;
  const listed = counted.slice(0, RULES_IN_MESSAGE).map(violationLine);
  const more = total > listed.length ? [`and ${total - listed.length} more`] : [];
  return `${head}: ${[...listed, ...more].join('; ')}`;
}

export function violationLine(v: AxeViolation): string {
  const targets = v.nodes.slice(0, TARGETS_IN_MESSAGE).map((n) => n.target.join(' >>> '));
  const moreTargets = v.node_count > targets.length ? `, +${v.node_count - targets.length} more` : '';
  return `${v.id} (${v.impact ?? 'no impact'}, ${v.node_count} element${v.node_count === 1 ? '' : 's'}: ${targets.join(', ')}${moreTargets}) ${v.help}`;
}
