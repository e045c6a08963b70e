import { api, ApiError } from './api.js';

/** Small DOM helpers shared by the dashboard's modules. */

/** @param {string} id */
export const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * @param {HTMLElement} node
 * @param {string} [message] hides the node when empty
 */
export function setMessage(node, message) {
  node.textContent = message ?? '';
  node.hidden = !message;
}

/** The API's message for an API error; a generic one for anything else. @param {unknown} err */
export function messageOf(err) {
  return err instanceof ApiError ? err.message : 'Something went wrong. Please try again.';
}

/**
 * A panel's list: "Loading…", then its rows or the empty message, or what went wrong. An
 * answer that arrives after a newer load (or after cancel) is dropped, so a slow answer for
 * a project or organization no longer shown never replaces the current one.
 *
 * @param {{ status: HTMLElement, list: HTMLElement, empty: string, what: string }} parts `what` names the list in errors
 */
export function listLoader({ status, list, empty, what }) {
  let seq = 0;
  return {
    /**
     * @template T
     * @param {() => Promise<{ items: T[] }>} fetchPage
     * @param {(item: T) => HTMLElement} row
     * @param {{ append?: boolean }} [options] append: add the page under the rows shown (the next page of a paged list)
     */
    async load(fetchPage, row, { append = false } = {}) {
      const mine = ++seq;
      setMessage(status, 'Loading…');
      try {
        const page = await fetchPage();
        if (mine !== seq) return;
        if (append) list.append(...page.items.map(row));
        else list.replaceChildren(...page.items.map(row));
        setMessage(status, list.childElementCount ? '' : empty);
      } catch (err) {
        if (mine !== seq) return;
        // A failed next page keeps the rows already shown.
        if (!append) list.replaceChildren();
        setMessage(status, `Could not load ${what}: ${messageOf(err)}`);
      }
    },
    cancel() {
      seq++;
    },
  };
}

/**
 * A small row button (Delete, Revoke) that sends a DELETE for its row and then reloads the
 * list; it disables itself meanwhile and says in `status` when the request fails. With
 * `confirm`, the browser asks that question first and a No sends nothing (for what cannot
 * be undone and is not quickly made again).
 *
 * @param {{ verb: string, testid: string, item: string, path: string, status: HTMLElement, reload: () => Promise<void>, confirm?: string }} o
 */
export function deleteButton({ verb, testid, item, path, status, reload, confirm }) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'button button-small';
  button.dataset.testid = testid;
  button.textContent = verb;
  button.setAttribute('aria-label', `${verb} ${item}`);
  button.addEventListener('click', async () => {
    if (confirm && !window.confirm(confirm)) return;
    button.disabled = true;
    try {
      await api(path, { method: 'DELETE' });
      await reload();
    } catch (err) {
      button.disabled = false;
      setMessage(status, `Could not ${verb.toLowerCase()} ${item}: ${messageOf(err)}`);
    }
  });
  return button;
}

/**
 * The trimmed value of a required field, or undefined after saying it is required.
 * @param {HTMLInputElement} input
 * @param {HTMLElement} error
 */
export function requiredValue(input, error) {
  const value = input.value.trim();
  if (value) return value;
  setMessage(error, 'This field is required.');
  input.setAttribute('aria-invalid', 'true');
  input.focus();
  return undefined;
}

/**
 * Runs a form's submission with its submit button disabled meanwhile.
 * @param {HTMLFormElement} form
 * @param {() => Promise<void>} work
 */
export async function submitting(form, work) {
  const submit = /** @type {HTMLButtonElement} */ (form.querySelector('button[type="submit"]'));
  submit.disabled = true;
  try {
    await work();
  } finally {
    submit.disabled = false;
  }
}

/**
 * A new element with a class, a test id and text.
 * @param {string} tag
 * @param {{ className?: string, testid?: string, text?: string }} [o]
 */
export function element(tag, { className, testid, text } = {}) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (testid) node.dataset.testid = testid;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * A comma-separated field (tags, branch patterns) as a list, without blanks.
 * @param {HTMLInputElement} input
 */
