import { api, ApiError } from './api.js';
import { $, element, messageOf, setMessage } from './dom.js';
import { artifactButtons, runArtifactsByCase } from './run-artifacts.js';
import { extractedBlock } from './extracted.js';
import { healedBlock } from './healed-locators.js';
import { visualChangeBlock } from './visual-change.js';
import { comparisonLine, newFailureKeys, previousRunComparison } from './run-compare.js';
import { sourceText } from './run-source.js';
import { commentsSection } from './comments.js';

/**
 * The run the Tests panel started last, under the list: its status while it goes (the
 * dashboard polls GET /api/v1/test/status/{id}: simpler than the SSE stream, and a missed
 * answer costs nothing), then its totals and one row per test, or per case of a
 * parameterised test ("test [set]"), with the error of each failure. Members may retry a
 * failed row, which starts and follows a run of just that test or case, heal a row whose
 * locator broke (a heal run of the test, followed the same way), keep a healed row's fix
 * in its test (of a parameterised test, every case's heals at once), and download its
 * Playwright trace and failure screenshot (run-artifacts.js). A finished run's
 * report is offered as HTML and as PDF (POST /api/reports/generate; a server without a PDF
 * printer answers 501, said under the button). The HTML report is
 * downloaded rather than opened: a page made from a blob: URL inherits the dashboard's
 * Content-Security-Policy, which refuses the report's inline styles, while the saved file
 * opens under the report's own policy. What a test's extract steps read is shown under its
 * row (extracted.js), passed or not. A finished run is compared with the project's previous
 * one (run-compare.js): a line says how many cases newly failed and how many got fixed, and
 * a new failure's row is marked "new". A run with a source (a webhook's, or a CI caller's)
 * names its branch, and a pull request's target, beside its status (run-source.js). Under
 * a finished run's rows are its review comments (comments.js): a thread may be about one of
 * the run's tests, and a member's Comment on a row starts one about that row's test.
 *
 * @typedef {{ id: string, status: string, total_tests: number, error: string | null, source?: import('./run-source.js').RunSource | null }} Run
 * @typedef {{ run: Run, passed_count: number, failed_count: number, skipped_count: number, pending_approvals: unknown[] }} RunStatus
 * @typedef {{ index: number, name: string }} SetRef
 * @typedef {{ test_id: string, status: string, duration_ms: number | null, error_message: string | null, parameter_set?: SetRef, metadata: { name?: unknown, quarantined?: unknown, steps?: unknown, failure_kind?: unknown, failed_step?: unknown, visual?: unknown }, attempt: number }} Result
 * @typedef {{ canRetry: boolean, onFinished: () => void }} RunContext
 */

const el = {
  section: $('test-run'),
  heading: $('test-run-heading'),
  state: $('test-run-state'),
  source: $('test-run-source'),
  runId: $('test-run-id'),
  report: /** @type {HTMLButtonElement} */ ($('test-run-report')),
  pdf: /** @type {HTMLButtonElement} */ ($('test-run-pdf')),
  pdfError: $('test-run-pdf-error'),
  status: $('test-run-status'),
  compare: $('test-run-compare'),
  error: $('test-run-error'),
  results: $('test-run-results'),
  comments: $('test-run-comments'),
};

/** How often a going run's status is asked for. */
const POLL_MS = 700;
/** Statuses a run never leaves. */
const FINAL = new Set(['completed', 'failed', 'cancelled']);
/** A run's status in words, while it goes. */
const RUN_STATES = /** @type {Record<string, string>} */ ({ pending: 'starting', queued: 'queued', running: 'running', awaiting_approval: 'waiting for approval' });

/**
 * Which run the view shows. Bumped when another run is shown and when the panel closes, so
 * a poll, a result list or a report for a run no longer shown changes nothing.
 */
let shown = 0;
/** @type {RunContext | undefined} */
let context;
/** The run on screen, for the report button. */
let runId = '';
/** The object URL of the report last downloaded, released with the next one or when the view resets. */
let reportUrl = '';
/** @type {import('./comments.js').CommentsSection | undefined} the comments of the run on screen, once it finished */
let comments;

