import type { RunSummary, TestExecutionResult } from '../execution/types.ts';
import type { VisualOutcome } from '../visual/baseline-store.ts';
import type { AccessibilityOutcome } from '../contracts/accessibility.ts';
import { quarantineOf } from '../execution/totals.ts';
import { UNFINISHED_NOTE, runErrorNote, accessibilitySummary, droppedScreenshotsNote, failingStep, healedSelectors, violationTargets, humanDuration, percent, stripControl, testError, visualSummary, retriesOf, runVerdict } from './format.ts';

/**
 * The Markdown report (`report.md`), written to be posted as a pull-request comment:
 * a totals table, one section per failed test, and the healed selectors and visual
 * baselines written by tests that did not fail, to review.
 * Everything from the test run is escaped, so a test name cannot inject Markdown or HTML.
 */

export interface MarkdownReportOptions {
  /**
   * Upper bound on the length of the output. GitHub rejects comments over 65,536
   * characters; failure sections past the bound are summarised in one line.
   */
  maxLength?: number;
  /** Longest error message or stack excerpt shown per test (characters). */
  maxMessageLength?: number;
}

const DEFAULT_MAX_LENGTH = 60_000;
const DEFAULT_MAX_MESSAGE = 2_000;

export function renderMarkdownReport(summary: RunSummary, options: MarkdownReportOptions = {}): string {
  const maxLength = options.maxLength ?? DEFAULT_MAX_LENGTH;
  const maxMessage = options.maxMessageLength ?? DEFAULT_MAX_MESSAGE;
  const failed = summary.results.filter((r) => r.status === 'failed');
  const heals = summary.results.flatMap((r) => healedSelectors(r).map((h) => ({ test: r.name, ...h })));

  const head: string[] = [];
  const verdict = { failed: '❌ Failed', interrupted: '⏸️ Interrupted', cancelled: '⏹️ Cancelled', running: '⏳ Running', nothing_ran: '⚪ Nothing ran', passed: '✅ Passed' }[runVerdict(summary)];
  head.push(`## ${verdict} — ${inline(summary.name)}`, '');
  head.push('| Total | Passed | Failed | Healed | Skipped | Duration |', '| ---: | ---: | ---: | ---: | ---: | ---: |');
  head.push(`| ${summary.total} | ${summary.passed} | ${summary.failed} | ${summary.healed} | ${summary.skipped} | ${humanDuration(summary.duration_ms)} |`, '');
  const context = [`Run \`${code(summary.run_id)}\``, `started ${inline(summary.started_at)}`];
  if (summary.base_url) context.push(`against ${codeSpan(summary.base_url)}`);
  head.push(`<sub>${context.join(' · ')}</sub>`, '');
  if (summary.unfinished) head.push(`> ${UNFINISHED_NOTE[summary.unfinished]}`, '');
  if (summary.error !== undefined) head.push(`> ${inline(runErrorNote(summary)!)}`, '');
  const dropped = droppedScreenshotsNote(summary);
  if (dropped) head.push(`> ⚠️ ${inline(dropped)}`, '');

  const tail: string[] = [];
  if (heals.length > 0) {
    tail.push(`### 🩹 Healed selectors (${heals.length})`, '');
    tail.push('| Test | Step | Before | After | Confidence |', '| --- | ---: | --- | --- | ---: |');
    for (const h of heals) tail.push(`| ${cell(h.test)} | ${h.assertion !== undefined ? `assertion ${h.assertion + 1}` : `${h.step + 1}${h.field === undefined ? '' : ` (${cell(h.field)})`}`} | ${cellCode(h.original)} | ${cellCode(h.healed)} | ${percent(h.confidence)} |`);
    tail.push('', 'Review healed selectors before merging: a heal changes how an element is found, never what is asserted.', '');
  }
  const flaky = summary.results.filter((r) => retriesOf(r) > 0);
  if (flaky.length > 0) {
    tail.push(`### 🔁 Flaky: passed on a retry (${flaky.length})`, '');
    for (const r of flaky) tail.push(`- ${inline(r.name)} — passed on attempt ${retriesOf(r) + 1}`);
    tail.push('');
  }
  tail.push(...baselinesWritten(summary.results));

  const sections = failed.map((r) => failureSection(r, maxMessage));
  let body = `${head.join('\n')}\n`;
  let shown = 0;
  if (sections.length > 0) body += `### Failed tests (${failed.length})\n\n`;
  // Room for the heals and for the one-line summary of sections left out (≤ ~1,200 characters).
  const reserve = tail.join('\n').length + 1_300;
  for (const section of sections) {
    if (body.length + section.length + reserve > maxLength) break;
    body += section;
    shown += 1;
  }
  if (shown < sections.length) {
    const rest = failed.slice(shown).map((r) => inline(r.name));
    body += `_…and ${sections.length - shown} more failed test(s), left out to keep this comment short: ${truncate(rest.join(', '), 1_000)}. See the full report._\n\n`;
  }
  body += tail.join('\n');
  body = `${body.trimEnd()}\n`;
  if (body.length > maxLength) {
    const note = '\n\n_…cut to keep this comment short. See the full report._\n';
    body = `${body.slice(0, Math.max(0, maxLength - note.length))}${note}`;
  }
  return body;
}

