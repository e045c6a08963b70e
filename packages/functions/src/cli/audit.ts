import { parseArgs } from 'node:util';
import { QualityAuditOptions, type QualityAuditReport } from '@svc/core/contracts/quality-audit';
import { runQualityAudit } from '@svc/core/quality/audit';
import { PageLoadError } from '@svc/core/quality/page-probe';
import { chromiumProbe } from '../quality/chromium-probe.ts';
import { usageError } from './usage-error.ts';

export const AUDIT_HELP = `Usage: svc audit <url> [--json] [--checks accessibility,security,performance,console]
                 [--fail-on high] [--min-impact serious] [--tags wcag2a,wcag2aa] [--chromium <path>]

Opens the page in Chromium and audits it, as POST /api/quality/audit does, without a
server: accessibility (axe-core; violations by impact and a 0–100 score), security
(response headers, cookies, mixed content), performance (time to first byte, DOM ready,
load, Largest Contentful Paint, Cumulative Layout Shift, requests and bytes) and console
errors and failed requests. See docs/quality-audit.md.

Options:
  --json             Print the whole report as JSON
  --checks <list>    Comma-separated checks to run (default all four)
  --fail-on <sev>    Exit 1 when a finding is at or above this severity: info, low, medium,
                     high (default) or critical
  --min-impact <i>   Accessibility violations below this impact are only info: minor,
                     moderate, serious (default) or critical
  --tags <list>      axe rule tags (default wcag2a,wcag2aa,wcag21a,wcag21aa)
  --chromium <path>  A Chromium to use (env SVC_CHROMIUM_PATH; default the bundled one)

Exit code: 0 when no finding is at or above --fail-on, 1 otherwise, 2 for bad input or a
page that could not be loaded.
`;

export async function auditCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { json: { type: 'boolean' }, checks: { type: 'string' }, 'fail-on': { type: 'string' }, 'min-impact': { type: 'string' }, tags: { type: 'string' }, chromium: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    });
  } catch (err) {
    return usage((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(AUDIT_HELP);
    return 0;
  }
  if (positionals.length !== 1) return usage('give exactly one URL to audit');
  const list = (s: string | undefined) => (s === undefined ? undefined : s.split(',').map((x) => x.trim()).filter(Boolean));
  const options = QualityAuditOptions.safeParse({
    url: positionals[0],
    checks: list(values.checks),
    fail_on: values['fail-on'],
    ...(values['min-impact'] !== undefined || values.tags !== undefined ? { accessibility: { min_impact: values['min-impact'], tags: list(values.tags) } } : {}),
  });
  if (!options.success) return usage(options.error.issues.map((i) => `${flagOf(i.path)}: ${i.message}`).join('; '));

  const { createPlaywrightDriver } = await import('../execution/browser/playwright-driver.ts');
  const driver = await createPlaywrightDriver({ executablePath: values.chromium ?? process.env.SVC_CHROMIUM_PATH });
  let report: QualityAuditReport;
  try {
    report = await runQualityAudit(chromiumProbe(async () => driver), options.data);
  } catch (err) {
    if (err instanceof PageLoadError) {
      process.stderr.write(`svc audit: ${err.message}\n`);
      return 2;
    }
    throw err;
  } finally {
    await driver.close();
  }
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : text(report));
  return report.passed ? 0 : 1;
}

/** The option a schema path came from (the URL is the positional argument). */
function flagOf(path: PropertyKey[]): string {
  const [first, second] = path.map(String);
  if (first === 'url') return '<url>';
  if (first === 'accessibility') return second === 'tags' ? '--tags' : '--min-impact';
  return `--${first.replace('_', '-')}`;
}

function text(r: QualityAuditReport): string {
  const s = r.summary.by_severity;
  const lines = [
    `Audit of ${r.final_url}${r.status !== null ? ` (HTTP ${r.status})` : ''}: ${r.passed ? 'passed' : 'FAILED'} — ${r.summary.findings} finding(s): ${s.critical} critical, ${s.high} high, ${s.medium} medium, ${s.low} low, ${s.info} info (fails on ${r.fail_on} or worse)`,
  ];
  if (r.accessibility) lines.push(`Accessibility score ${r.accessibility.score}/100 (axe-core ${r.accessibility.engine}; ${r.accessibility.passes} rules passed)`);
  if (r.performance) {
    const p = r.performance;
    const ms = (n: number | null) => (n === null ? '—' : `${Math.round(n)} ms`);
    lines.push(`Performance: TTFB ${ms(p.ttfb_ms)}, DOM ready ${ms(p.dom_content_loaded_ms)}, load ${ms(p.load_ms)}, LCP ${ms(p.lcp_ms)}, CLS ${p.cls}, ${p.requests} requests, ${Math.round(p.transfer_bytes / 1024)} KB`);
  }
  if (r.findings.length) lines.push('', ...r.findings.map((f) => `  ${f.severity.toUpperCase().padEnd(8)} ${f.check.padEnd(13)} ${f.id}: ${f.title}${f.targets?.length ? ` [${f.targets.slice(0, 3).join(', ')}${f.targets.length > 3 ? ', …' : ''}]` : ''}${f.fix && !/^https?:/.test(f.fix) ? `\n${' '.repeat(25)}fix: ${f.fix}` : ''}`));
  return `${lines.join('\n')}\n`;
}

const usage = (message: string): number => usageError('audit', message);

