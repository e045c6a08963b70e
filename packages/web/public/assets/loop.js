import { api, ApiError } from './api.js';
import { $, clearFieldErrors, element, setMessage, showFieldErrors, submitting } from './dom.js';
import { openTests } from './tests.js';
import { showRun } from './test-run.js';

/**
 * "Discover & test": the autonomous loop of one project (POST /api/quality/autonomous-loop,
 * docs/intelligence.md), for members and admins (the API refuses viewers). The request
 * crawls the app in the server's browser before it answers (up to a minute), so the panel
 * says it is discovering and keeps its Start button disabled meanwhile. The answer lists the
 * pages visited, the tests written (new or updated) and what was skipped and why; the run
 * it started is followed in the project's Tests panel (test-run.js), as a source-control
 * delivery's run is. The API's field errors go under their fields; a deployment without a
 * browser or run graph (501) or whose browser function cannot be reached (503) is said
 * above the Start button.
 *
 * @typedef {{ id: string, name: string, app_url?: string | null }} ProjectRef
 * @typedef {{ id: string, name: string, kind: string, created: boolean }} LoopTest
 * @typedef {{ name: string, reason: string }} Skipped
 * @typedef {{ run: { id: string } | null, pages: number, tests: LoopTest[], skipped: Skipped[], discovery_session_id: string }} LoopOutcome
 * @typedef {{ canRunTests: boolean, openEnvironment?: () => void }} LoopOptions
 */

const el = {
  panel: $('loop'),
  heading: $('loop-heading'),
  close: /** @type {HTMLButtonElement} */ ($('loop-close')),
  form: /** @type {HTMLFormElement} */ ($('loop-form')),
  startUrl: /** @type {HTMLInputElement} */ ($('loop-start-url')),
  maxPages: /** @type {HTMLInputElement} */ ($('loop-max-pages')),
  healing: /** @type {HTMLInputElement} */ ($('loop-healing')),
  formError: $('loop-error'),
  status: $('loop-status'),
  outcome: $('loop-outcome'),
};

/** The form's fields by the name the API's issues use. */
const FIELDS = /** @type {Record<string, import('./dom.js').FormField>} */ ({
  // Empty means the project's app URL: only "required" (no app URL) is an empty field's error.
  start_url: { inputs: [el.startUrl], error: $('loop-start-url-error'), emptyMessage: 'The project has no app URL: give the URL to start at.' },
  max_pages: { inputs: [el.maxPages], error: $('loop-max-pages-error'), empty: () => false },
  healing_enabled: { inputs: [el.healing], error: $('loop-healing-error'), empty: () => false },
});

/** Secrets a skipped flow waits for are named in its reason ("needs the project secret USERNAME"). */
const NEEDS_SECRET = /project secret/i;

/** @type {(ProjectRef & LoopOptions) | undefined} */
let current;
/** Which opening the panel shows; a loop answering for a closed panel or another project is dropped. */
let opened = 0;

/** @param {number} n @param {string} word */
const count = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** @param {LoopTest} test */
function testItem(test) {
  const li = element('li', { className: 'loop-item', testid: 'loop-test' });
  li.dataset.id = test.id;
  li.append(
    element('span', { className: 'test-name', testid: 'loop-test-name', text: test.name }),
    element('span', { className: 'badge', testid: 'loop-test-kind', text: test.kind }),
    element('span', { className: test.created ? 'badge badge-enabled' : 'badge badge-paused', testid: 'loop-test-state', text: test.created ? 'new' : 'updated' }),
  );
  return li;
}

/** @param {Skipped} skipped */
function skippedItem(skipped) {
  const li = element('li', { className: 'loop-item', testid: 'loop-skipped' });
  li.append(
    element('span', { className: 'test-name', testid: 'loop-skipped-name', text: skipped.name }),
    element('span', { className: 'muted loop-skipped-reason', testid: 'loop-skipped-reason', text: skipped.reason }),
  );
  return li;
}

/**
 * A hint under the skipped flows that wait for the project's secrets: where to set them,
 * with a button that opens the project's Environment panel when this person may see it.
 * @param {ProjectRef & LoopOptions} project
 */
function secretsHint(project) {
  const hint = element('p', { className: 'muted', testid: 'loop-secrets-hint' });
  hint.append('Set the secrets named above as secret variables of the project, then start the loop again: it writes those tests too.');
  if (project.openEnvironment) {
    const open = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: 'loop-open-environment', text: 'Open Environment' }));
    open.type = 'button';
    open.setAttribute('aria-label', `Environment of ${project.name}`);
    open.addEventListener('click', project.openEnvironment);
    hint.append(' ', open);
  }
  return hint;
}