function failureSection(r: TestExecutionResult, maxMessage: number): string {
  const out: string[] = [];
  const error = testError(r);
  const step = failingStep(r);
  out.push(`#### ❌ ${inline(r.name)}`, '');
  out.push(`- **Type:** ${r.type} · **Duration:** ${humanDuration(r.duration_ms)}`);
  const quarantine = quarantineOf(r);
  if (quarantine !== undefined) out.push(`- **Quarantined:** ${inline(quarantine)} — this failure does not fail the run`);
  if (step) out.push(`- **Failing step:** ${step.index + 1}. ${codeSpan(step.description)}${step.name ? ` (${inline(step.name)})` : ''}`);
  const failedAssertions = step ? [] : (r.assertion_results ?? []).filter((a) => a.status === 'failed');
  if (failedAssertions.length) out.push(`- **Failing assertion${failedAssertions.length === 1 ? '' : 's'}:** ${failedAssertions.map((a) => `${a.index + 1}. ${codeSpan(a.description)}${a.name ? ` (${inline(a.name)})` : ''}`).join('; ')}`);
  if (error) out.push(`- **Error:** \`${code(error.kind)}\``);
  const heals = healedSelectors(r);
  if (heals.length > 0) out.push(`- **Healed:** ${heals.map((h) => `${h.field === undefined ? '' : `${inline(h.field)}: `}${codeSpan(h.original)} → ${codeSpan(h.healed)} (${percent(h.confidence)})`).join('; ')}`);
  if (r.trace) out.push(`- **Trace:** ${codeSpan(r.trace)} — open with \`npx playwright show-trace <path>\``);
  for (const v of r.visual ?? []) out.push(visualLine(v));
  for (const o of r.accessibility ?? []) out.push(...accessibilityLines(o));
  out.push('');
  if (error?.message) out.push(fence(truncate(error.message, maxMessage)), '');
  if (error?.stack) out.push('<details><summary>Stack trace</summary>', '', fence(truncate(error.stack, maxMessage)), '', '</details>', '');
  if (r.console_errors.length > 0) out.push(`<details><summary>Console errors (${r.console_errors.length})</summary>`, '', fence(truncate(r.console_errors.join('\n'), maxMessage)), '', '</details>', '');
  if (r.failed_requests.length > 0) {
    const lines = r.failed_requests.map((f) => `${f.method} ${f.url} — ${f.failure}`).join('\n');
    out.push(`<details><summary>Failed requests (${r.failed_requests.length})</summary>`, '', fence(truncate(lines, maxMessage)), '', '</details>', '');
  }
  out.push(...extractedLines(r, maxMessage));
  return `${out.join('\n')}\n`;
}

/**
 * What the failed test's extract steps read before it failed (as recorded: masked), folded
 * away: it often says why a later step failed. Each step's value is cut like a message.
 */
function extractedLines(r: TestExecutionResult, maxMessage: number): string[] {
  const read = r.steps.filter((s) => s.extracted !== undefined);
  if (read.length === 0) return [];
  const text = read.map((s) => `step ${s.index + 1}${s.save_as ? ` {{${s.save_as}}}` : ''}: ${truncate(JSON.stringify(s.extracted, null, 2), maxMessage)}`).join('\n');
  return [`<details><summary>Extracted (${read.length} step${read.length === 1 ? '' : 's'})</summary>`, '', fence(text), '', '</details>', ''];
}

