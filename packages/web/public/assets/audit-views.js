import { element } from './dom.js';

/**
 * The quality audit's report as the Audit panel shows it: whether it passed against its
 * fail_on, the findings per severity, the accessibility score, the performance numbers,
 * and the findings grouped by check. Every text comes from the API (page titles, console
 * messages, cookie names): it is set as text, never parsed as HTML.
 *
 * @typedef {'info' | 'low' | 'medium' | 'high' | 'critical'} Severity
 * @typedef {{ check: string, id: string, severity: Severity, title: string, detail?: string, fix?: string, targets?: string[] }} Finding
 * @typedef {{ ttfb_ms: number | null, dom_content_loaded_ms: number | null, load_ms: number | null, lcp_ms: number | null, cls: number, requests: number, transfer_bytes: number }} Performance
 * @typedef {{ url: string, final_url: string, status: number | null, duration_ms: number, checks: string[], fail_on: Severity, passed: boolean, summary: { findings: number, by_severity: Record<Severity, number> }, findings: Finding[], accessibility?: { score: number, passes: number, incomplete: number, engine: string }, performance?: Performance }} AuditReport
 */

/** Most severe first, as the summary lists them. */
const SEVERITIES = /** @type {Severity[]} */ (['critical', 'high', 'medium', 'low', 'info']);
/** The checks in the order the form offers them, with their headings. */
const CHECKS = /** @type {Record<string, string>} */ ({ accessibility: 'Accessibility', security: 'Security', performance: 'Performance', console: 'Console' });

/** @param {string} value */
function httpUrl(value) {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** A millisecond figure, or a dash when the page did not report it. @param {number | null} ms */
const msOf = (ms) => (ms === null ? '—' : `${Math.round(ms)} ms`);

/** @param {string} label @param {string} value @param {string} testid */
function figure(label, value, testid) {
  const item = element('div', { className: 'audit-figure' });
  item.append(element('dt', { text: label }), element('dd', { testid, text: value }));
  return item;
}

/** Passed or failed, the page, and the counts per severity. @param {AuditReport} report */
function summaryOf(report) {
  const box = element('div', { className: 'audit-summary', testid: 'audit-summary' });
  const head = element('div', { className: 'audit-summary-head' });
  head.append(
    element('span', { className: report.passed ? 'badge badge-enabled' : 'badge badge-failed', testid: 'audit-outcome', text: report.passed ? 'passed' : 'failed' }),
    element('span', { testid: 'audit-outcome-detail', text: report.passed ? `No finding at ${report.fail_on} or above.` : `Findings at ${report.fail_on} or above fail the audit.` }),
  );
  const page = element('p', { className: 'muted audit-page', testid: 'audit-page' });
  page.textContent = `${report.final_url}${report.status === null ? '' : ` · HTTP ${report.status}`} · ${report.duration_ms} ms`;
  const counts = element('ul', { className: 'audit-counts', testid: 'audit-counts' });
  for (const severity of SEVERITIES) {
    const item = element('li', { className: `audit-count severity-${severity}`, testid: 'audit-count' });
    item.dataset.severity = severity;
    item.append(element('strong', { text: String(report.summary.by_severity[severity] ?? 0) }), ` ${severity}`);
    counts.append(item);
  }
  box.append(head, page, counts);
  return box;
}

/** The accessibility score and the performance numbers, where those checks ran. @param {AuditReport} report */
function figuresOf(report) {
  const list = element('dl', { className: 'audit-figures', testid: 'audit-figures' });
  const a11y = report.accessibility;
  if (a11y) {
    list.append(
      figure('Accessibility score', `${a11y.score} / 100`, 'audit-score'),
      figure('Rules passed', String(a11y.passes), 'audit-passes'),
      figure('Need a person to check', String(a11y.incomplete), 'audit-incomplete'),
    );
  }
  const perf = report.performance;
  if (perf) {
    list.append(
      figure('Time to first byte', msOf(perf.ttfb_ms), 'audit-ttfb'),
      figure('DOM ready', msOf(perf.dom_content_loaded_ms), 'audit-dom-ready'),
      figure('Load', msOf(perf.load_ms), 'audit-load'),
      figure('Largest Contentful Paint', msOf(perf.lcp_ms), 'audit-lcp'),
      figure('Cumulative Layout Shift', perf.cls.toFixed(3), 'audit-cls'),
      figure('Requests', String(perf.requests), 'audit-requests'),
      figure('Transferred', `${(perf.transfer_bytes / 1024).toFixed(1)} KB`, 'audit-bytes'),
    );
  }
  return list;
}

/** One finding: severity, title, details, what it concerns, and the fix (a link when it is one). @param {Finding} finding */
function findingRow(finding) {
  const li = element('li', { className: 'audit-finding', testid: 'audit-finding' });
  li.dataset.id = finding.id;
  li.dataset.severity = finding.severity;
  const head = element('div', { className: 'audit-finding-head' });
  head.append(
    element('span', { className: `badge severity-${finding.severity}`, testid: 'audit-finding-severity', text: finding.severity }),
    element('span', { className: 'audit-finding-title', testid: 'audit-finding-title', text: finding.title }),
    element('code', { className: 'muted', testid: 'audit-finding-id', text: finding.id }),
  );
  li.append(head);
  if (finding.detail) li.append(element('p', { className: 'audit-finding-detail', testid: 'audit-finding-detail', text: finding.detail }));
  if (finding.targets?.length) li.append(element('p', { className: 'muted audit-finding-targets', testid: 'audit-finding-targets', text: `Concerns: ${finding.targets.join(', ')}` }));
  if (finding.fix) {
    const href = httpUrl(finding.fix);
    const fix = element('p', { className: 'audit-finding-fix', testid: 'audit-finding-fix' });
    if (href) {
      // An axe rule's help page: another site, opened without a reference back to this page.
      const link = /** @type {HTMLAnchorElement} */ (element('a', { testid: 'audit-finding-link', text: 'How to fix it' }));
      link.href = href;
      link.target = '_blank';
      link.rel = 'noopener noreferrer';
      fix.append(link);
    } else {
      fix.textContent = `Fix: ${finding.fix}`;
    }
    li.append(fix);
  }
  return li;
}

/** The findings of each check that ran, under the check's heading; a check without any says so. @param {AuditReport} report */
function groupsOf(report) {
  const box = element('div', { className: 'audit-groups' });
  for (const check of report.checks) {
    const findings = report.findings.filter((f) => f.check === check);
    const group = element('section', { className: 'audit-group', testid: 'audit-group' });
    group.dataset.check = check;
    group.append(element('h3', { testid: 'audit-group-heading', text: `${CHECKS[check] ?? check} · ${findings.length} finding${findings.length === 1 ? '' : 's'}` }));
    if (findings.length) {
      const list = element('ul', { className: 'audit-findings' });
      list.append(...findings.map(findingRow));
      group.append(list);
    } else {
      group.append(element('p', { className: 'muted', text: 'Nothing found.' }));
    }
    box.append(group);
  }
  return box;
}

/**
 * Shows a report in `container`, replacing what was there.
 * @param {HTMLElement} container
 * @param {AuditReport} report
 */
export function showAuditReport(container, report) {
  container.replaceChildren(summaryOf(report), figuresOf(report), groupsOf(report));
  container.hidden = false;
}
