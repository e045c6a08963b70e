import { element } from './dom.js';

/**
 * How the insights panel shows each answer of the insights API (field names as in
 * packages/core/src/contracts/insights.ts). Each view returns the nodes of its section, and
 * the message its status line shows instead when there is nothing to show.
 *
 * @typedef {{ nodes: Node[], empty?: string }} View
 * @typedef {{ runs: number, executions: number, from: string | null, to: string | null }} InsightWindow
 * @typedef {{ name: string, score: number | null, weight: number, detail: string }} QualityComponent
 * @typedef {{ score: number | null, grade: string | null, components: QualityComponent[], reasons: string[], window: InsightWindow }} QualityScore
 * @typedef {{ test_id: string, name: string, flaky: boolean, flakiness: number, executions: number, passed: number, failed: number, history: string, last_error: string | null, reasons: string[] }} FlakyTest
 * @typedef {{ items: FlakyTest[], flaky_tests: number, tests_executed: number, window: InsightWindow }} FlakyRanking
 * @typedef {{ executions: number, failures: number }} HeatmapCell
 * @typedef {{ key: string, label: string } & HeatmapCell} HeatmapColumn
 * @typedef {{ test_id: string, name: string, failures: number, executions: number, cells: HeatmapCell[] }} HeatmapRow
 * @typedef {{ columns: HeatmapColumn[], rows: HeatmapRow[], total_rows: number }} Heatmap
 * @typedef {{ run_id: string, status: string, trigger: string, created_at: string, duration_ms: number | null, executed: number, passed: number, failed: number, quarantined_failed: number, failing: boolean, healed: number, skipped: number }} TimelineRun
 * @typedef {{ runs: TimelineRun[] }} Timeline
 * @typedef {{ url: string, page_type: string, priority: string, risk_score: number, reasons: string[], suggested_test: string, state: string }} CoverageGap
 * @typedef {{ items: CoverageGap[], total: number, pages: number }} CoverageGaps
 * @typedef {{ cluster_id: string, error_signature: string, failure_type: string | null, failure_count: number, tests: { id: string, name: string | null }[], window_start: string, window_end: string, first_seen: string, last_seen: string, suggested_cause: string | null }} FailureCluster
 * @typedef {{ items: FailureCluster[], threshold: number, window_minutes: number }} FailureClusters
 * @typedef {{ kind: string, method: string, path: string, file: string, line: number, state: string, tests: { test_id: string, name: string }[] }} CodeSurface
 * @typedef {{ surfaces: number, covered: number, failing: number, declared: number, uncovered: number, coverage: number | null }} CodeSummary
 * @typedef {{ ingestion_id: string, codebase_path: string, commit_sha: string | null, analysed_at: string | null, surfaces: CodeSurface[], summary: CodeSummary }} CodeCoverage
 * @typedef {{ code: CodeCoverage | null }} CoverageMap
 */

/** Latest runs listed (the timeline answers with up to 30). */
const RUNS_SHOWN = 10;
/** Characters of a last error shown in the table; the whole of it is in its title. */
const ERROR_SHOWN = 120;
/** Surfaces of the code without a passing test listed (the rest are counted). */
const SURFACES_SHOWN = 20;
/** Characters of a commit shown; the whole of it is in its title. */
const COMMIT_SHOWN = 7;

const COMPONENT_NAMES = { pass_rate: 'Pass rate', stability: 'Stability', coverage: 'Coverage', maintenance: 'Maintenance' };
const HISTORY_NAMES = { P: 'passed', H: 'healed', F: 'failed', S: 'skipped', '|': 'test edited' };
const KIND_NAMES = { http_route: 'HTTP route', api_route: 'API route', page: 'page', client_route: 'client route', openapi_operation: 'OpenAPI operation' };
/** The order the code's surfaces without a passing test are listed in, and their badges (classes of the stylesheet). */
const STATE_ORDER = { failing: 0, uncovered: 1, declared: 2 };
const STATE_BADGES = { failing: 'badge-failed', uncovered: 'priority-medium', declared: 'priority-low' };

