import type { AssertionResult, RunSummary, StepResult, TestExecutionResult } from '../execution/types.ts';
import type { VisualOutcome } from '../visual/baseline-store.ts';
import type { AccessibilityOutcome } from '../contracts/accessibility.ts';
import { base64, imageMime } from './bytes.ts';
import { STEP_ICON, UNFINISHED_NOTE, runErrorNote, droppedScreenshotsNote, VISUAL_STATUS_LABEL, accessibilitySummary, failingStep, healedSelectors, stepHeals, humanDuration, percent, screenshotKeys, stripControl, testError, visualDiff, visualImages, retriesOf, runVerdict } from './format.ts';
import { HTML_STYLE } from './html-style.ts';
import { quarantineOf } from '../execution/totals.ts';
import { describeOrigin } from '../flows/expand-flows.ts';

/**
 * The HTML report (`report.html`): one self-contained file that opens from disk, from an
 * artifact store or as a CI attachment — inline CSS, screenshots as data: URIs, no script
 * at all (cards are <details>, the filters are CSS radio buttons) and a Content-Security-
 * Policy that forbids scripts and any network access, so even a mistake in escaping could
 * not run code or reach out.
 */

export interface HtmlReportOptions {
  /**
   * Returns the bytes of an artifact (screenshot, visual comparison image) by key; undefined
   * when it is not available. `embeddedArtifactKeys(summary)` lists the keys asked for.
   */
  embed?: (key: string) => Uint8Array | undefined;
  /** Screenshots larger than this (bytes) are not embedded (default 5 MiB). */
  maxEmbedBytes?: number;
  /**
   * For paper (the PDF report): every collapsible section is rendered open, because a
   * printed <details> shows only its summary and no reader can click it; images load
   * eagerly, so none is still pending when the page is printed; the filters, which need a
   * click, are left out.
   */
  print?: boolean;
}

const STATUS_LABEL: Record<TestExecutionResult['status'], string> = { passed: 'Passed', failed: 'Failed', healed: 'Healed', skipped: 'Skipped' };
/** Badge colours of visual outcomes: a written baseline is a change to review, like a heal. */
const VISUAL_TONE: Record<VisualOutcome['status'], 'passed' | 'healed' | 'failed'> = { matched: 'passed', created: 'healed', updated: 'healed', differs: 'failed', missing: 'failed' };

