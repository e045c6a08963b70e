import { DEFAULT_AXE_TAGS, DEFAULT_MIN_IMPACT } from '../contracts/accessibility.ts';
import { auditChecks, DEFAULT_FAIL_ON, severities, severityRank, type AuditCheck, type AuditFinding, type QualityAuditOptions, type QualityAuditReport } from '../contracts/quality-audit.ts';
import type { PageProbe } from './page-probe.ts';
import { checkAccessibility } from './accessibility-score.ts';
import { checkSecurity } from './security.ts';
import { checkPerformance } from './performance.ts';
import { checkConsole } from './console-check.ts';

/** How long the page may take to load. */
export const AUDIT_LOAD_TIMEOUT_MS = 30_000;

/**
 * Audits one page: the probe opens it once in a fresh browser context and reports what
 * happened; each asked-for check turns that into a section and findings. The same code
 * serves POST /api/quality/audit, svc_quality_audit and `svc audit`.
 */
export async function runQualityAudit(probe: PageProbe, options: QualityAuditOptions, o: { now?: () => number; signal?: AbortSignal } = {}): Promise<QualityAuditReport> {
  const now = o.now ?? Date.now;
  const started = now();
  const checks = orderOf(options.checks ?? [...auditChecks]);
  const tags = options.accessibility?.tags ?? [...DEFAULT_AXE_TAGS];
  const failOn = options.fail_on ?? DEFAULT_FAIL_ON;
  const seen = await probe.observe(options.url, { ...(checks.includes('accessibility') && { axeTags: tags }), timeoutMs: AUDIT_LOAD_TIMEOUT_MS, signal: o.signal });

  const findings: AuditFinding[] = [];
  const sections: Partial<Pick<QualityAuditReport, AuditCheck>> = {};
  if (checks.includes('accessibility') && seen.axe) {
    const a = checkAccessibility(seen.axe, options.accessibility?.min_impact ?? DEFAULT_MIN_IMPACT, tags);
    sections.accessibility = a.section;
    findings.push(...a.findings);
  }
  const others = { security: checkSecurity, performance: checkPerformance, console: checkConsole } as const;
  for (const check of ['security', 'performance', 'console'] as const) {
    if (!checks.includes(check)) continue;
    const r = others[check](seen);
    (sections as Record<string, unknown>)[check] = r.section;
    findings.push(...r.findings);
  }

  const sorted = findings.map((f, i) => ({ f, i })).sort((x, y) => severityRank(y.f.severity) - severityRank(x.f.severity) || x.i - y.i).map((x) => x.f);
  const bySeverity = Object.fromEntries([...severities].reverse().map((s) => [s, sorted.filter((f) => f.severity === s).length])) as QualityAuditReport['summary']['by_severity'];
  const byCheck = Object.fromEntries(checks.map((c) => [c, sorted.filter((f) => f.check === c).length]));
  return {
    url: options.url,
    final_url: seen.final_url,
    status: seen.status,
    checked_at: new Date(started).toISOString(),
    duration_ms: Math.max(0, Math.round(now() - started)),
    checks,
    fail_on: failOn,
    passed: !sorted.some((f) => severityRank(f.severity) >= severityRank(failOn)),
    summary: { findings: sorted.length, by_severity: bySeverity, by_check: byCheck },
    findings: sorted,
    ...sections,
  };
}

const orderOf = (checks: AuditCheck[]): AuditCheck[] => auditChecks.filter((c) => checks.includes(c));
