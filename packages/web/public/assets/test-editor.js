import { api, ApiError } from './api.js';
import { $, clearFieldErrors, issuesOf, jsonOf, listOf, messageOf, setMessage, showFieldError, showFieldErrors, withIssues } from './dom.js';
import { when } from './revision-people.js';
import { signedIn } from './session.js';

/**
 * Edits one test's name, kind, description, priority, tags, steps, assertions, timeout,
 * shared parameters and parameter sets (the lists and the parameters as JSON, as in the
 * test format; an edit replaces each whole), or writes a new test of a project
 * (openNewTest: the same form, starting from one step of the kind chosen, saved by POST). The timeout is shown in seconds, kept in ms. The editor
 * remembers the revision it loaded and sends it as If-Match, so a save never overwrites a
 * change someone made since: the API answers 412 and the editor says who changed the test
 * and when, keeping the edit in its fields until the person chooses to reload
 * (docs/test-revisions.md). JSON that does not parse, or an empty name, is said under its
 * field and nothing is sent; the API's 400 names the fields it refuses ("assertions.0.equals"),
 * each said under its own field.
 *
 * @typedef {import('./dom.js').FormField} FormField
 * @typedef {{ name: string, type: string, description: string | null, priority: string, tags: string[], steps: unknown[], assertions?: unknown[], timeout_ms?: number, parameters?: Record<string, unknown>, parameter_sets?: unknown[], revision: number }} EditedTest
 */

const el = {
  form: /** @type {HTMLFormElement} */ ($('test-editor')),
  heading: $('test-editor-heading'),
  name: /** @type {HTMLInputElement} */ ($('test-editor-name')),
  type: /** @type {HTMLSelectElement} */ ($('test-editor-type')),
  description: /** @type {HTMLTextAreaElement} */ ($('test-editor-description')),
  priority: /** @type {HTMLSelectElement} */ ($('test-editor-priority')),
  tags: /** @type {HTMLInputElement} */ ($('test-editor-tags')),
  steps: /** @type {HTMLTextAreaElement} */ ($('test-editor-steps')),
  assertions: /** @type {HTMLTextAreaElement} */ ($('test-editor-assertions')),
  timeout: /** @type {HTMLInputElement} */ ($('test-editor-timeout')),
  parameters: /** @type {HTMLTextAreaElement} */ ($('test-editor-parameters')),
  parameterSets: /** @type {HTMLTextAreaElement} */ ($('test-editor-parameter-sets')),
  error: $('test-editor-error'),
  status: $('test-editor-status'),
  reload: /** @type {HTMLButtonElement} */ ($('test-editor-reload')),
  close: /** @type {HTMLButtonElement} */ ($('test-editor-close')),
  save: /** @type {HTMLButtonElement} */ ($('test-editor-save')),
};

/** A select or text area where a FormField takes inputs (they are marked and focused alike). @param {HTMLElement} node */
const asInput = (node) => /** @type {HTMLInputElement} */ (/** @type {unknown} */ (node));
/** A field whose API message is always shown as it is (never "required"). @param {HTMLElement} input @param {string} error */
const field = (input, error) => ({ inputs: [asInput(input)], error: $(error), empty: () => false });

/** The form's fields by the name the API's issues use. */
const FIELDS = /** @type {Record<string, FormField>} */ ({
  name: { inputs: [el.name], error: $('test-editor-name-error') },
  type: field(el.type, 'test-editor-type-error'),
  description: field(el.description, 'test-editor-description-error'),
  priority: field(el.priority, 'test-editor-priority-error'),
  tags: field(el.tags, 'test-editor-tags-error'),
  steps: field(el.steps, 'test-editor-steps-error'),
  assertions: field(el.assertions, 'test-editor-assertions-error'),
  timeout_ms: field(el.timeout, 'test-editor-timeout-error'),
  parameters: field(el.parameters, 'test-editor-parameters-error'),
  parameter_sets: field(el.parameterSets, 'test-editor-parameter-sets-error'),
});

/** Fields holding a list: an issue inside one says where ("assertions.0.equals: …"). */
const LISTS = new Set(['tags', 'steps', 'assertions', 'parameters', 'parameter_sets']);

/** The most a test may take, in seconds (the spec's execution timeout). */
const MAX_TIMEOUT_SECONDS = 600;

/**
 * What the editor shows: a stored test (id, and the revision a save is conditioned on), or
 * a new one for a project (id null until it is saved; then it is edited like any other).
 * @type {{ id: string | null, projectId: string, revision: number, onSaved: () => void } | undefined}
 */
let editing;

/**
 * Where a new test starts, by kind: one step and assertion that show the format (a new
 * tester's first question is what a step looks like), to be edited in place.
 * @type {Record<string, { steps: unknown[], assertions: unknown[] }>}
 */
