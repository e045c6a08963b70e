import type { ExecStatus, RunSummary, StepResult, TestExecutionResult } from '../execution/types.ts';
import { quarantinedFailures } from '../execution/totals.ts';
import type { VisualOutcome } from '../visual/baseline-store.ts';
import type { AccessibilityOutcome, AxeViolation } from '../contracts/accessibility.ts';
import { limits } from '../contracts/limits.ts';

/** Helpers shared by the report renderers. Pure functions, no I/O. */

/** Seconds with three decimals, as JUnit consumers expect: 1234 ms → "1.234". */
export function seconds(ms: number): string {
  return (Math.max(0, finite(ms)) / 1000).toFixed(3);
}

/** A short human duration: 850 ms, 1.2 s, 2 min 03 s, 1 h 02 min. */
export function humanDuration(ms: number): string {
  const v = Math.max(0, Math.round(finite(ms)));
  if (v < 1000) return `${v} ms`;
  if (v < 60_000) return `${(v / 1000).toFixed(v < 10_000 ? 2 : 1)} s`;
  const totalSeconds = Math.round(v / 1000);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  return h > 0 ? `${h} h ${String(m).padStart(2, '0')} min` : `${m} min ${String(s).padStart(2, '0')} s`;
}

function finite(n: number): number {
  return Number.isFinite(n) ? n : 0;
}

/**
 * Removes characters that have no business in a report: C0/C1 controls other than tab,
 * newline and carriage return, lone surrogates and the non-characters U+FFFE/U+FFFF.
 * The set kept is exactly what XML 1.0 allows, so the same cleaner serves every format.
 */
