import { z } from 'zod';
import { AxeImpact, AxeTag, AxeViolation } from './accessibility.ts';

/**
 * The quality audit (docs/quality-audit.md): one page opened in Chromium, checked for
 * accessibility (axe-core), security headers and cookies, performance and console errors.
 * POST /api/quality/audit, the svc_quality_audit tool and `svc audit` answer with the
 * same report.
 */

export const auditChecks = ['accessibility', 'security', 'performance', 'console'] as const;
export const AuditCheck = z.enum(auditChecks);
export type AuditCheck = z.output<typeof AuditCheck>;

export const severities = ['info', 'low', 'medium', 'high', 'critical'] as const;
export const Severity = z.enum(severities).describe('info, low, medium, high or critical');
export type Severity = z.output<typeof Severity>;
export const severityRank = (s: Severity): number => severities.indexOf(s);
/** Findings at or above this severity fail an audit by default. */
export const DEFAULT_FAIL_ON: Severity = 'high';

const Checks = z.array(AuditCheck).min(1).max(auditChecks.length)
  .refine((xs) => new Set(xs).size === xs.length, { message: 'each check at most once' })
  .describe('Which checks to run: accessibility, security, performance, console (default all)');
const AccessibilityOptions = z.strictObject({
  min_impact: AxeImpact.optional().describe('Violations at or above this impact count as findings above info (default serious)'),
  tags: z.array(AxeTag).min(1).max(50).optional().describe('axe rule tags to run (default wcag2a, wcag2aa, wcag21a, wcag21aa)'),
});

/** What an audit is asked for, wherever it comes from (the route resolves the URL first). */
export const QualityAuditOptions = z.strictObject({
  url: z.url({ protocol: /^https?$/ }).describe('Absolute http(s) URL of the page'),
  checks: Checks.optional(),
  accessibility: AccessibilityOptions.optional(),
  fail_on: Severity.optional().describe('An audit fails when a finding is at or above this severity (default high)'),
});
export type QualityAuditOptions = z.output<typeof QualityAuditOptions>;

export const QualityAuditInput = z.strictObject({
  project_id: z.uuid().describe('Project whose app is audited'),
  url: z.string().min(1).max(8000).optional().describe("Absolute URL, or a path resolved against the project's app_url (default: the app_url)"),
  checks: Checks.optional(),
  accessibility: AccessibilityOptions.optional().describe('Options of the accessibility check'),
  fail_on: Severity.optional().describe('The report says passed: false when a finding is at or above this severity (default high)'),
});
export type QualityAuditInput = z.output<typeof QualityAuditInput>;

export const AuditFinding = z.object({
  check: AuditCheck,
  id: z.string().describe('Stable finding id, e.g. missing-csp, cookie-not-httponly, image-alt'),
  severity: Severity,
  title: z.string(),
  detail: z.string().optional(),
  fix: z.string().optional().describe('What to change'),
  targets: z.array(z.string()).optional().describe('Elements, URLs or cookie names concerned'),
});
export type AuditFinding = z.output<typeof AuditFinding>;

const SeverityCounts = z.object({ critical: z.number().int(), high: z.number().int(), medium: z.number().int(), low: z.number().int(), info: z.number().int() });

export const QualityAuditReport = z.object({
  url: z.string().describe('The URL asked for'),
  final_url: z.string().describe('Where the page ended up after redirects'),
  status: z.number().int().nullable().describe('HTTP status of the page'),
  checked_at: z.string(),
  duration_ms: z.number().int(),
  checks: z.array(AuditCheck),
  fail_on: Severity,
  passed: z.boolean().describe('No finding at or above fail_on'),
  summary: z.object({ findings: z.number().int(), by_severity: SeverityCounts, by_check: z.record(z.string(), z.number().int()) }),
  findings: z.array(AuditFinding).describe('Every finding, most severe first'),
  accessibility: z.object({
    score: z.number().int().min(0).max(100).describe('100 minus a penalty per violated rule: critical 25, serious 15, moderate 5, minor 2'),
    violations_by_impact: z.object({ critical: z.number().int(), serious: z.number().int(), moderate: z.number().int(), minor: z.number().int() }),
    passes: z.number().int(),
    incomplete: z.number().int(),
    engine: z.string(),
    tags: z.array(z.string()),
    violations: z.array(AxeViolation),
  }).optional(),
  security: z.object({
    https: z.boolean(),
    headers: z.record(z.string(), z.string().nullable()).describe('The security headers the page answered with (null: absent)'),
    cookies: z.array(z.object({ name: z.string(), secure: z.boolean(), http_only: z.boolean(), same_site: z.string().nullable() })),
    mixed_content: z.array(z.string()),
  }).optional(),
  performance: z.object({
    ttfb_ms: z.number().nullable(),
    dom_content_loaded_ms: z.number().nullable(),
    load_ms: z.number().nullable(),
    lcp_ms: z.number().nullable().describe('Largest Contentful Paint'),
    cls: z.number().describe('Cumulative Layout Shift'),
    requests: z.number().int(),
    transfer_bytes: z.number().int(),
  }).optional(),
  console: z.object({
    errors: z.array(z.string()),
    failed_requests: z.array(z.object({ url: z.string(), status: z.number().int().nullable(), failure: z.string().nullable() })),
  }).optional(),
});
export type QualityAuditReport = z.output<typeof QualityAuditReport>;