const STARTERS = {
  ui: { steps: [{ type: 'goto', url: '/' }], assertions: [{ type: 'title', contains: '' }] },
  api: { steps: [{ type: 'request', method: 'GET', url: '/health' }], assertions: [{ type: 'status', equals: 200 }] },
  db: { steps: [{ type: 'sql', connection: { driver: 'postgres', url_env: 'DATABASE_URL' }, statement: 'SELECT 1 AS one' }], assertions: [{ type: 'cell', column: 'one', equals: 1 }] },
};
/** Bumped on every open and close: a late answer for an editor since closed changes nothing. */
let opening = 0;

/** @param {EditedTest} test */
function fill(test) {
  el.name.value = test.name;
  el.type.value = test.type;
  el.description.value = test.description ?? '';
  el.priority.value = test.priority;
  el.tags.value = test.tags.join(', ');
  el.steps.value = JSON.stringify(test.steps, null, 2);
  el.assertions.value = JSON.stringify(test.assertions ?? [], null, 2);
  el.timeout.value = String((test.timeout_ms ?? MAX_TIMEOUT_SECONDS * 1000) / 1000);
  const shared = test.parameters ?? {};
  el.parameters.value = Object.keys(shared).length ? JSON.stringify(shared, null, 2) : '';
  el.parameterSets.value = JSON.stringify(test.parameter_sets ?? [], null, 2);
}

/**
 * The timeout field in ms: empty is the most, 600 s. Undefined when it is not a number
 * from 1 to 600 (said under the field; the API would refuse it naming timeout_ms).
 */
function timeoutMsOf() {
  const text = el.timeout.value.trim();
  if (!text) return MAX_TIMEOUT_SECONDS * 1000;
  const seconds = Number(text);
  return Number.isFinite(seconds) && seconds >= 1 && seconds <= MAX_TIMEOUT_SECONDS ? Math.round(seconds * 1000) : undefined;
}