export function renderHtmlReport(summary: RunSummary, options: HtmlReportOptions = {}): string {
  const results = summary.results;
  const failedCount = results.filter((r) => r.status === 'failed').length;
  const healedCount = results.filter((r) => r.status === 'healed').length;
  const verdict = runVerdict(summary);
  const title = `${{ failed: '✗', interrupted: '⏸', cancelled: '⏹', running: '⏳', nothing_ran: '✓', passed: '✓' }[verdict]} ${summary.name} — svc report`;
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="generator" content="svc">',
    `<title>${esc(title)}</title>`,
    `<style>${HTML_STYLE}</style>`,
    '</head>',
    options.print ? '<body class="print">' : '<body>',
    ...(options.print ? [header(summary)] : filters(summary, failedCount, healedCount)),
    '<main>',
    results.length === 0 ? '<p class="empty">No tests in this run.</p>' : results.map((r, i) => card(r, i, options)).join('\n'),
    `<p class="empty only-failed">No failed tests.</p>`,
    `<p class="empty only-healed">No healed tests.</p>`,
    '</main>',
    `<footer>svc · report for run <code>${esc(summary.run_id)}</code> · ${esc(summary.finished_at)}</footer>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** The radio buttons and their labels: CSS alone hides the cards a filter leaves out. */
function filters(summary: RunSummary, failedCount: number, healedCount: number): string[] {
  return [
    '<input type="radio" name="filter" id="f-all" class="filter" checked>',
    '<input type="radio" name="filter" id="f-failed" class="filter">',
    '<input type="radio" name="filter" id="f-healed" class="filter">',
    header(summary),
    '<nav class="filters" aria-label="Filter tests">',
    `<label for="f-all">All <span>${summary.results.length}</span></label>`,
    `<label for="f-failed">Failed <span>${failedCount}</span></label>`,
    `<label for="f-healed">Healed <span>${healedCount}</span></label>`,
    '</nav>',
  ];
}

function header(s: RunSummary): string {
  const stat = (cls: string, value: number | string, label: string) => `<div class="stat ${cls}"><span class="num">${esc(String(value))}</span><span class="label">${label}</span></div>`;
  const share = (n: number) => (s.total > 0 ? ((n / s.total) * 100).toFixed(2) : '0');
  const segments = (['passed', 'healed', 'failed', 'skipped'] as const)
    .filter((k) => s[k] > 0)
    .map((k) => `<span class="seg ${k}" style="width:${share(s[k])}%" title="${s[k]} ${k}"></span>`)
    .join('');
  const ran = s.total - s.skipped;
  const rate = ran > 0 ? `${Math.round(((s.passed + s.healed) / ran) * 100)}% passed` : 'nothing ran';
  const meta = [`run <code>${esc(s.run_id)}</code>`, `started ${esc(s.started_at)}`, `took ${esc(humanDuration(s.duration_ms))}`, `${s.workers} worker${s.workers === 1 ? '' : 's'}`];
  if (s.base_url) meta.push(`against <code>${esc(s.base_url)}</code>`);
  const verdict = runVerdict(s);
  const dropped = droppedScreenshotsNote(s);
  return [
    `<header class="${verdict === 'passed' || verdict === 'nothing_ran' ? 'run-passed' : 'run-failed'}">`,
    `<h1>${esc(s.name)}</h1>`,
    `<p class="meta">${meta.join(' · ')}</p>`,
    ...(dropped ? [`<p class="meta dropped">⚠ ${esc(dropped)}</p>`] : []),
    ...(s.unfinished ? [`<p class="meta unfinished">${esc(UNFINISHED_NOTE[s.unfinished])}</p>`] : []),
    ...(s.error !== undefined ? [`<p class="meta run-error">${esc(runErrorNote(s)!)}</p>`] : []),
    '<div class="totals">',
    stat('total', s.total, 'Total'),
    stat('passed', s.passed, 'Passed'),
    stat('failed', s.failed, 'Failed'),
    stat('healed', s.healed, 'Healed'),
    stat('skipped', s.skipped, 'Skipped'),
    stat('duration', humanDuration(s.duration_ms), 'Duration'),
    '</div>',
    `<div class="bar" role="img" aria-label="${esc(`${s.passed} passed, ${s.healed} healed, ${s.failed} failed, ${s.skipped} skipped`)}">${segments}</div>`,
    `<p class="rate">${esc(rate)}</p>`,
    '</header>',
  ].join('\n');
}

function card(r: TestExecutionResult, i: number, options: HtmlReportOptions): string {
  const parts: string[] = [];
  const error = r.status === 'failed' || r.status === 'skipped' ? testError(r) : undefined;
  if (error) parts.push(errorBlock(error, r, options.print === true));
  const retries = retriesOf(r);
  if (retries) parts.push(`<p class="flaky">Flaky: passed on attempt ${retries + 1}, after ${retries} failed attempt${retries === 1 ? '' : 's'} in this run.</p>`);
  if (r.steps.length > 0) parts.push(`<h3>Steps</h3>\n<ol class="steps">\n${r.steps.map(stepItem).join('\n')}\n</ol>`);
  if (r.assertion_results?.length) parts.push(`<h3>Assertions</h3>\n<ol class="steps">\n${r.assertion_results.map(assertionItem).join('\n')}\n</ol>`);
  const heals = healedSelectors(r);
  if (heals.length > 0) {
    const rows = heals.map((h) => `<tr><td>${h.assertion !== undefined ? `assertion ${h.assertion + 1}` : `${h.step + 1}${h.field === undefined ? '' : ` <span class="field">${esc(h.field)}</span>`}`}</td><td><code class="before">${esc(h.original)}</code></td><td><code class="after">${esc(h.healed)}</code></td><td>${percent(h.confidence)}</td></tr>`);
    parts.push(`<h3>Healed selectors</h3>\n<table class="heals"><thead><tr><th>Step</th><th>Before</th><th>After</th><th>Confidence</th></tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`);
  }
  if (r.visual && r.visual.length > 0) parts.push(visualSection(r.visual, options, error?.message));
  if (r.accessibility && r.accessibility.length > 0) parts.push(accessibilitySection(r.accessibility));
  const shots = screenshotKeys(r);
  if (shots.length > 0) parts.push(`<h3>Screenshots</h3>\n<div class="shots">\n${shots.map((k) => screenshot(k, options)).join('\n')}\n</div>`);
  if (r.console_errors.length > 0) parts.push(`<h3>Console errors</h3>\n<ul class="log">${r.console_errors.map((e) => `<li><pre>${esc(e)}</pre></li>`).join('')}</ul>`);
  if (r.failed_requests.length > 0) {
    const items = r.failed_requests.map((f) => `<li><span class="method">${esc(f.method)}</span> <span class="url">${esc(f.url)}</span> — ${esc(f.failure)}</li>`);
    parts.push(`<h3>Failed requests</h3>\n<ul class="log">${items.join('')}</ul>`);
  }
  if (r.trace) parts.push(`<p class="trace">Trace: <code>${esc(r.trace)}</code> — open trace.zip with <code>npx playwright show-trace &lt;path&gt;</code></p>`);
  const quarantine = quarantineOf(r);
  const assertions = r.assertions_passed + r.assertions_failed > 0 ? `<span class="assertions">${r.assertions_passed}/${r.assertions_passed + r.assertions_failed} assertions</span>` : '';
  return [
    `<details class="card ${r.status}" id="t-${i + 1}"${r.status === 'failed' || options.print ? ' open' : ''}>`,
    `<summary><span class="badge ${r.status}">${STATUS_LABEL[r.status]}</span>${quarantine === undefined ? '' : `<span class="badge skipped small" title="${esc(quarantine)}">quarantined</span>`}<span class="name">${esc(r.name)}</span><span class="type">${esc(r.type)}</span>${assertions}<span class="dur">${esc(humanDuration(r.duration_ms))}</span></summary>`,
    `<div class="body">`,
    `<p class="test-id">id <code>${esc(r.test_id)}</code> · ${esc(r.started_at)}</p>`,
    ...(quarantine === undefined ? [] : [`<p class="quarantine">Quarantined: ${esc(quarantine)} — ${r.status === 'failed' ? 'this failure does not fail the run' : 'a failure would not fail the run'}.</p>`]),
    ...parts,
    '</div>',
    '</details>',
  ].join('\n');
}

function errorBlock(error: { kind: string; message: string; stack?: string }, r: TestExecutionResult, open: boolean): string {
  const step = failingStep(r);
  const where = step ? `<p class="where">at step ${step.index + 1}: <code>${esc(step.description)}</code></p>` : '';
  const stack = error.stack ? `<details class="stack"${open ? ' open' : ''}><summary>Stack trace</summary><pre>${esc(error.stack)}</pre></details>` : '';
  return `<section class="error"><p><span class="kind">${esc(error.kind)}</span></p>${where}<pre class="message">${esc(error.message)}</pre>${stack}</section>`;
}

/** An extract step's value, shown up to a screenful: the JSON report has all of it. */
const EXTRACTED_SHOWN_CHARS = 2_000;
function extractedBlock(value: unknown): string {
  if (value === undefined) return '';
  const json = JSON.stringify(value, null, 2);
  const shown = json.length > EXTRACTED_SHOWN_CHARS ? `${json.slice(0, EXTRACTED_SHOWN_CHARS)}\n… (${json.length} characters; the JSON report has all of it)` : json;
  return `<pre class="step-extracted">${esc(shown)}</pre>`;
}

function stepItem(s: StepResult): string {
  const from = s.origin ? ` <span class="step-name">(${esc(describeOrigin(s.origin))})</span>` : '';
  const heals = stepHeals(s);
  const healed = heals.length ? ` <span class="badge healed small" title="${esc(heals.map((h) => `${h.field === undefined ? '' : `${h.field}: `}${h.original} → ${h.healed}`).join('; '))}">healed</span>` : '';
  return checkItem(s, `${from}${healed}`, extractedBlock(s.extracted));
}

/** One of the test's assertions (checked after its steps), shown as a step is. */
function assertionItem(a: AssertionResult): string {
  return checkItem(a, '', '');
}

/** A step or an assertion as a list item: its icon, description, name, duration and error; `badges` after the name, `extra` after the error. */
function checkItem(c: Pick<StepResult, 'status' | 'description' | 'name' | 'duration_ms' | 'error'>, badges: string, extra: string): string {
  const name = c.name ? ` <span class="step-name">${esc(c.name)}</span>` : '';
  const error = c.error ? `<div class="step-error"><span class="kind">${esc(c.error.kind)}</span> ${esc(c.error.message)}</div>` : '';
  return `<li class="step ${c.status}"><span class="icon" aria-label="${c.status}">${STEP_ICON[c.status]}</span><span class="desc"><code>${esc(c.description)}</code>${name}${badges}</span><span class="dur">${esc(humanDuration(c.duration_ms))}</span>${error}${extra}</li>`;
}

/**
 * The visual comparisons of a test, one item per outcome. `shownError` is the test's error
 * message, already shown above: a failing outcome's message is usually that same text.
 */
function visualSection(outcomes: VisualOutcome[], options: HtmlReportOptions, shownError: string | undefined): string {
  return `<h3>Visual comparisons</h3>\n<ul class="visuals">\n${outcomes.map((v) => visualItem(v, options, shownError)).join('\n')}\n</ul>`;
}

function visualItem(v: VisualOutcome, options: HtmlReportOptions, shownError: string | undefined): string {
  const diff = visualDiff(v);
  const head = `<p class="visual-head"><code>${esc(v.name)}</code> <span class="badge small ${VISUAL_TONE[v.status]}">${esc(VISUAL_STATUS_LABEL[v.status])}</span>${diff ? ` <span class="visual-diff">${esc(diff)}</span>` : ''}</p>`;
  const message = v.message && v.message !== shownError ? `<p class="visual-message">${esc(v.message)}</p>` : '';
  const figures = visualImages(v).map((img) => screenshot(img.key, options, img.caption));
  // No diff image is made when the sizes differ; say so rather than leave a gap in the row.
  if (v.status === 'differs' && !v.diff) figures.push(`<figure class="missing"><p class="note">No difference image (none is made when the sizes differ).</p><figcaption>Difference</figcaption></figure>`);
  const images = figures.length > 0 ? `\n<div class="shots compare">\n${figures.join('\n')}\n</div>` : '';
  return `<li class="visual" data-status="${esc(v.status)}">${head}${message}${images}</li>`;
}

/** Each accessibility check with its violated rules: rule (linked to its help page), impact, what it asks for, the elements. */
function accessibilitySection(outcomes: AccessibilityOutcome[]): string {
  const item = (o: AccessibilityOutcome) => {
    const where = o.selector ? ` in <code>${esc(o.selector)}</code>` : '';
    const head = `<p class="a11y-head"><code>${esc(o.name)}</code>${where} <span class="badge small ${o.status}">${o.status === 'passed' ? 'Passed' : 'Failed'}</span> <span class="a11y-summary">${esc(accessibilitySummary(o))}</span></p>`;
    if (o.violations.length === 0) return `<li class="a11y" data-status="${o.status}">${head}</li>`;
    const rows = o.violations.map((v) => {
      const targets = v.nodes.map((n) => `<code title="${esc(n.html)}">${esc(n.target.join(' >>> '))}</code>`).join(' ');
      const more = v.node_count > v.nodes.length ? ` <span class="note">+${v.node_count - v.nodes.length} more</span>` : '';
      const rule = /^https?:\/\//.test(v.help_url) ? `<a href="${esc(v.help_url)}" rel="noopener noreferrer">${esc(v.id)}</a>` : esc(v.id);
      return `<tr data-rule="${esc(v.id)}"><td>${rule}</td><td class="impact ${esc(v.impact ?? 'minor')}">${esc(v.impact ?? '—')}</td><td>${esc(v.help)}</td><td>${v.node_count}: ${targets}${more}</td></tr>`;
    });
    return `<li class="a11y" data-status="${o.status}">${head}\n<table class="a11y-violations"><thead><tr><th>Rule</th><th>Impact</th><th>Help</th><th>Elements</th></tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table></li>`;
  };
  return `<h3>Accessibility</h3>\n<ul class="a11ys">\n${outcomes.map(item).join('\n')}\n</ul>`;
}

/** A figure with the artifact embedded, or a note saying why it is not; `label` names its role (Baseline, Actual, …). */
function screenshot(key: string, options: HtmlReportOptions, label?: string): string {
  const caption = label ? `<figcaption>${esc(label)} · <code>${esc(key)}</code></figcaption>` : `<figcaption><code>${esc(key)}</code></figcaption>`;
  let bytes: Uint8Array | undefined;
  try {
    bytes = options.embed?.(key);
  } catch {
    bytes = undefined;
  }
  if (!bytes) return `<figure class="missing"><p class="note">Screenshot not embedded (not available to the report).</p>${caption}</figure>`;
  if (bytes.byteLength > (options.maxEmbedBytes ?? 5 * 1024 * 1024)) return `<figure class="missing"><p class="note">Screenshot not embedded (${Math.round(bytes.byteLength / 1024)} KiB is over the size limit).</p>${caption}</figure>`;
  const mime = imageMime(bytes);
  if (!mime) return `<figure class="missing"><p class="note">Not embedded: not a PNG, JPEG, GIF or WebP image.</p>${caption}</figure>`;
  return `<figure><img src="data:${mime};base64,${base64(bytes)}" alt="${esc(label ? `${label}: ${key}` : `Screenshot ${key}`)}"${options.print ? '' : ' loading="lazy"'}>${caption}</figure>`;
}

/** Escapes text for element content and double- or single-quoted attributes. */
function esc(value: string): string {
  return stripControl(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}