function releaseReport() {
  if (reportUrl) URL.revokeObjectURL(reportUrl);
  reportUrl = '';
}

/**
 * Saves a downloaded report under its name, keeping its object URL until the next one.
 * @param {Blob} blob
 * @param {string} filename
 */
function save(blob, filename) {
  releaseReport();
  reportUrl = URL.createObjectURL(blob);
  const link = /** @type {HTMLAnchorElement} */ (element('a'));
  link.href = reportUrl;
  link.download = filename;
  link.click();
}

const id = encodeURIComponent;
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A status as a badge's class: passed and healed green, failed red, the rest grey. @param {string} status */
export function badgeClass(status) {
  if (status === 'passed' || status === 'healed' || status === 'completed') return 'badge badge-enabled';
  if (status === 'failed') return 'badge badge-failed';
  return 'badge badge-paused';
}

/** @param {number} n @param {string} word */
const count = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The latest attempt of each case, in name order: results come one per test and attempt,
 * and a case re-run within the run (a heal's re-run) counts by its last attempt.
 * @param {Result[]} items
 */
function latestPerCase(items) {
  /** @type {Map<string, Result>} */
  const latest = new Map();
  for (const r of items) {
    const key = `${r.test_id}[${r.parameter_set?.index ?? 0}]`;
    const before = latest.get(key);
    if (!before || r.attempt >= before.attempt) latest.set(key, r);
  }
  return [...latest.values()].sort((a, b) => nameOf(a).localeCompare(nameOf(b)) || (a.parameter_set?.index ?? 0) - (b.parameter_set?.index ?? 0));
}

/** A result's name as reports give it ("sign in [admin]"); a result without one is named by its test. @param {Result} r */
function nameOf(r) {
  if (typeof r.metadata.name === 'string' && r.metadata.name) return r.metadata.name;
  return r.parameter_set ? `test ${r.test_id} [${r.parameter_set.name}]` : `test ${r.test_id}`;
}

/** The case a result is of, as the run's artifacts name it. @param {Result} r */
const caseOf = (r) => (r.parameter_set ? `${r.test_id}[${r.parameter_set.index}]` : r.test_id);

/**
 * @param {Result} result
 * @param {Map<string, import('./run-artifacts.js').RunArtifact[]>} artifacts the run's, by case
 * @param {Set<string>} newFailures cases that failed here and not in the previous run (`<test id>[<set index or 0>]`)
 */
function resultRow(result, artifacts, newFailures) {
  const name = nameOf(result);
  const li = element('li', { className: 'test-result-row', testid: 'test-result-row' });
  li.dataset.testId = result.test_id;
  if (result.parameter_set) li.dataset.parameterSet = String(result.parameter_set.index);
  const head = element('div', { className: 'test-result-head' });
  head.append(
    element('span', { className: badgeClass(result.status), testid: 'test-result-status', text: result.status }),
    element('span', { className: 'test-result-name', testid: 'test-result-name', text: name }),
  );
  if (newFailures.has(`${result.test_id}[${result.parameter_set?.index ?? 0}]`)) {
    const badge = element('span', { className: 'badge badge-new', testid: 'test-result-new', text: 'new' });
    badge.title = 'failed in this run, not in the previous one';
    head.append(badge);
  }
  if (typeof result.metadata.quarantined === 'string') {
    const badge = element('span', { className: 'badge badge-paused', testid: 'test-result-quarantined', text: 'quarantined' });
    badge.title = `${result.metadata.quarantined} — this failure does not fail the run`;
    head.append(badge);
  }
  if (result.duration_ms !== null) head.append(element('span', { className: 'muted', testid: 'test-result-duration', text: `${result.duration_ms} ms` }));
  li.append(head);
  if (result.status !== 'passed' && result.error_message) li.append(element('p', { className: 'test-result-error', testid: 'test-result-error', text: result.error_message }));
  const extracted = extractedBlock(result.metadata);
  if (extracted) li.append(extracted);
  const healed = result.status === 'healed' ? healedBlock(result.metadata) : undefined;
  if (healed) li.append(healed);
  const visual = result.status === 'failed' ? visualChangeBlock(result, artifacts.get(caseOf(result)) ?? [], { canAccept: !!context?.canRetry, testName: name }) : undefined;
  if (visual) li.append(visual);
  const actions = element('div', { className: 'test-result-actions' });
  /** @type {HTMLElement | undefined} */
  let downloadStatus;
  if (result.status === 'failed') {
    if (context?.canRetry) actions.append(retryButton(result, name));
    if (context?.canRetry && result.metadata.failure_kind === 'locator' && typeof result.metadata.failed_step === 'number' && !atAssertion(result, result.metadata.failed_step)) actions.append(healButton(result, name, result.metadata.failed_step));
    const status = element('p', { className: 'muted', testid: 'test-result-download-status' });
    status.hidden = true;
    actions.append(...artifactButtons(artifacts.get(caseOf(result)) ?? [], name, status, save));
    if (actions.childElementCount) downloadStatus = status;
  }
  /** @type {HTMLElement | undefined} */
  let keptStatus;
  if (result.status === 'healed' && context?.canRetry) {
    const keep = keepHealControls(result, name);
    actions.append(keep.button);
    keptStatus = keep.said;
  }
  if (context?.canRetry) actions.append(commentButton(result, name));
  if (actions.childElementCount) li.append(actions);
  if (downloadStatus) li.append(downloadStatus);
  if (keptStatus) li.append(keptStatus);
  return li;
}

/**
 * A row's Comment: the run's new-comment form, about this row's test.
 * @param {Result} result @param {string} name
 */
function commentButton(result, name) {
  const button = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: 'test-result-comment', text: 'Comment' }));
  button.type = 'button';
  button.setAttribute('aria-label', `Comment on ${name}`);
  button.addEventListener('click', () => comments?.aboutTest(result.test_id));
  return button;
}

