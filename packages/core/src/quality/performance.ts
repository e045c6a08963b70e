import type { AuditFinding, QualityAuditReport } from '../contracts/quality-audit.ts';
import type { PageObservation } from './page-probe.ts';

type PerformanceSection = NonNullable<QualityAuditReport['performance']>;

/**
 * Thresholds: Core Web Vitals' "needs improvement" and "poor" bounds for LCP (2.5 s, 4 s)
 * and CLS (0.1, 0.25), web.dev's 0.8 s / 1.8 s for the time to first byte. Measured once,
 * in a lab (one load, this machine's network): a signal, not a field measurement.
 */
const LCP = { medium: 2_500, high: 4_000 };
const CLS = { medium: 0.1, high: 0.25 };
const TTFB = { low: 800, medium: 1_800 };
/** A page that transfers more than this on load is worth a look. */
const HEAVY_BYTES = 5 * 1024 * 1024;

export function checkPerformance(o: PageObservation): { section: PerformanceSection; findings: AuditFinding[] } {
  const t = o.timing;
  const findings: AuditFinding[] = [];
  const add = (f: Omit<AuditFinding, 'check'>) => findings.push({ check: 'performance', ...f });
  const ms = (n: number) => `${Math.round(n)} ms`;
  if (t.lcp_ms !== null && t.lcp_ms > LCP.medium) add({ id: 'slow-lcp', severity: t.lcp_ms > LCP.high ? 'high' : 'medium', title: `Largest Contentful Paint took ${ms(t.lcp_ms)} (good: ≤ ${LCP.medium} ms)`, fix: 'Serve the largest image or text block sooner: smaller images, preload it, less render-blocking CSS and script' });
  if (t.cls > CLS.medium) add({ id: 'layout-shift', severity: t.cls > CLS.high ? 'high' : 'medium', title: `Cumulative Layout Shift is ${t.cls.toFixed(3)} (good: ≤ ${CLS.medium})`, fix: 'Give images and embeds their size, and do not insert content above what is already shown' });
  if (t.ttfb_ms !== null && t.ttfb_ms > TTFB.low) add({ id: 'slow-ttfb', severity: t.ttfb_ms > TTFB.medium ? 'medium' : 'low', title: `The server took ${ms(t.ttfb_ms)} to answer (good: ≤ ${TTFB.low} ms)`, fix: 'Cache the page or speed up what the server does before answering' });
  const transfer = o.requests.reduce((n, r) => n + r.transfer_bytes, 0);
  if (transfer > HEAVY_BYTES) add({ id: 'heavy-page', severity: 'low', title: `The page transferred ${(transfer / 1024 / 1024).toFixed(1)} MB while loading`, fix: 'Compress and resize images, split large scripts' });
  return {
    section: { ttfb_ms: round(t.ttfb_ms), dom_content_loaded_ms: round(t.dom_content_loaded_ms), load_ms: round(t.load_ms), lcp_ms: round(t.lcp_ms), cls: Math.round(t.cls * 10_000) / 10_000, requests: o.requests.length, transfer_bytes: transfer },
    findings,
  };
}

const round = (n: number | null) => (n === null ? null : Math.round(n * 10) / 10);
