import type { ExecStatus, RunSummary, StepResult, TestExecutionResult } from '../execution/types.ts';

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
  step: number;
  description: string;
  original: string;
  healed: string;
  confidence: number;
}

/** Every healed locator of a test, in step order. */
export function healedSelectors(result: TestExecutionResult): HealedSelector[] {
  return result.steps
    .filter((s): s is StepResult & { healed: NonNullable<StepResult['healed']> } => s.healed !== undefined)
    .map((s) => ({ step: s.index, description: s.description, original: s.healed.original, healed: s.healed.healed, confidence: s.healed.confidence }));
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

/** All screenshot keys of a test: the test's list plus the steps', without duplicates, in order. */
export function screenshotKeys(result: TestExecutionResult): string[] {
  const keys = [...result.screenshots, ...result.steps.map((s) => s.screenshot).filter((k): k is string => typeof k === 'string')];
  return [...new Set(keys)];
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

export const STEP_ICON: Record<StepResult['status'], string> = { passed: '✓', failed: '✗', skipped: '○' };