export function stripControl(text: string): string {
  // With the u flag a lone surrogate is one code point outside the allowed ranges.
  return text.replace(/[^\t\n\r\u0020-\u007E\u00A0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '');
}

export interface HealedSelector {
  /** The runner's index of what was healed: a step's, or for a trailing assertion the number of steps + its index. */
  step: number;
  /** The field, when the locator healed is one of an extract step's fields. */
  field?: string;
  /** The trailing assertion (0-based among the assertions), when the locator healed is one's. */
  assertion?: number;
  description: string;
  original: string;
  healed: string;
  confidence: number;
}

/** A step's healed locators: its own, or its fields' (an extract step's). */
export function stepHeals(s: StepResult): Array<{ field?: string; original: string; healed: string; confidence: number }> {
  return [...(s.healed ? [s.healed] : []), ...(s.healed_fields ?? [])];
}

/** Every healed locator of a test, in step order (an extract step's fields in field order). */
export function healedSelectors(result: TestExecutionResult): HealedSelector[] {
  const steps = result.steps.flatMap((s) => stepHeals(s).map((h) => ({ step: s.index, ...(h.field !== undefined && { field: h.field }), description: s.description, original: h.original, healed: h.healed, confidence: h.confidence })));
  // Trailing assertions run after every step, so their runner index is the number of steps + theirs.
  const assertions = (result.assertion_results ?? []).flatMap((a) => (a.healed ? [{ step: result.steps.length + a.index, assertion: a.index, description: a.description, original: a.healed.original, healed: a.healed.healed, confidence: a.healed.confidence }] : []));
  return [...steps, ...assertions];
}

/** Where a heal was, in words: "step 3", "step 3, field total", or "assertion 1". */
export function healPlace(h: Pick<HealedSelector, 'step' | 'field' | 'assertion'>): string {
  if (h.assertion !== undefined) return `assertion ${h.assertion + 1}`;
  return `step ${h.step + 1}${h.field === undefined ? '' : `, field ${h.field}`}`;
}

/** Failed executions before this one passed in the same run (the run's retries); 0 when it passed at once. */
export function retriesOf(result: TestExecutionResult): number {
  const n = result.metadata?.retries; // a result from outside (a progress event) may carry none
  return result.status === 'passed' && typeof n === 'number' && n > 0 ? n : 0;
}

/** The step a failed test failed at: `failed_step` when set, else the first failed step. */
export function failingStep(result: TestExecutionResult): StepResult | undefined {
  if (result.failed_step !== undefined) {
    const byIndex = result.steps.find((s) => s.index === result.failed_step);
    if (byIndex) return byIndex;
  }
  return result.steps.find((s) => s.status === 'failed');
}

/** The error of a test: its own fields, falling back to the failing step's. */
export function testError(result: TestExecutionResult): { kind: string; message: string; stack?: string } | undefined {
  const step = failingStep(result);
  const kind = result.failure_kind ?? step?.error?.kind;
  const message = result.error_message ?? step?.error?.message;
  if (kind === undefined && message === undefined && result.stack_trace === undefined) return undefined;
  return { kind: kind ?? 'failure', message: message ?? '', ...(result.stack_trace ? { stack: result.stack_trace } : {}) };
}

/** Confidence 0..1 as a percentage string: 0.923 → "92%". */
export function percent(confidence: number): string {
  return `${Math.round(Math.min(1, Math.max(0, finite(confidence))) * 100)}%`;
}

/**
 * The screenshot keys of a test: the test's list plus the steps', without duplicates, in
 * order. Images of visual comparisons are left out: reports show them with their outcome,
 * where a baseline, actual and diff make sense together, and must not list them twice.
 */
export function screenshotKeys(result: TestExecutionResult): string[] {
  const visual = new Set(visualKeys(result));
  const keys = [...result.screenshots, ...result.steps.map((s) => s.screenshot).filter((k): k is string => typeof k === 'string')];
  return [...new Set(keys)].filter((k) => !visual.has(k));
}

/**
 * Every artifact key the HTML report embeds for a run (screenshots and visual comparison
 * images), so a caller can load exactly those bytes before rendering.
 */
export function embeddedArtifactKeys(summary: RunSummary): string[] {
  return [...new Set(summary.results.flatMap((r) => [...screenshotKeys(r), ...visualKeys(r)]))];
}

// ---------------------------------------------------------------- visual comparisons

/** How each visual status reads in a report. */
export const VISUAL_STATUS_LABEL: Record<VisualOutcome['status'], string> = {
  matched: 'matched',
  created: 'new baseline',
  updated: 'baseline updated',
  differs: 'differs',
  missing: 'no baseline',
};

export interface VisualImage {
  role: 'baseline' | 'actual' | 'diff';
  key: string;
  /** What the image is to a reader: the actual screenshot of a created or updated outcome is the new baseline. */
  caption: string;
}

/** The images of one outcome, in reading order: baseline, actual, difference. */
export function visualImages(v: VisualOutcome): VisualImage[] {
  const becameBaseline = v.status === 'created' || v.status === 'updated';
  const images: Array<VisualImage | undefined> = [
    v.baseline ? { role: 'baseline', key: v.baseline, caption: 'Baseline' } : undefined,
    v.actual ? { role: 'actual', key: v.actual, caption: becameBaseline ? 'New baseline' : 'Actual' } : undefined,
    v.diff ? { role: 'diff', key: v.diff, caption: 'Difference' } : undefined,
  ];
  return images.filter((i): i is VisualImage => i !== undefined);
}

/** The artifact keys of all visual comparison images of a test, without duplicates. */
export function visualKeys(result: TestExecutionResult): string[] {
  return [...new Set((result.visual ?? []).flatMap((v) => visualImages(v).map((i) => i.key)))];
}

/** How much a screenshot differed: "1,234 pixels (0.42 %)"; undefined when unknown or nothing differed. */
export function visualDiff(v: VisualOutcome): string | undefined {
  const pixels = v.diff_pixels !== undefined && Number.isFinite(v.diff_pixels) ? v.diff_pixels : undefined;
  const ratio = v.diff_ratio !== undefined && Number.isFinite(v.diff_ratio) ? v.diff_ratio : undefined;
  if (!((pixels ?? 0) > 0 || (ratio ?? 0) > 0)) return undefined;
  const share = ratio === undefined ? undefined : ratioPercent(ratio);
  if (pixels === undefined) return share;
  const count = `${groupDigits(pixels)} pixel${pixels === 1 ? '' : 's'}`;
  return share === undefined ? count : `${count} (${share})`;
}

/** One outcome in a line: "differs — 1,234 pixels (0.42 %)", "new baseline", "matched". */
export function visualSummary(v: VisualOutcome): string {
  const diff = visualDiff(v);
  return diff ? `${VISUAL_STATUS_LABEL[v.status]} — ${diff}` : VISUAL_STATUS_LABEL[v.status];
}

/** A 0..1 share as a percentage with two decimals; a tiny non-zero share does not read as "0.00 %". */
function ratioPercent(ratio: number): string {
  const pct = Math.min(1, Math.max(0, ratio)) * 100;
  return pct > 0 && pct < 0.005 ? '< 0.01 %' : `${pct.toFixed(2)} %`;
}

/** Thousands separators regardless of the host's locale (reports must render the same everywhere): 1234 → "1,234". */
export function groupDigits(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

// ---------------------------------------------------------------- accessibility checks

/** One outcome in a line: "4 rules violated at or above serious (0 allowed)", "no violations at or above serious (21 rules passed)". */
export function accessibilitySummary(o: AccessibilityOutcome): string {
  const below = o.below_threshold > 0 ? `; ${o.below_threshold} below ${o.min_impact} not counted` : '';
  if (o.counted === 0) return `no violations at or above ${o.min_impact} (${o.passes} rules passed${below})`;
  return `${o.counted} rule${o.counted === 1 ? '' : 's'} violated at or above ${o.min_impact} (${o.max_violations} allowed${below})`;
}

/** The elements of a violation as text: "#no-alt, img.logo (+3 more)". */
export function violationTargets(v: AxeViolation, max = 3): string {
  const shown = v.nodes.slice(0, max).map((n) => n.target.join(' >>> '));
  return `${shown.join(', ')}${v.node_count > shown.length ? ` (+${v.node_count - shown.length} more)` : ''}`;
}

export interface Totals {
  total: number;
  passed: number;
  failed: number;
  healed: number;
  skipped: number;
}

/** Counts by status, computed from the results (the summary's counters should agree). */
export function countResults(results: TestExecutionResult[]): Totals {
  const by = (s: ExecStatus) => results.filter((r) => r.status === s).length;
  return { total: results.length, passed: by('passed'), failed: by('failed'), healed: by('healed'), skipped: by('skipped') };
}

/** The run's totals as the summary states them. */
export function summaryTotals(summary: RunSummary): Totals {
  return { total: summary.total, passed: summary.passed, failed: summary.failed, healed: summary.healed, skipped: summary.skipped };
}

/**
 * A report's headline: failed when a test failed that is not in quarantine (a quarantined
 * failure does not fail the run: docs/quarantine.md), nothing ran when every test was
 * skipped, passed otherwise — as `svc run`'s exit code and the run's notifications judge it.
 */
export function runVerdict(summary: Pick<RunSummary, 'failed' | 'total' | 'skipped' | 'results' | 'unfinished' | 'error'>): 'failed' | 'interrupted' | 'cancelled' | 'running' | 'nothing_ran' | 'passed' {
  // A run that failed as a whole (an error, a limit) failed, whatever the tests that ran did.
  if (summary.error !== undefined || summary.failed - quarantinedFailures(summary.results) > 0) return 'failed';
  // Stopped before its end (or not at its end yet), a run has not passed, whatever the tests that ran did (svc run exits 1).
  if (summary.unfinished) return summary.unfinished;
  return summary.total === summary.skipped ? 'nothing_ran' : 'passed';
}

/** Screenshots the run did not keep because it reached its cap, over all its tests. */
export function droppedScreenshots(summary: Pick<RunSummary, 'results'>): number {
  return summary.results.reduce((n, r) => n + (r.screenshots_dropped ?? 0), 0);
}

/** What a report says of dropped screenshots (none: undefined). */
export function droppedScreenshotsNote(summary: Pick<RunSummary, 'results'>): string | undefined {
  const n = droppedScreenshots(summary);
  if (!n) return undefined;
  const tests = summary.results.filter((r) => (r.screenshots_dropped ?? 0) > 0).map((r) => r.name);
  return `${n} screenshot${n === 1 ? ' was' : 's were'} not taken: the run reached its cap of ${limits.MAX_SCREENSHOTS_PER_RUN} screenshots (screenshot steps and failure screenshots together) — in ${tests.join(', ')}`;
}

/** What a report says under its headline of a run that failed as a whole. */
export function runErrorNote(summary: Pick<RunSummary, 'error'>): string | undefined {
  return summary.error === undefined ? undefined : `The run failed: ${summary.error}`;
}

/** What a report says under its headline of a run that did not end on its own. */
export const UNFINISHED_NOTE: Record<NonNullable<RunSummary['unfinished']>, string> = {
  interrupted: 'Interrupted before every test ran: the tests not run are skipped; svc run --resume continues it.',
  cancelled: 'Cancelled before every test ran: the tests not run are counted as skipped.',
  running: 'Still running: this is the run as it stands; the tests not run yet are counted as skipped.',
};

export const STEP_ICON: Record<StepResult['status'], string> = { passed: '✓', failed: '✗', skipped: '○' };
