import { api } from './api.js';
import { clearFieldErrors, element, messageOf, setMessage, showFieldErrors, submitting, timeOf } from './dom.js';
import { copyButton } from './vcs-setup.js';

/**
 * "Rotate secret" on an integration row (source control, automation): it opens a small form
 * under the row that says what happens and asks how long the current secret keeps working
 * (0–168 hours, 24 by default; 0 stops it at once, for a secret that leaked). Rotating asks
 * the API for a new secret (POST <path>/rotate-secret with grace_hours) and shows it under
 * the row this once, with a Copy button and until when the previous secret still works. The
 * API never returns it again: nothing here keeps it, and Done, a reload or another
 * organization drops it (the row itself is not reloaded meanwhile, which would).
 *
 * @typedef {{ secret: string, previous_secret_expires_at: string | null }} Rotated
 */

const DEFAULT_GRACE_HOURS = '24';
let formCount = 0;

/**
 * @param {{ path: string, name: string, prefix: string, where: string, status: HTMLElement, current: () => boolean, rotated?: (answer: Rotated) => void }} o
 *   `name` labels the button, `prefix` makes the test ids (`<prefix>-rotate`, `<prefix>-rotate-form`, `<prefix>-rotated…`),
 *   `where` says where the new secret goes ("the repository's webhook"), `rotated` updates the row (a new hint)
 * @returns {{ button: HTMLButtonElement, panel: HTMLElement }} the button for the row's actions, the panel to put under the row
 */
export function rotateSecret(o) {
  const shown = element('div', { className: 'vcs-created rotated-secret', testid: `${o.prefix}-rotated` });
  shown.setAttribute('aria-live', 'polite');
  shown.hidden = true;
  const hideSecret = () => {
    shown.hidden = true;
    shown.replaceChildren();
  };

  /** @param {Rotated} answer */
  function showSecret(answer) {
    const intro = element('p');
    intro.append(element('strong', { text: 'Copy the new secret now:' }), ` it is not shown again. Put it into ${o.where}.`);
    const value = element('dd');
    value.append(element('code', { testid: `${o.prefix}-rotated-secret`, text: answer.secret }), copyButton(answer.secret, 'new secret', `${o.prefix}-rotated-copy`));
    const list = element('dl', { className: 'vcs-setup' });
    list.append(element('dt', { text: 'New secret' }), value);
    const grace = element('p', { testid: `${o.prefix}-rotated-grace` });
    if (answer.previous_secret_expires_at) grace.append('The previous secret keeps working until ', timeOf(answer.previous_secret_expires_at, `${o.prefix}-rotated-until`), '.');
    else grace.textContent = 'The previous secret no longer works.';
    const done = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: `${o.prefix}-rotated-done`, text: 'Done' }));
    done.type = 'button';
    done.addEventListener('click', hideSecret);
    shown.replaceChildren(element('h3', { text: `New secret for ${o.name}` }), intro, list, grace, done);
    shown.hidden = false;
  }

  const button = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: `${o.prefix}-rotate`, text: 'Rotate secret' }));
  button.type = 'button';
  button.setAttribute('aria-label', `Rotate the secret of ${o.name}`);

  const form = rotationForm(o);
  button.addEventListener('click', () => {
    setMessage(o.status);
    form.open();
  });
  form.onRotated = (answer) => {
    if (!o.current()) return;
    o.rotated?.(answer);
    showSecret(answer);
  };

  // display: contents: the form and the secret stay items of the row's grid.
  const panel = element('div', { className: 'rotation' });
  panel.append(form.element, shown);
  return { button, panel };
}

/**
 * The form that asks how long the current secret keeps working, and rotates.
 * @param {{ path: string, name: string, prefix: string, where: string, current: () => boolean }} o
 */
function rotationForm(o) {
  const id = `rotate-grace-${++formCount}`;
  const form = /** @type {HTMLFormElement} */ (element('form', { className: 'vcs-created rotated-secret rotate-form', testid: `${o.prefix}-rotate-form` }));
  form.noValidate = true;
  form.hidden = true;
  form.setAttribute('aria-label', `Rotate the secret of ${o.name}`);

  const intro = element('p', { text: `A new secret is made and shown once. The current one keeps working for the hours below, until you have put the new one into ${o.where}; 0 stops it at once (for a secret that leaked).` });
  const label = /** @type {HTMLLabelElement} */ (element('label', { text: 'Hours the current secret keeps working (0–168)' }));
  label.htmlFor = id;
  const input = /** @type {HTMLInputElement} */ (element('input', { testid: `${o.prefix}-rotate-grace` }));
  input.id = id;
  input.type = 'number';
  input.min = '0';
  input.max = '168';
  input.step = '1';
  input.value = DEFAULT_GRACE_HOURS;
  const fieldError = element('p', { className: 'field-error', testid: `${o.prefix}-rotate-grace-error` });
  fieldError.hidden = true;
  const formError = element('p', { className: 'alert', testid: `${o.prefix}-rotate-error` });
  formError.setAttribute('role', 'alert');
  formError.hidden = true;
  const fields = { grace_hours: { inputs: [input], error: fieldError } };

  const submit = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: `${o.prefix}-rotate-confirm`, text: 'Rotate now' }));
  submit.type = 'submit';
  const cancel = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: `${o.prefix}-rotate-cancel`, text: 'Cancel' }));
  cancel.type = 'button';
  const buttons = element('div', { className: 'test-result-actions' });
  buttons.append(submit, cancel);
  form.append(intro, label, input, fieldError, buttons, formError);

  const close = () => {
    form.hidden = true;
    clearFieldErrors(fields, formError);
  };
  cancel.addEventListener('click', close);

  const api_ = {
    element: form,
    /** @type {(answer: Rotated) => void} */
    onRotated: () => {},
    open() {
      clearFieldErrors(fields, formError);
      input.value = DEFAULT_GRACE_HOURS;
      form.hidden = false;
      input.focus();
    },
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearFieldErrors(fields, formError);
    // The API checks the value and names the field when it is wrong (empty, not whole, out of range).
    const text = input.value.trim();
    const graceHours = text === '' ? null : Number(text);
    void submitting(form, async () => {
      try {
        /** @type {Rotated} */
        const answer = await api(`${o.path}/rotate-secret`, { method: 'POST', body: { grace_hours: graceHours } });
        if (!o.current()) return;
        close();
        api_.onRotated(answer);
      } catch (err) {
        if (!o.current()) return;
        showFieldErrors(err, { fields, formError, form });
        // Not a field's fault (the integration is gone, the network): say what failed.
        if (!formError.hidden) setMessage(formError, `Could not rotate the secret of ${o.name}: ${formError.textContent || messageOf(err)}`);
      }
    });
  });
  return api_;
}