/**
 * The run's tests, once each, by name (a parameterised test's cases named without their set).
 * @param {Result[]} cases
 * @returns {import('./comments.js').TestRef[]}
 */
function testsOf(cases) {
  /** @type {Map<string, string>} */
  const names = new Map();
  for (const r of cases) if (!names.has(r.test_id)) names.set(r.test_id, r.parameter_set ? nameOf(r).replace(` [${r.parameter_set.name}]`, '') : nameOf(r));
  return [...names].map(([id, name]) => ({ id, name })).sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * A healed row's "Keep the fix": writes the locators this run healed into the test
 * (POST /api/tests/{id}/apply-heal, a new revision), so the next run needs no healing.
 * A parameterised test is kept whole: the API merges the heals of every case of the run,
 * so a case row's button keeps the fix of its test, and once it is kept every row of that
 * test says so. A refusal (a case failed, or two cases healed a locator differently: the
 * API's 409 names the case) is said under the button as an error.
 * @param {Result} result @param {string} name
 */
function keepHealControls(result, name) {
  const run = runId;
  const button = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: 'test-result-keep-heal', text: 'Keep the fix' }));
  button.type = 'button';
  const testName = result.parameter_set ? name.replace(` [${result.parameter_set.name}]`, '') : name;
  button.setAttribute('aria-label', result.parameter_set ? `Keep the fix: write the locators healed in every case of ${testName} into the test` : `Keep the fix: write the locators healed in ${name} into the test`);
  if (result.parameter_set) button.title = `Keeps the fix of ${testName}: the heals of all its cases in this run`;
  const said = element('p', { className: 'muted', testid: 'test-result-keep-heal-status' });
  said.hidden = true;
  button.addEventListener('click', async () => {
    const rows = keepControlsOf(result.test_id);
    for (const row of rows) row.button.disabled = true;
    said.className = 'muted';
    said.removeAttribute('role');
    setMessage(said);
    try {
      /** @type {{ test: { revision: number }, changes: Array<{ path: string, from: string, to: string }> }} */
      const out = await api(`/api/tests/${id(result.test_id)}/apply-heal`, { method: 'POST', body: { run_id: run } });
      const kept = `Saved as revision ${out.test.revision}: ${out.changes.map((c) => `${c.path} ${c.from} → ${c.to}`).join('; ')}.`;
      for (const row of rows) setMessage(row.said, kept);
    } catch (err) {
      for (const row of rows) row.button.disabled = false;
      said.className = 'field-error';
      said.setAttribute('role', 'alert');
      setMessage(said, `Not saved: ${messageOf(err)}`);
    }
  });
  return { button, said };
}