/**
 * Baselines that tests which did not fail wrote (new or updated): later runs compare
 * against them, so like a heal they deserve a look before merging. Failed tests list
 * their outcomes in their own section; plain matches are not news.
 */
function baselinesWritten(results: TestExecutionResult[]): string[] {
  const written = results
    .filter((r) => r.status !== 'failed')
    .map((r) => ({ test: r.name, outcomes: (r.visual ?? []).filter((v) => v.status === 'created' || v.status === 'updated') }))
    .filter((t) => t.outcomes.length > 0);
  if (written.length === 0) return [];
  const count = written.reduce((n, t) => n + t.outcomes.length, 0);
  const out = [`### 🖼️ Visual baselines written (${count})`, ''];
  for (const t of written) out.push(`- ${inline(t.test)}`, ...t.outcomes.map((v) => `  ${visualLine(v)}`));
  out.push('', 'Check new and updated baselines before merging: later runs compare against them.', '');
  return out;
}

/** One outcome as a list item: - visual "home": differs — 1,234 pixels (0.42 %). */
function visualLine(v: VisualOutcome): string {
  return `- visual "${inline(v.name)}": ${visualSummary(v)}`;
}

/** An accessibility check and its violated rules: - accessibility "…": 2 rules violated …, then one sub-item per rule with its help link. */
function accessibilityLines(o: AccessibilityOutcome): string[] {
  const where = o.selector ? ` in ${codeSpan(o.selector)}` : '';
  const rules = o.violations.map((v) => {
    const link = /^https?:\/\//.test(v.help_url) ? ` ([help](<${v.help_url.replace(/[<>\s]/g, encodeURIComponent)}>))` : '';
    return `  - ${codeSpan(v.id)} (${v.impact ?? 'no impact'}): ${inline(v.help)} — ${codeSpan(violationTargets(v))}${link}`;
  });
  return [`- accessibility "${inline(o.name)}"${where}: ${accessibilitySummary(o)}`, ...rules];
}

// ---------------------------------------------------------------- escaping

/**
 * Plain text inside a line (never at its start, but it may start a list item's text): the
 * punctuation that formats inline is backslash-escaped, and so is a leading list marker
 * ("1. ", "2) ", "- ", "+ "), which would nest a list in the item; HTML-significant
 * characters become entities, and a zero-width space after @ keeps GitHub from notifying
 * whoever a test name happens to mention.
 */
function inline(text: string): string {
  return oneLine(text)
    .replace(/[\\`*_[\]|~#]/g, (c) => `\\${c}`)
    .replace(/^(\d{1,9})([.)])|^([-+])/, (_, digits: string | undefined, mark: string | undefined, bullet: string | undefined) => (bullet ? `\\${bullet}` : `${digits}\\${mark}`))
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@/g, '@\u200B');
}

/** Text inside a table cell: like inline, pipes included (they end cells even inside code). */
function cell(text: string): string {
  return inline(text);
}

/** Code inside a table cell: GitHub needs \| even within backticks. */
function cellCode(text: string): string {
  return codeSpan(text).replace(/\|/g, '\\|');
}

/** A code span that survives any backticks inside the text. */
function codeSpan(text: string): string {
  const t = oneLine(text);
  const longest = Math.max(0, ...[...t.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  const pad = t.startsWith('`') || t.endsWith('`') || t === '' ? ' ' : '';
  return `${ticks}${pad}${t}${pad}${ticks}`;
}

/** For values known not to contain backticks (ids, kinds); any that do are removed. */
function code(text: string): string {
  return oneLine(text).replace(/`/g, '');
}

/** A fenced code block whose fence is longer than any backtick run in the text. */
function fence(text: string): string {
  const t = stripControl(text);
  const longest = Math.max(0, ...[...t.matchAll(/`{3,}/g)].map((m) => m[0].length));
  const f = '`'.repeat(Math.max(3, longest + 1));
  return `${f}text\n${t}\n${f}`;
}

function oneLine(text: string): string {
  return stripControl(text).replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
