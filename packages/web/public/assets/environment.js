import { api, ApiError } from './api.js';
import { $, messageOf, setMessage } from './dom.js';

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
/** Bumped on every load so that a slow answer for a project no longer shown is ignored. */
let loadSeq = 0;


const variablesPath = () => `/api/v1/projects/${encodeURIComponent(current?.project.id ?? '')}/environment`;

/** @param {Variable} variable */
function variableRow(variable) {
  const li = document.createElement('li');
  li.className = 'environment-row';
  li.dataset.testid = 'environment-row';
  li.dataset.name = variable.name;

  const name = document.createElement('span');
  name.className = 'environment-name';
  name.dataset.testid = 'environment-row-name';
  name.textContent = variable.name;

  const value = document.createElement('span');
  value.className = 'environment-value';
  value.dataset.testid = 'environment-row-value';
  if (variable.secret) {
    const badge = document.createElement('span');
    badge.className = 'badge';
    badge.textContent = 'secret';
    value.append(badge);
  } else {
    value.textContent = variable.value ?? '';
  }

  const actions = document.createElement('span');
  if (current?.canEdit) {
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'button button-small';
    remove.dataset.testid = 'environment-delete';
    remove.textContent = 'Delete';
    remove.setAttribute('aria-label', `Delete ${variable.name}`);
    remove.addEventListener('click', () => void deleteVariable(variable.name, remove));
    actions.append(remove);
  }
  li.append(name, value, actions);
  return li;
}

async function load() {
  const seq = ++loadSeq;
  setMessage(el.status, 'Loading…');
  try {
    /** @type {{ items: Variable[] }} */
    const page = await api(variablesPath());
    if (seq !== loadSeq) return;
    el.list.replaceChildren(...page.items.map(variableRow));
    setMessage(el.status, page.items.length ? '' : 'No variables yet.');
  } catch (err) {
    if (seq !== loadSeq) return;
    el.list.replaceChildren();
    setMessage(el.status, `Could not load the environment: ${messageOf(err)}`);
  }
}

/**
 * @param {string} name
 * @param {HTMLButtonElement} button
 */
async function deleteVariable(name, button) {
  button.disabled = true;
  try {
    await api(`${variablesPath()}/${encodeURIComponent(name)}`, { method: 'DELETE' });
    await load();
  } catch (err) {
    button.disabled = false;
    setMessage(el.status, `Could not delete ${name}: ${messageOf(err)}`);
  }
}

function clearFormErrors() {
  for (const node of [el.nameError, el.valueError, el.formError]) setMessage(node);
  el.name.removeAttribute('aria-invalid');
  el.value.removeAttribute('aria-invalid');
}

/** @param {unknown} err */
function showFormErrors(err) {
  const issues = err instanceof ApiError && Array.isArray(err.details?.issues) ? err.details.issues : [];
  /** @type {string[]} */
  const other = [];
  for (const issue of issues) {
    const path = String(issue?.path ?? '');
    const [field, target] = path === 'name' ? [el.name, el.nameError] : path === 'value' ? [el.value, el.valueError] : [undefined, undefined];
    if (field && target) {
      setMessage(target, String(issue?.message ?? 'Invalid value'));
      field.setAttribute('aria-invalid', 'true');
    } else {
      other.push(path ? `${path}: ${issue?.message}` : String(issue?.message));
    }
  }
  if (issues.length === 0 || other.length > 0) setMessage(el.formError, other.length ? other.join(' ') : messageOf(err));
}

el.form.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearFormErrors();
  const name = el.name.value.trim();
  if (!name) {
    setMessage(el.nameError, 'This field is required.');
    el.name.setAttribute('aria-invalid', 'true');
    el.name.focus();
    return;
  }
  const submit = /** @type {HTMLButtonElement} */ (el.form.querySelector('button[type="submit"]'));
  submit.disabled = true;
  try {
    await api(`${variablesPath()}/${encodeURIComponent(name)}`, { method: 'PUT', body: { value: el.value.value, secret: el.secret.checked } });
    el.form.reset();
    el.name.focus();
    await load();
  } catch (err) {
    showFormErrors(err);
  } finally {
    submit.disabled = false;
  }
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
  loadSeq++;
  el.panel.hidden = true;
}
