import { api } from './api.js';
import { $, clearFieldErrors, deleteButton, element, listLoader, requiredValue, setMessage, showFieldErrors, submitting } from './dom.js';

/**
 * The environment panel of one project: its variables and secrets. Members see names and
 * plain values; admins also add, replace and delete (the API enforces both). A secret's
 * value is never sent back by the API, so it is never shown.
 *
 * @typedef {{ name: string, secret: boolean, value: string | null, updated_at: string }} Variable
 * @typedef {{ id: string, name: string }} ProjectRef
 */


const el = {
  panel: $('environment'),
  heading: $('environment-heading'),
  close: /** @type {HTMLButtonElement} */ ($('environment-close')),
  status: $('environment-status'),
  list: $('environment-list'),
  form: /** @type {HTMLFormElement} */ ($('environment-form')),
  name: /** @type {HTMLInputElement} */ ($('environment-name')),
  value: /** @type {HTMLInputElement} */ ($('environment-value')),
  secret: /** @type {HTMLInputElement} */ ($('environment-secret')),
  nameError: $('environment-name-error'),
  valueError: $('environment-value-error'),
  formError: $('environment-error'),
};

/** @type {{ project: ProjectRef, canEdit: boolean } | undefined} */
let current;
const variables = listLoader({ status: el.status, list: el.list, empty: 'No variables yet.', what: 'the environment' });


const variablesPath = () => `/api/v1/projects/${encodeURIComponent(current?.project.id ?? '')}/environment`;

/** @param {Variable} variable */
function variableRow(variable) {
  const li = element('li', { className: 'environment-row', testid: 'environment-row' });
  li.dataset.name = variable.name;
  const name = element('span', { className: 'environment-name', testid: 'environment-row-name', text: variable.name });
  const value = element('span', { className: 'environment-value', testid: 'environment-row-value' });
  if (variable.secret) value.append(element('span', { className: 'badge', text: 'secret' }));
  else value.textContent = variable.value ?? '';
  const actions = element('span');
  if (current?.canEdit) {
    actions.append(deleteButton({ verb: 'Delete', testid: 'environment-delete', item: variable.name, path: `${variablesPath()}/${encodeURIComponent(variable.name)}`, status: el.status, reload: load, confirm: variable.secret ? `Delete the secret ${variable.name}? Its value cannot be read back: to restore it you need the value itself.` : `Delete the variable ${variable.name}? Tests that use it fail until it is set again.` }));
  }
  li.append(name, value, actions);
  return li;
}

/** @returns {Promise<void>} */
const load = () => variables.load(() => api(variablesPath()), variableRow);

/** The form's fields by the name the API's issues use; an empty value is a value. */
const FIELDS = /** @type {Record<string, import('./dom.js').FormField>} */ ({
  name: { inputs: [el.name], error: el.nameError },
  value: { inputs: [el.value], error: el.valueError, empty: () => false },
});

function clearFormErrors() {
  clearFieldErrors(FIELDS, el.formError);
}

/** @param {unknown} err */
function showFormErrors(err) {
  showFieldErrors(err, { fields: FIELDS, formError: el.formError, form: el.form });
}

el.form.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearFormErrors();
  const name = requiredValue(el.name, el.nameError);
  if (!name) return;
  await submitting(el.form, async () => {
    try {
      await api(`${variablesPath()}/${encodeURIComponent(name)}`, { method: 'PUT', body: { value: el.value.value, secret: el.secret.checked } });
      el.form.reset();
      el.name.focus();
      await load();
    } catch (err) {
      showFormErrors(err);
    }
  });
});

// A secret is typed like a password: not shown on screen while it is entered.
el.secret.addEventListener('change', () => {
  el.value.type = el.secret.checked ? 'password' : 'text';
});
el.form.addEventListener('reset', () => {
  el.value.type = 'text';
});

el.close.addEventListener('click', closeEnvironment);

/**
 * Shows the environment of a project.
 * @param {ProjectRef} project
 * @param {{ canEdit: boolean }} options admins edit; members only read
 */
export function openEnvironment(project, { canEdit }) {
  current = { project, canEdit };
  el.heading.textContent = `Environment · ${project.name}`;
  el.form.hidden = !canEdit;
  el.form.reset();
  clearFormErrors();
  el.list.replaceChildren();
  el.panel.hidden = false;
  el.panel.scrollIntoView({ block: 'nearest' });
  void load();
}

export function closeEnvironment() {
  current = undefined;
  variables.cancel();
  el.panel.hidden = true;
}
