import { impactRank, type AxeImpact, type AxeScan } from '../contracts/accessibility.ts';
import type { AuditFinding, QualityAuditReport, Severity } from '../contracts/quality-audit.ts';
import { mostSevereFirst, violationLine } from '../accessibility/check-accessibility.ts';

type AccessibilitySection = NonNullable<QualityAuditReport['accessibility']>;

/** Points a violated rule costs, by impact (per rule, not per element: one missing alt text pattern is one fix). docs/decisions.md. */
export const IMPACT_PENALTY: Record<AxeImpact, number> = { critical: 25, serious: 15, moderate: 5, minor: 2 };
/** How an axe impact reads as an audit severity; below min_impact a violation is only info. */
const SEVERITY: Record<AxeImpact, Severity> = { critical: 'critical', serious: 'high', moderate: 'medium', minor: 'low' };

/** The axe run as an audit section (score, counts) and one finding per violated rule. */
export function checkAccessibility(scan: AxeScan, minImpact: AxeImpact, tags: string[]): { section: AccessibilitySection; findings: AuditFinding[] } {
  const violations = mostSevereFirst(scan.violations);
  const byImpact = { critical: 0, serious: 0, moderate: 0, minor: 0 };
  for (const v of violations) byImpact[v.impact ?? 'minor']++;
  const penalty = violations.reduce((n, v) => n + IMPACT_PENALTY[v.impact ?? 'minor'], 0);
  const findings = violations.map((v): AuditFinding => ({
    check: 'accessibility',
    id: v.id,
    severity: impactRank(v.impact) >= impactRank(minImpact) ? SEVERITY[v.impact ?? 'minor'] : 'info',
    title: v.help,
    detail: violationLine(v),
    fix: v.help_url,
    targets: v.nodes.map((n) => n.target.join(' >>> ')),
  }));
  return {
    section: { score: Math.max(0, 100 - penalty), violations_by_impact: byImpact, passes: scan.passes, incomplete: scan.incomplete, engine: scan.engine, tags, violations },
    findings,
  };
}