/** The shared parameters' JSON: empty is none; undefined unless it is a JSON object. */
function parametersOf() {
  if (!el.parameters.value.trim()) return {};
  const value = jsonOf(el.parameters);
  return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

function clearErrors() {
  clearFieldErrors(FIELDS, el.error);
}

/**
 * What a list's JSON text area holds; an empty one is the empty list (a test without
 * assertions, or run once). Undefined when it is not valid JSON.
 * @param {HTMLTextAreaElement} area
 */
function listJsonOf(area) {
  return area.value.trim() ? jsonOf(area) : [];
}

/** The API's 400 under the fields it names, the place inside a list said ("steps.0.url: …"). @param {unknown} err */
function showErrors(err) {
  const issues = issuesOf(err);
  const said = issues.map(({ path, message }) => ({ path, message: LISTS.has(path.split('.')[0]) && path.includes('.') ? `${path}: ${message}` : message }));
  showFieldErrors(issues.length ? withIssues(err, said) : err, { fields: FIELDS, formError: el.error, form: el.form });
}

/** @param {string} testId */
async function loadInto(testId) {
  const mine = opening;
  const test = await api(`/api/tests/${encodeURIComponent(testId)}`);
  if (mine !== opening || !editing) return;
  fill(test);
  editing.revision = test.revision;
  el.heading.textContent = `Edit test · ${test.name} (revision ${test.revision})`;
  el.reload.hidden = true;
  clearErrors();
}

/**
 * Opens the editor on a test, read afresh (its revision is what a save is conditioned on).
 * @param {string} testId
 * @param {{ onSaved: () => void }} options onSaved: the list shows the change
 */
export async function openEditor(testId, { onSaved }) {
  opening++;
  editing = { id: testId, projectId: '', revision: 0, onSaved };
  // Until the test is read, the heading names no test (not the one edited before).
  el.heading.textContent = 'Edit test';
  setMessage(el.status);
  clearErrors();
  el.form.hidden = false;
  try {
    await loadInto(testId);
    showForm();
  } catch (err) {
    setMessage(el.error, `Could not open the test: ${messageOf(err)}`);
  }
}

/** Brings the form into view with its first field focused (keyboard users start typing there). */
function showForm() {
  el.form.scrollIntoView({ block: 'start' });
  el.name.focus({ preventScroll: true });
}

/** The starter's steps and assertions for the kind chosen. */
function fillStarter() {
  const starter = STARTERS[el.type.value] ?? STARTERS.ui;
  el.steps.value = JSON.stringify(starter.steps, null, 2);
  el.assertions.value = JSON.stringify(starter.assertions, null, 2);
}

/**
 * Opens the editor on a new test of the project: nothing is stored until Save.
 * @param {{ id: string, name: string }} project
 * @param {{ onSaved: () => void }} options onSaved: the list shows the new test
 */
export function openNewTest(project, { onSaved }) {
  opening++;
  editing = { id: null, projectId: project.id, revision: 0, onSaved };
  fill({ name: '', type: 'ui', description: null, priority: 'medium', tags: [], steps: [], timeout_ms: MAX_TIMEOUT_SECONDS * 1000, revision: 0 });
  fillStarter();
  el.heading.textContent = `New test · ${project.name}`;
  el.reload.hidden = true;
  setMessage(el.status);
  clearErrors();
  el.form.hidden = false;
  showForm();
}

// A new test's kind picks its starter while the steps are still the starter of another kind.
el.type.addEventListener('change', () => {
  if (!editing || editing.id !== null) return;
  const steps = jsonOf(el.steps);
  const untouched = steps !== undefined && Object.values(STARTERS).some((starter) => JSON.stringify(steps) === JSON.stringify(starter.steps));
  if (untouched) fillStarter();
});

export function closeEditor() {
  opening++;
  editing = undefined;
  el.form.hidden = true;
}

/** The 412's words: who changed the test and when, and that the edit is still here. @param {ApiError} err */
function staleMessage(err) {
  const details = err.details ?? {};
  // One's own save from another tab or window is said as such (it named one's email, as if someone else).
  const me = signedIn()?.actor;
  const yours = !!me && details.changed_by !== undefined && (me === details.changed_by || me === `user:${details.changed_by}`);
  return `This test was changed by ${yours ? 'you (in another tab or window)' : (details.changed_by_name ?? details.changed_by ?? 'someone')} at ${details.changed_at ? when(details.changed_at) : 'an unknown time'} (now revision ${details.current_revision ?? '?'}) since you opened it — reload to see it; your edit is kept in the editor.`;
}

el.form.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!editing) return;
  const target = editing;
  clearErrors();
  // What can be told here is said under its field, all at once, and nothing is sent.
  const name = el.name.value.trim();
  const steps = jsonOf(el.steps);
  const assertions = listJsonOf(el.assertions);
  const parameterSets = listJsonOf(el.parameterSets);
  const timeoutMs = timeoutMsOf();
  const parameters = parametersOf();
  if (!name) showFieldError(FIELDS.name, 'This field is required.');
  if (steps === undefined) showFieldError(FIELDS.steps, 'Not valid JSON: a list of steps, e.g. [{ "type": "goto", "url": "/" }].');
  if (assertions === undefined) showFieldError(FIELDS.assertions, 'Not valid JSON: a list of assertions, e.g. [{ "type": "status", "equals": 200 }] (empty: none).');
  if (timeoutMs === undefined) showFieldError(FIELDS.timeout_ms, `A number of seconds from 1 to ${MAX_TIMEOUT_SECONDS} (empty: ${MAX_TIMEOUT_SECONDS}).`);
  if (parameters === undefined) showFieldError(FIELDS.parameters, 'Not a JSON object: names and values, e.g. { "email": "demo@example.com" } (empty: none).');
  if (parameterSets === undefined) showFieldError(FIELDS.parameter_sets, 'Not valid JSON: a list of sets, e.g. [{ "name": "admin", "values": { "role": "admin" } }] (empty: the test runs once).');
  const firstInvalid = el.form.querySelector('[aria-invalid="true"]');
  if (firstInvalid instanceof HTMLElement) {
    firstInvalid.focus();
    return;
  }
  setMessage(el.status, 'Saving…');
  // One save at a time: a second click while a new test is being created would create two.
  el.save.disabled = true;
  const created = target.id === null;
  const description = el.description.value.trim() ? el.description.value : null;
  const fields = { name, type: el.type.value, priority: el.priority.value, tags: listOf(el.tags), steps, assertions, timeout_ms: timeoutMs, parameters, parameter_sets: parameterSets };
  try {
    /** @type {EditedTest & { id: string }} */
    const saved =
      target.id === null
        ? await api('/api/tests', { method: 'POST', body: { project_id: target.projectId, ...fields, ...(description !== null && { description }) } })
        : await api(`/api/tests/${encodeURIComponent(target.id)}`, {
            method: 'PATCH',
            headers: { 'If-Match': `"${target.revision}"` },
            // Lists are replaced whole: what the text areas say is the test's.
            body: { ...fields, description },
          });
    if (target !== editing) return;
    // A new test, once stored, is edited like any other: the next save is a PATCH of its revision.
    target.id = saved.id;
    target.revision = saved.revision;
    el.heading.textContent = `Edit test · ${saved.name} (revision ${saved.revision})`;
    setMessage(el.status, created ? `Created: the test is in the list (revision ${saved.revision}).` : `Saved as revision ${saved.revision}.`);
    target.onSaved();
  } catch (err) {
    if (target !== editing) return;
    setMessage(el.status);
    if (err instanceof ApiError && err.status === 412) {
      setMessage(el.error, staleMessage(err));
      el.reload.hidden = false;
    } else if (issuesOf(err).length) {
      showErrors(err);
    } else {
      setMessage(el.error, `Not saved: ${messageOf(err)}`);
    }
  } finally {
    el.save.disabled = false;
  }
});

el.reload.addEventListener('click', async () => {
  if (!editing || editing.id === null) return;
  try {
    await loadInto(editing.id);
    setMessage(el.status, 'Reloaded: the editor shows the test as it is now.');
  } catch (err) {
    setMessage(el.error, `Could not reload the test: ${messageOf(err)}`);
  }
});

el.close.addEventListener('click', closeEditor);