export function listOf(input) {
  return input.value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/**
 * What a JSON text area (a test's or a template's steps, its assertions) holds; undefined
 * when it is not valid JSON (JSON itself has no undefined).
 * @param {HTMLTextAreaElement} area
 * @returns {unknown}
 */
export function jsonOf(area) {
  try {
    return JSON.parse(area.value);
  } catch {
    return undefined;
  }
}

/**
 * A <time> in the browser's local time (empty for a value that is not a date).
 * @param {string} iso
 * @param {string} testid
 */
export function timeOf(iso, testid) {
  const node = /** @type {HTMLTimeElement} */ (element('time', { testid }));
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return node;
  node.dateTime = date.toISOString();
  node.textContent = date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return node;
}

/**
 * A small row button (Pause, Send test, Deliveries) that runs `work` and disables itself
 * meanwhile; a failure is said in `status` ("<failure>: <the API's message>") while
 * `current` says the row is still the one shown (not another organization's).
 * @typedef {{ text: string, testid: string, label: string, failure: string, status: HTMLElement, work: () => Promise<void>, current: () => boolean }} ActionButton
 * @param {ActionButton} o
 */
export function actionButton({ text, testid, label, failure, status, work, current }) {
  const button = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid, text }));
  button.type = 'button';
  button.setAttribute('aria-label', label);
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      await work();
    } catch (err) {
      if (current()) setMessage(status, `${failure}: ${messageOf(err)}`);
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

/**
 * A row button that opens and closes a panel under its row (its aria-expanded says which),
 * reading what the panel shows on every opening.
 * @param {Omit<ActionButton, 'work'> & { panel: HTMLElement, opening: () => Promise<void> }} o the panel has an id
 */
export function disclosureButton({ panel, opening, ...o }) {
  const button = actionButton({
    ...o,
    work: async () => {
      const open = panel.hidden;
      panel.hidden = !open;
      button.setAttribute('aria-expanded', String(open));
      if (open) await opening();
    },
  });
  button.setAttribute('aria-expanded', 'false');
  button.setAttribute('aria-controls', panel.id);
  return button;
}

/**
 * A form's fields by the name the API's issues use: the inputs (several for a group of
 * check boxes: each is marked invalid, a fieldset takes no aria-invalid), the line under
 * them, and, for a field left empty, the form's own words (`empty` says whether it is).
 * @typedef {{ inputs: HTMLInputElement[], error: HTMLElement, empty?: () => boolean, emptyMessage?: string }} FormField
 */

/**
 * Clears what showFieldErrors showed.
 * @param {Record<string, FormField>} fields
 * @param {HTMLElement} formError
 */
export function clearFieldErrors(fields, formError) {
  for (const { inputs, error } of Object.values(fields)) {
    setMessage(error);
    for (const input of inputs) input.removeAttribute('aria-invalid');
  }
  setMessage(formError);
}

/**
 * Shows the API's field errors (400) under their fields ("checks.1" is about the checks
 * field), the rest in `formError`, and focuses the first invalid input; the form keeps what
 * was typed, to be corrected.
 * @param {unknown} err
 * @param {{ fields: Record<string, FormField>, formError: HTMLElement, form: HTMLElement }} o
 */
export function showFieldErrors(err, { fields, formError, form }) {
  const issues = err instanceof ApiError && Array.isArray(err.details?.issues) ? err.details.issues : [];
  /** @type {string[]} */
  const other = [];
  for (const issue of issues) {
    const path = Array.isArray(issue?.path) ? issue.path.join('.') : String(issue?.path ?? '');
    const key = path.split('.')[0];
    const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
    const empty = field ? (field.empty ? field.empty() : !field.inputs[0]?.value.trim()) : false;
    const message = empty ? (field?.emptyMessage ?? 'This field is required.') : String(issue?.message ?? 'Invalid value');
    if (field) showFieldError(field, message);
    else other.push(path ? `${path}: ${message}` : message);
  }
  if (issues.length === 0 || other.length > 0) setMessage(formError, other.length ? other.join(' ') : messageOf(err));
  const firstInvalid = form.querySelector('[aria-invalid="true"]');
  if (firstInvalid instanceof HTMLElement) firstInvalid.focus();
}

/**
 * The API's field issues (400) of an error, each path written "steps.0.url"; none for
 * another error.
 * @param {unknown} err
 * @returns {{ path: string, message: string }[]}
 */
export function issuesOf(err) {
  if (!(err instanceof ApiError) || !Array.isArray(err.details?.issues)) return [];
  return err.details.issues.map((/** @type {any} */ issue) => ({
    path: Array.isArray(issue?.path) ? issue.path.join('.') : String(issue?.path ?? ''),
    message: String(issue?.message ?? 'Invalid value'),
  }));
}

/**
 * The error with these issues instead of its own (issuesOf's, said another way or moved to
 * the form field they are about), for showFieldErrors; another error unchanged.
 * @param {unknown} err
 * @param {{ path: string, message: string }[]} issues
 */
export function withIssues(err, issues) {
  return err instanceof ApiError ? new ApiError(err.status, err.code, err.message, { ...err.details, issues }) : err;
}

/**
 * One message under a field, its inputs marked invalid. Two issues for one field (rare) are
 * both shown; the same one twice is not.
 * @param {FormField} field
 * @param {string} message
 */
export function showFieldError(field, message) {
  const shown = field.error.hidden ? '' : field.error.textContent ?? '';
  if (!shown.includes(message)) setMessage(field.error, shown ? `${shown} ${message}` : message);
  for (const input of field.inputs) input.setAttribute('aria-invalid', 'true');
}