/**
 * The Keep the fix buttons, and what they say, of every row of a test in the run shown
 * (one per healed case of a parameterised test).
 * @param {string} testId
 */
function keepControlsOf(testId) {
  return [...el.results.children].flatMap((row) => {
    if (!(row instanceof HTMLElement) || row.dataset.testId !== testId) return [];
    const button = row.querySelector('[data-testid="test-result-keep-heal"]');
    const said = row.querySelector('[data-testid="test-result-keep-heal-status"]');
    return button instanceof HTMLButtonElement && said instanceof HTMLElement ? [{ button, said }] : [];
  });
}

/**
 * Retries a failed test, or only the failed case of a parameterised one, as a retry of the
 * run on screen: the new run keeps its source (branch, commit, pull request).
 * @param {Result} result @param {string} name
 */
function retryButton(result, name) {
  const button = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: 'test-result-retry', text: 'Retry' }));
  button.type = 'button';
  button.setAttribute('aria-label', `Retry ${name}`);
  const body = { ...(result.parameter_set && { parameter_set: result.parameter_set.index }), ...(runId && { run_id: runId }) };
  button.addEventListener('click', () => {
    button.disabled = true;
    void startRun(name, () => api(`/api/tests/${id(result.test_id)}/retry`, { method: 'POST', body }));
  });
  return button;
}

/**
 * Whether a failure is at one of the test's trailing assertions rather than a step:
 * failed_step counts the steps first, then the assertions (steps.length + index), and every
 * step ran when an assertion failed. POST /api/heal names a step (step_index), not one of
 * those, so such a row offers no Heal (it said "its step 2" of a one-step test, and the API
 * refused it).
 * @param {Result} result @param {number} failedStep
 */
function atAssertion(result, failedStep) {
  const steps = result.metadata.steps;
  return Array.isArray(steps) && failedStep >= steps.length;
}

/**
 * Asks for the broken locator of a failed step to be healed (POST /api/heal, with the run
 * on screen: the heal run tests the same code) and follows the heal run the healer starts
 * for it: the test runs again, a broken locator is healed on the page, and the result says
 * whether the fix held. The run exists a moment after the request, on the thread the
 * answer names; until then its status is a 404, asked again for up to HEAL_START_MS.
 * @param {Result} result @param {string} name @param {number} step the failed step (0-based)
 */
function healButton(result, name, step) {
  const button = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: 'test-result-heal', text: 'Heal' }));
  button.type = 'button';
  button.setAttribute('aria-label', `Heal ${name}: its step ${step + 1}`);
  button.title = `Run ${name} again and heal the locator of step ${step + 1} on the page`;
  const body = { test_id: result.test_id, step_index: step, ...(result.error_message && { error_message: result.error_message.slice(0, 10_000) }), ...(runId && { run_id: runId }) };
  button.addEventListener('click', () => {
    button.disabled = true;
    void startRun(`healing ${name}`, async () => {
      /** @type {{ decision: string, reason?: string, heal_run?: { status_url: string } }} */
      const answer = await api('/api/heal', { method: 'POST', body });
      if (!answer.heal_run) throw new Error(answer.reason ?? `no heal run (${answer.decision})`);
      const statusUrl = answer.heal_run.status_url;
      for (const deadline = Date.now() + HEAL_START_MS; ; await sleep(POLL_MS)) {
        try {
          /** @type {RunStatus} */
          const status = await api(statusUrl);
          return { run: status.run };
        } catch (err) {
          if (!(err instanceof ApiError && err.status === 404) || Date.now() > deadline) throw err;
        }
      }
    });
  });
  return button;
}

/** How long a heal run may take to appear after the request (the healer consumer starts it). */
const HEAL_START_MS = 30_000;