/** @param {number} ratio 0..1 */
const percent = (ratio) => `${Math.round(ratio * 100)}%`;
/** @param {number} n @param {string} one @param {string} [many] */
const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * A table with a caption (for screen readers; the section's heading already says it) and
 * column headers.
 * @param {string} testid
 * @param {string} caption
 * @param {string[]} headers
 * @param {HTMLElement[]} rows
 */
function table(testid, caption, headers, rows) {
  const t = element('table', { className: `insights-table ${testid}`, testid });
  const head = element('tr');
  for (const text of headers) {
    const th = element('th', { text });
    th.setAttribute('scope', 'col');
    head.append(th);
  }
  const body = element('tbody');
  body.append(...rows);
  const thead = element('thead');
  thead.append(head);
  t.append(element('caption', { className: 'visually-hidden', text: caption }), thead, body);
  return t;
}

/** @param {Node | string} content @param {string} [className] */
function cell(content, className) {
  const td = element('td', { className });
  td.append(content);
  return td;
}

/** @param {string} value ISO date-time */
function time(value) {
  const node = /** @type {HTMLTimeElement} */ (element('time', { text: new Date(value).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' }) }));
  node.dateTime = value;
  return node;
}

/** @param {number | null} ms */
function duration(ms) {
  if (ms === null) return '–';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** @param {InsightWindow} w */
const windowText = (w) => `Over the latest ${count(w.runs, 'finished run')} (${count(w.executions, 'test execution')}).`;

/** @param {QualityComponent} component */
function componentRow(component) {
  const name = COMPONENT_NAMES[/** @type {keyof COMPONENT_NAMES} */ (component.name)] ?? component.name;
  const li = element('li', { className: 'insights-component', testid: 'insights-component' });
  const label = element('span', { className: 'insights-component-name', testid: 'insights-component-name', text: name });
  label.id = `insights-component-${component.name}`;
  const value = element('span', { className: 'insights-component-value', testid: 'insights-component-value', text: component.score === null ? 'not measured' : `${Math.round(component.score)}` });
  // A bar that reads as a meter: filled to the score, empty (and said so) when not measured.
  const bar = element('div', { className: 'insights-bar' });
  bar.setAttribute('role', 'meter');
  bar.setAttribute('aria-labelledby', label.id);
  bar.setAttribute('aria-valuemin', '0');
  bar.setAttribute('aria-valuemax', '100');
  if (component.score === null) bar.setAttribute('aria-valuetext', 'not measured');
  else bar.setAttribute('aria-valuenow', String(Math.round(component.score)));
  const fill = element('span', { className: 'insights-bar-fill' });
  fill.style.width = `${component.score ?? 0}%`;
  bar.append(fill);
  const weight = component.score === null ? '' : ` · weight ${percent(component.weight)}`;
  li.append(label, value, bar, element('span', { className: 'insights-component-detail muted', testid: 'insights-component-detail', text: `${component.detail}${weight}` }));
  return li;
}

/** @param {QualityScore} data @returns {View} */
export function qualityView(data) {
  if (data.score === null) return { nodes: [], empty: 'No finished run yet: the score is computed from the project’s finished runs.' };
  const summary = element('div', { className: 'insights-score' });
  summary.append(
    element('span', { className: 'insights-score-value', testid: 'insights-score', text: String(Math.round(data.score)) }),
    element('span', { className: 'muted', text: '/ 100' }),
    element('span', { className: 'visually-hidden', text: ', grade' }),
    element('span', { className: `insights-grade grade-${data.grade ?? 'none'}`, testid: 'insights-grade', text: data.grade ?? '–' }),
  );
  const components = element('ul', { className: 'insights-components', testid: 'insights-components' });
  components.append(...data.components.map(componentRow));
  /** @type {Node[]} */
  const nodes = [summary, element('p', { className: 'muted insights-window', text: windowText(data.window) }), components];
  if (data.reasons.length) {
    const reasons = element('ul', { className: 'insights-reasons', testid: 'insights-reasons' });
    reasons.setAttribute('aria-label', 'What lowers the score most');
    reasons.append(...data.reasons.map((reason) => element('li', { text: reason })));
    nodes.push(element('p', { className: 'insights-subheading', text: 'What lowers it most' }), reasons);
  }
  return { nodes };
}

/**
 * A test's outcomes oldest to newest as small squares, with the letters as its text
 * alternative (colour alone says nothing to a screen reader or to everyone).
 * @param {string} history
 */
function historyStrip(history) {
  const strip = element('span', { className: 'insights-history', testid: 'insights-history' });
  strip.setAttribute('role', 'img');
  strip.setAttribute('aria-label', `History, oldest first: ${history}`);
  strip.title = history;
  strip.dataset.history = history;
  for (const letter of history) {
    const mark = element('span', { className: letter === '|' ? 'history-edit' : `history-mark history-${letter}` });
    mark.title = HISTORY_NAMES[/** @type {keyof HISTORY_NAMES} */ (letter)] ?? letter;
    strip.append(mark);
  }
  return strip;
}

/** @param {FlakyTest} test */
function flakyRow(test) {
  const tr = element('tr', { testid: 'insights-flaky-row' });
  tr.dataset.testId = test.test_id;
  const name = element('th', { className: 'insights-test-name' });
  name.setAttribute('scope', 'row');
  name.append(element('span', { testid: 'insights-flaky-name', text: test.name }));
  if (test.flaky) name.append(' ', element('span', { className: 'badge badge-flaky', testid: 'insights-flaky-badge', text: 'flaky' }));
  if (test.reasons.length) name.append(element('span', { className: 'muted insights-reason-line', text: test.reasons.join(' · ') }));
  const error = test.last_error ?? '';
  const errorCell = cell(error.length > ERROR_SHOWN ? `${error.slice(0, ERROR_SHOWN)}…` : error || '–', 'insights-error');
  if (error) errorCell.title = error;
  tr.append(
    name,
    cell(element('span', { testid: 'insights-flakiness', text: percent(test.flakiness) }), 'numeric'),
    cell(String(test.passed), 'numeric'),
    cell(String(test.failed), 'numeric'),
    cell(historyStrip(test.history)),
    errorCell,
  );
  return tr;
}

/** @param {FlakyRanking} data @returns {View} */
export function flakyView(data) {
  if (!data.window.runs) return { nodes: [], empty: 'No finished run yet.' };
  if (!data.items.length) return { nodes: [], empty: `No test changed outcome in the last ${count(data.window.runs, 'run')}.` };
  const summary = element('p', { className: 'muted', testid: 'insights-flaky-summary', text: `${count(data.flaky_tests, 'flaky test')} of ${count(data.tests_executed, 'test')} executed. ${windowText(data.window)}` });
  return { nodes: [summary, table('insights-flaky', 'Tests that changed outcome, most flaky first', ['Test', 'Flakiness', 'Passed', 'Failed', 'History', 'Last error'], data.items.map(flakyRow))] };
}

/** "2025-01-31" → "Jan 31"; a run column's label stays as it is. @param {HeatmapColumn} column */
function shortLabel(column) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(column.key)) return column.label;
  return new Date(`${column.key}T00:00:00Z`).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/**
 * How red a cell is: by the share of its executions that failed, in five steps (the
 * stylesheet holds the colours). Nothing ran: neutral; all passed: light green.
 * @param {HeatmapCell} c
 */
function heat(c) {
  if (!c.executions) return 'heat-none';
  if (!c.failures) return 'heat-ok';
  return `heat-${Math.min(4, Math.ceil((c.failures / c.executions) * 4))}`;
}

/** @param {HeatmapColumn[]} columns @param {HeatmapRow} row */
function heatmapRow(columns, row) {
  const tr = element('tr', { testid: 'insights-heatmap-row' });
  const name = element('th', { className: 'insights-test-name', text: row.name });
  name.setAttribute('scope', 'row');
  tr.append(name);
  row.cells.forEach((c, i) => {
    const what = c.executions ? `${c.failures} of ${c.executions} failed on ${columns[i]?.label ?? ''}` : `not run on ${columns[i]?.label ?? ''}`;
    const td = cell(element('span', { className: 'visually-hidden', text: what }), `heat ${heat(c)}`);
    td.dataset.testid = 'insights-heatmap-cell';
    td.title = what;
    tr.append(td);
  });
  return tr;
}

/** @param {Heatmap} data @returns {View} */
export function heatmapView(data) {
  if (!data.rows.length) return { nodes: [], empty: 'No test ran yet: failures show here by test and day.' };
  const t = table('insights-heatmap', 'Failures by test and day', ['Test', ...data.columns.map(shortLabel)], data.rows.map((row) => heatmapRow(data.columns, row)));
  // The day headers carry the whole day in their title.
  t.querySelectorAll('thead th').forEach((th, i) => {
    if (i > 0) /** @type {HTMLElement} */ (th).title = data.columns[i - 1].label;
  });
  const wrap = element('div', { className: 'insights-scroll' });
  wrap.append(t);
  /** @type {Node[]} */
  const nodes = [wrap];
  if (data.total_rows > data.rows.length) nodes.push(element('p', { className: 'muted', text: `The ${data.rows.length} tests with the most failures of ${data.total_rows}.` }));
  return { nodes };
}

/**
 * What a run's status badge says: a finished run's verdict, passed or failed, as commit
 * statuses and notifications judge it — "completed" said nothing of its failures, and a run
 * whose only failures were quarantined tests must not look red. A cancelled run says so.
 * @param {TimelineRun} run
 */
function verdictOf(run) {
  if (run.status === 'completed' || run.status === 'failed') return run.failing ? 'failed' : 'passed';
  return run.status;
}

/**
 * The failed count, and how many of them were quarantined (their failures do not fail the run).
 * @param {TimelineRun} run
 */
function failedCell(run) {
  const td = cell(String(run.failed), 'numeric');
  if (run.quarantined_failed) {
    const note = element('span', { className: 'muted', testid: 'insights-run-quarantined', text: ` (${run.quarantined_failed} quarantined)` });
    note.title = `${count(run.quarantined_failed, 'quarantined test')} failed: quarantined failures do not fail the run`;
    td.append(note);
  }
  return td;
}

/** @param {TimelineRun} run */
function statusBadge(run) {
  const verdict = verdictOf(run);
  // The stylesheet colours run statuses; a passed run is shown as a completed one is.
  const badge = element('span', { className: `badge run-status run-status-${verdict === 'passed' ? 'completed' : verdict}`, testid: 'insights-run-status', text: verdict });
  if (run.status === 'failed') badge.title = 'the run stopped on an error';
  return badge;
}

/**
 * @param {TimelineRun} run
 * @param {((runId: string, what: string) => void) | undefined} openRun shows the run in the run view
 */
function runRow(run, openRun) {
  const tr = element('tr', { testid: 'insights-run' });
  tr.dataset.runId = run.run_id;
  const when = time(run.created_at);
  /** @type {Node} */
  let first = when;
  if (openRun) {
    // The time opens the run: its results, errors, artifacts and report, for every role.
    const open = /** @type {HTMLButtonElement} */ (element('button', { className: 'link-button', testid: 'insights-run-open' }));
    open.type = 'button';
    open.append(when);
    open.setAttribute('aria-label', `${when.textContent}: open this ${run.trigger} run (${verdictOf(run)})`);
    open.addEventListener('click', () => openRun(run.run_id, `the ${run.trigger} run of ${when.textContent}`));
    first = open;
  }
  tr.append(
    cell(first),
    cell(run.trigger),
    cell(statusBadge(run)),
    cell(String(run.passed), 'numeric'),
    failedCell(run),
    cell(duration(run.duration_ms), 'numeric'),
  );
  return tr;
}

/**
 * @param {Timeline} data
 * @param {{ openRun?: (runId: string, what: string) => void }} [actions] openRun: a run's time opens it
 * @returns {View}
 */
export function runsView(data, actions = {}) {
  if (!data.runs.length) return { nodes: [], empty: 'No finished run yet.' };
  const latest = data.runs.slice(-RUNS_SHOWN).reverse(); // the API lists oldest first
  return { nodes: [table('insights-runs', 'Latest finished runs, newest first', ['When', 'Trigger', 'Status', 'Passed', 'Failed', 'Duration'], latest.map((run) => runRow(run, actions.openRun)))] };
}

/** @param {CoverageGap} gap */
function gapRow(gap) {
  const li = element('li', { className: 'insights-gap', testid: 'insights-gap' });
  const head = element('div', { className: 'insights-gap-head' });
  head.append(
    element('span', { className: `badge priority priority-${gap.priority.toLowerCase()}`, testid: 'insights-gap-priority', text: gap.priority }),
    element('code', { className: 'insights-gap-url', testid: 'insights-gap-url', text: gap.url }),
  );
  if (gap.state === 'declared') head.append(element('span', { className: 'muted', text: 'a test goes there but did not run' }));
  li.append(head, element('p', { className: 'insights-gap-test', testid: 'insights-gap-test', text: gap.suggested_test }));
  return li;
}

/** @param {CoverageGaps} data @returns {View} */
export function gapsView(data) {
  if (!data.pages) return { nodes: [], empty: 'No completed discovery session: Discover & test (on the project\'s row) crawls the app; its pages no test reaches then show here.' };
  if (!data.items.length) return { nodes: [], empty: `Every one of the ${count(data.pages, 'discovered page')} has a test that ran.` };
  const list = element('ul', { className: 'insights-gaps', testid: 'insights-gaps' });
  list.append(...data.items.map(gapRow));
  /** @type {Node[]} */
  const nodes = [list];
  if (data.total > data.items.length) nodes.push(element('p', { className: 'muted', text: `The ${data.items.length} riskiest of ${data.total} untested pages.` }));
  return { nodes };
}

/** @param {FailureCluster} c */
function clusterRow(c) {
  const tr = element('tr', { testid: 'insights-clusters-row' });
  const what = element('div');
  what.append(element('code', { testid: 'insights-clusters-signature', text: c.error_signature }));
  if (c.suggested_cause) what.append(element('p', { className: 'muted', testid: 'insights-clusters-cause', text: `Likely: ${c.suggested_cause}` }));
  const names = c.tests.map((t) => t.name ?? `${t.id} (deleted)`);
  tr.append(cell(time(c.last_seen)), cell(String(c.failure_count)), cell(what), cell(element('span', { testid: 'insights-clusters-tests', text: names.join(', ') })));
  return tr;
}

/** @param {FailureClusters} data @returns {View} */
export function clustersView(data) {
  if (!data.items.length) return { nodes: [], empty: `No failure cluster in the last 30 days (${data.threshold} failures with the same error in the same ${data.window_minutes}-minute block of the clock${data.window_minutes < 60 ? `, e.g. 10:00–10:${String(data.window_minutes).padStart(2, '0')},` : ''} make one).` };
  const about = element('p', { className: 'muted', text: `Tests that failed with the same error (ids and numbers aside) within ${data.window_minutes} minutes: one cause, often one change, breaking several tests.` });
  return { nodes: [about, table('insights-clusters', 'Failure clusters, newest first', ['Last seen', 'Failures', 'Error', 'Tests'], data.items.map(clusterRow))] };
}

/** @param {CodeSurface} surface */
function surfaceRow(surface) {
  const tr = element('tr', { testid: 'insights-code-row' });
  tr.dataset.state = surface.state;
  const what = element('th', { className: 'insights-test-name' });
  what.setAttribute('scope', 'row');
  what.append(
    element('code', { className: 'insights-gap-url', testid: 'insights-code-surface', text: `${surface.method} ${surface.path}` }),
    element('span', { className: 'muted insights-reason-line', text: KIND_NAMES[/** @type {keyof KIND_NAMES} */ (surface.kind)] ?? surface.kind }),
  );
  const state = element('div');
  state.append(element('span', { className: `badge ${STATE_BADGES[/** @type {keyof STATE_BADGES} */ (surface.state)] ?? ''}`, testid: 'insights-code-state', text: surface.state }));
  if (surface.state === 'declared') state.append(element('span', { className: 'muted insights-reason-line', text: 'a test goes there but did not run' }));
  tr.append(
    what,
    cell(element('code', { className: 'insights-gap-url', testid: 'insights-code-where', text: `${surface.file}:${surface.line}` })),
    cell(state),
    cell(element('span', { testid: 'insights-code-tests', text: surface.tests.map((t) => t.name).join(', ') || '–' })),
  );
  return tr;
}

/** @param {CoverageMap} data @returns {View} */
export function codeView(data) {
  const code = data.code;
  if (!code) return { nodes: [], empty: 'No codebase analysed yet: send one with POST /api/analyze and "async": true (or the svc_analyze tool with async) to see which of its routes and pages no test reaches.' };
  const s = code.summary;
  if (!s.surfaces) return { nodes: [], empty: 'The analysed codebase has no route, page or operation that svc recognises.' };
  if (s.covered === s.surfaces) return { nodes: [], empty: `Every one of the ${count(s.surfaces, 'route and page', 'routes and pages')} in the code has a test that ran and passed.` };
  const ran = s.covered + s.failing;
  const summary = element('p', { className: 'muted', testid: 'insights-code-summary' });
  summary.append(`${ran} of ${count(s.surfaces, 'route and page', 'routes and pages')} in the code ${ran === 1 ? 'has' : 'have'} a test that ran (${percent(s.coverage ?? ran / s.surfaces)})`);
  if (code.analysed_at) summary.append(' · analysed ', time(code.analysed_at));
  if (code.commit_sha) {
    const sha = element('code', { testid: 'insights-code-commit', text: code.commit_sha.slice(0, COMMIT_SHOWN) });
    sha.title = code.commit_sha;
    summary.append(code.analysed_at ? ' at commit ' : ' · at commit ', sha);
  }
  const order = (/** @type {CodeSurface} */ x) => STATE_ORDER[/** @type {keyof STATE_ORDER} */ (x.state)];
  const untested = code.surfaces.filter((x) => order(x) !== undefined).sort((a, b) => order(a) - order(b));
  const shown = untested.slice(0, SURFACES_SHOWN);
  const t = table('insights-code', 'Routes and pages of the code without a passing test: failing first, then uncovered, then declared', ['Route or page', 'Where', 'State', 'Tests'], shown.map(surfaceRow));
  const wrap = element('div', { className: 'insights-scroll' });
  wrap.append(t);
  /** @type {Node[]} */
  const nodes = [summary, wrap];
  // The summary counts every surface; the answer lists 500 at most.
  const more = s.failing + s.uncovered + s.declared - shown.length;
  if (more > 0) nodes.push(element('p', { className: 'muted', testid: 'insights-code-more', text: `And ${more} more not shown.` }));
  return { nodes };
}