/**
 * Shows what the loop did, and follows its run in the Tests panel.
 * @param {ProjectRef & LoopOptions} project
 * @param {LoopOutcome} outcome
 */
function showOutcome(project, outcome) {
  const parts = [];
  parts.push(element('p', { testid: 'loop-summary', text: `Visited ${count(outcome.pages, 'page')}; wrote ${count(outcome.tests.length, 'test')} (${outcome.tests.filter((t) => t.created).length} new, ${outcome.tests.filter((t) => !t.created).length} updated).` }));
  if (outcome.tests.length) {
    const list = element('ul', { className: 'loop-list', testid: 'loop-tests' });
    list.setAttribute('aria-label', 'Tests written');
    list.append(...outcome.tests.map(testItem));
    parts.push(element('h3', { text: 'Tests written' }), list);
  }
  if (outcome.skipped.length) {
    const list = element('ul', { className: 'loop-list', testid: 'loop-skipped-list' });
    list.setAttribute('aria-label', 'Skipped');
    list.append(...outcome.skipped.map(skippedItem));
    parts.push(element('h3', { text: 'Skipped' }), list);
    if (outcome.skipped.some((s) => NEEDS_SECRET.test(s.reason))) parts.push(secretsHint(project));
  }
  if (!outcome.run) parts.push(element('p', { className: 'muted', testid: 'loop-no-run', text: 'Nothing was found to test, so no run was started.' }));
  else parts.push(element('p', { className: 'muted', testid: 'loop-run-note', text: 'Their run is followed in the Tests panel below.' }));
  el.outcome.replaceChildren(...parts);
  el.outcome.hidden = false;
  if (outcome.run) {
    openTests({ id: project.id, name: project.name }, { canRun: project.canRunTests });
    void showRun(`the autonomous loop of ${project.name}`, outcome.run.id);
  }
}

el.form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const project = current;
  if (!project) return;
  const mine = opened;
  clearFieldErrors(FIELDS, el.formError);
  el.outcome.hidden = true;
  el.outcome.replaceChildren();
  // Everything goes to the API, which names what is wrong; empty fields take its defaults.
  /** @type {{ project_id: string, start_url?: string, max_pages?: number, healing_enabled: boolean }} */
  const body = { project_id: project.id, healing_enabled: el.healing.checked };
  const startUrl = el.startUrl.value.trim();
  if (startUrl) body.start_url = startUrl;
  if (el.maxPages.value.trim()) body.max_pages = Number(el.maxPages.value);
  setMessage(el.status, `Discovering ${startUrl || 'the app'} in the server's browser, then writing and starting the tests: this takes up to a minute…`);
  el.panel.setAttribute('aria-busy', 'true');
  await submitting(el.form, async () => {
    try {
      /** @type {LoopOutcome} */
      const outcome = await api('/api/quality/autonomous-loop', { method: 'POST', body });
      if (mine !== opened) return;
      setMessage(el.status);
      showOutcome(project, outcome);
    } catch (err) {
      if (mine !== opened) return;
      setMessage(el.status);
      // No browser or run graph here (501), or the browser function cannot be reached (503): nothing to correct in the form.
      if (err instanceof ApiError && (err.status === 501 || err.status === 503)) setMessage(el.formError, err.message);
      else showFieldErrors(err, { fields: FIELDS, formError: el.formError, form: el.form });
    } finally {
      if (mine === opened) el.panel.setAttribute('aria-busy', 'false');
    }
  });
});

el.close.addEventListener('click', closeLoop);

/**
 * Shows the loop's form for a project, starting at its app URL.
 * @param {ProjectRef} project
 * @param {LoopOptions} options canRunTests: for the Tests panel the run is followed in; openEnvironment: where the project's secrets are set, when this person may
 */
export function openLoop(project, options) {
  opened++;
  current = { ...project, ...options };
  el.heading.textContent = `Discover & test · ${project.name}`;
  el.form.reset();
  // Set as the default value, so that a form reset keeps it.
  el.startUrl.defaultValue = project.app_url ?? '';
  el.startUrl.value = project.app_url ?? '';
  clearFieldErrors(FIELDS, el.formError);
  setMessage(el.status, project.app_url ? '' : 'The project has no app URL: give the URL to start at.');
  el.outcome.hidden = true;
  el.outcome.replaceChildren();
  el.panel.setAttribute('aria-busy', 'false');
  el.panel.hidden = false;
  el.panel.scrollIntoView({ block: 'nearest' });
}

export function closeLoop() {
  opened++;
  current = undefined;
  el.outcome.hidden = true;
  el.outcome.replaceChildren();
  setMessage(el.status);
  el.panel.setAttribute('aria-busy', 'false');
  el.panel.hidden = true;
}