/** What the run did so far, from its status. @param {RunStatus} s */
function progressOf(s) {
  const state = RUN_STATES[s.run.status] ?? s.run.status;
  const waiting = s.pending_approvals.length ? ' (approve or reject it through the API)' : '';
  const done = s.passed_count + s.failed_count + s.skipped_count;
  // total_tests is known once the plan is (0 before): "3 of 10 cases done".
  const of = s.run.total_tests > 0 ? `${Math.min(done, s.run.total_tests)} of ${s.run.total_tests} case${s.run.total_tests === 1 ? '' : 's'} done — ` : '';
  return `Run ${state}${waiting}: ${of}${s.passed_count} passed, ${s.failed_count} failed, ${s.skipped_count} skipped so far.`;
}

/** The finished run's totals over its cases. @param {Run} run @param {Result[]} cases */
function totalsOf(run, cases) {
  const by = (/** @type {string} */ status) => cases.filter((r) => r.status === status).length;
  const healed = by('healed');
  const quarantined = cases.filter((r) => r.status === 'failed' && typeof r.metadata.quarantined === 'string').length;
  const parts = [`${by('passed')} passed`, ...(healed ? [`${healed} healed`] : []), `${by('failed')} failed${quarantined ? ` (${quarantined} quarantined)` : ''}`, `${by('skipped')} skipped`];
  return `Run ${run.status}: ${count(cases.length, 'case')}, ${parts.join(', ')}.`;
}

/** Hides the run view and forgets its run. @param {RunContext} [ctx] who may retry, and what to do when a run ends (reload the tests); none when the panel closes */
export function resetRuns(ctx) {
  shown++;
  context = ctx;
  runId = '';
  releaseReport();
  el.section.hidden = true;
  el.compare.hidden = true;
  el.results.replaceChildren();
  el.comments.replaceChildren();
  comments = undefined;
  setMessage(el.status);
  setMessage(el.error);
  setMessage(el.pdfError);
}

/**
 * Starts a run and follows it; any run shown before is left to go on unwatched.
 * @param {string} what what runs, for the heading ("all tests", a test's name)
 * @param {() => Promise<{ run: Run }>} start the request that starts it
 */
export function startRun(what, start) {
  return watch(what, 'Starting…', start);
}

/**
 * Follows a run that started elsewhere (a source-control webhook's): its status, then its
 * results and report, as for a run started here.
 * @param {string} what what ran, for the heading ("push to main at 1a2b3c4")
 * @param {string} existing the run's id
 */
export function showRun(what, existing) {
  return watch(what, 'Loading…', async () => ({ run: { id: existing, status: 'pending', total_tests: 0, error: null } }));
}

/**
 * Shows a run from its start and follows it.
 * @param {string} what
 * @param {string} waiting what the status line says until the run is known
 * @param {() => Promise<{ run: Run }>} start
 */
async function watch(what, waiting, start) {
  const mine = ++shown;
  runId = '';
  el.heading.textContent = `Run of ${what}`;
  el.state.textContent = 'starting';
  el.state.className = badgeClass('pending');
  el.runId.textContent = '';
  el.source.textContent = '';
  el.source.hidden = true;
  el.report.hidden = true;
  el.pdf.hidden = true;
  el.compare.hidden = true;
  el.results.replaceChildren();
  el.comments.replaceChildren();
  comments = undefined;
  setMessage(el.error);
  setMessage(el.pdfError);
  setMessage(el.status, waiting);
  el.section.hidden = false;
  el.section.scrollIntoView({ block: 'nearest' });
  try {
    const started = await start();
    if (mine !== shown) return;
    runId = started.run.id;
    el.section.dataset.runId = runId;
    el.runId.textContent = runId;
    await follow(mine);
  } catch (err) {
    if (mine !== shown) return;
    setMessage(el.status);
    // A run that never started is not "starting" for good.
    if (!runId) {
      el.state.textContent = 'not started';
      el.state.className = badgeClass('failed');
    }
    setMessage(el.error, `${runId ? 'Could not follow the run' : 'Could not start the run'}: ${messageOf(err)}`);
  }
}

