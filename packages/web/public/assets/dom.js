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
     */
    async load(fetchPage, row) {
      const mine = ++seq;
      setMessage(status, 'Loading…');
      try {
        const page = await fetchPage();
        if (mine !== seq) return;
        list.replaceChildren(...page.items.map(row));
        setMessage(status, page.items.length ? '' : empty);
      } catch (err) {
        if (mine !== seq) return;
        list.replaceChildren();
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
 * list; it disables itself meanwhile and says in `status` when the request fails.
 *
 * @param {{ verb: string, testid: string, item: string, path: string, status: HTMLElement, reload: () => Promise<void> }} o
 */
export function deleteButton({ verb, testid, item, path, status, reload }) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'button button-small';
  button.dataset.testid = testid;
  button.textContent = verb;
  button.setAttribute('aria-label', `${verb} ${item}`);
  button.addEventListener('click', async () => {
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