/** Polls the run until it ends, then shows its results. @param {number} mine */
async function follow(mine) {
  /** @type {RunStatus} */
  let status;
  for (;;) {
    try {
      status = await api(`/api/v1/test/status/${id(runId)}`);
    } catch (err) {
      // A missed answer (the network dropped a moment, the server is restarting) costs a poll,
      // not the run: it is asked again (a single miss left the run shown running for good).
      if (!(err instanceof ApiError && (err.status === 0 || err.status >= 500))) throw err;
      if (mine !== shown) return;
      setMessage(el.status, `No answer from the server (${messageOf(err)}): still following the run, asking again.`);
      await sleep(POLL_MS);
      if (mine !== shown) return;
      continue;
    }
    if (mine !== shown) return;
    el.state.textContent = status.run.status;
    el.state.className = badgeClass(status.run.status);
    el.source.textContent = sourceText(status.run.source);
    el.source.hidden = !el.source.textContent;
    if (FINAL.has(status.run.status)) break;
    setMessage(el.status, progressOf(status));
    await sleep(POLL_MS);
    if (mine !== shown) return;
  }
  /** @type {{ run: Run, items: Result[] }} */
  const results = await api(`/api/v1/tests/${id(runId)}/results`);
  if (mine !== shown) return;
  const cases = latestPerCase(results.items);
  const [artifacts, comparison] = await Promise.all([cases.some((r) => r.status === 'failed') ? runArtifactsByCase(runId) : new Map(), previousRunComparison(runId)]);
  if (mine !== shown) return;
  // A run that completed with a failed case is not a green one (a quarantined case's failure does not count).
  if (cases.some((r) => r.status === 'failed' && typeof r.metadata.quarantined !== 'string')) el.state.className = badgeClass('failed');
  setMessage(el.status, totalsOf(results.run, cases));
  if (results.run.error) setMessage(el.error, results.run.error);
  el.compare.textContent = comparison ? comparisonLine(comparison) : '';
  el.compare.hidden = !comparison;
  const newFailures = newFailureKeys(comparison);
  comments = commentsSection({ targetType: 'run', targetId: runId, canWrite: !!context?.canRetry, tests: testsOf(cases) });
  el.comments.replaceChildren(comments.element);
  el.results.replaceChildren(...cases.map((r) => resultRow(r, artifacts, newFailures)));
  el.report.hidden = false;
  el.report.disabled = false;
  // Only a finished run has a report to print (the API answers 409 before).
  el.pdf.hidden = false;
  el.pdf.disabled = false;
  context?.onFinished();
}

/**
 * Downloads the run's HTML report, fetched with the session's headers (a link could not
 * send the organization header), as svc-report-<run id>.html.
 */
el.report.addEventListener('click', async () => {
  const mine = shown;
  const run = runId;
  el.report.disabled = true;
  try {
    const blob = await api(`/api/reports/${id(run)}?format=html`, { as: 'blob' });
    if (mine !== shown) return;
    save(blob, `svc-report-${run}.html`);
  } catch (err) {
    if (mine === shown) setMessage(el.error, `Could not get the report: ${messageOf(err)}`);
  } finally {
    if (mine === shown) el.report.disabled = false;
  }
});

/**
 * Downloads the run's report as a PDF (Chromium's print of the HTML report, made on the
 * server), saved under the name the server gives it. A server without a printer (501), or
 * any other refusal, is said under the button.
 */
el.pdf.addEventListener('click', async () => {
  const mine = shown;
  const run = runId;
  el.pdf.disabled = true;
  setMessage(el.pdfError);
  try {
    /** @type {{ blob: Blob, filename: string }} */
    const file = await api('/api/reports/generate', { method: 'POST', body: { run_id: run, format: 'pdf' }, as: 'file' });
    if (mine !== shown) return;
    save(file.blob, file.filename || `svc-report-${run}.pdf`);
  } catch (err) {
    if (mine === shown) setMessage(el.pdfError, `Could not make the PDF: ${messageOf(err)}`);
  } finally {
    if (mine === shown) el.pdf.disabled = false;
  }
});
