import { api, ApiError } from './api.js';
import { $, clearFieldErrors, element, issuesOf, jsonOf, listOf, messageOf, setMessage, showFieldError, showFieldErrors, submitting, withIssues } from './dom.js';

/**
 * Creates or edits one of the organization's test templates (templates.js): its name,
 * description, type, priority and tags, its parameters (a row each) and its steps and
 * assertions as JSON, as the test editor (test-editor.js) edits a test's steps. The API
 * checks the whole template and names what is wrong: each issue is shown under its field,
 * with the place inside a list it names ("steps.0.url: {{template.path}} is not a declared
 * parameter"); a name taken (409) is said under the name.
 *
 * @typedef {import('./templates.js').Template} Template
 * @typedef {import('./templates.js').TemplateParameter} TemplateParameter
 * @typedef {import('./dom.js').FormField} FormField
 * @typedef {{ id: string | null, onSaved: (saved: Template) => void }} Editing id null: a new template
 */

const el = {
  form: /** @type {HTMLFormElement} */ ($('template-editor')),
  heading: $('template-editor-heading'),
  name: /** @type {HTMLInputElement} */ ($('template-name')),
  description: /** @type {HTMLTextAreaElement} */ ($('template-description')),
  type: /** @type {HTMLSelectElement} */ ($('template-type')),
  priority: /** @type {HTMLSelectElement} */ ($('template-priority')),
  tags: /** @type {HTMLInputElement} */ ($('template-tags')),
  parameters: $('template-parameter-list'),
  addParameter: /** @type {HTMLButtonElement} */ ($('template-parameter-add')),
  steps: /** @type {HTMLTextAreaElement} */ ($('template-steps')),
  assertions: /** @type {HTMLTextAreaElement} */ ($('template-assertions')),
  error: $('template-editor-error'),
  status: $('template-editor-status'),
  close: /** @type {HTMLButtonElement} */ ($('template-editor-close')),
};

/** A select or text area where a FormField takes inputs (they are marked and focused alike). @param {HTMLElement} node */
const asInput = (node) => /** @type {HTMLInputElement} */ (/** @type {unknown} */ (node));
/** A field that is never "empty" in the required sense: the API's own message is shown. @param {HTMLElement} input @param {string} error */
const field = (input, error) => ({ inputs: [asInput(input)], error: $(error), empty: () => false });

/** The form's fields by the name the API's issues use; the parameters' inputs are those an error names. */
const FIELDS = /** @type {Record<string, FormField>} */ ({
  name: { inputs: [el.name], error: $('template-name-error'), emptyMessage: 'Name the template.' },
  description: field(el.description, 'template-description-error'),
  type: field(el.type, 'template-type-error'),
  priority: field(el.priority, 'template-priority-error'),
  tags: field(el.tags, 'template-tags-error'),
  parameters: { inputs: [], error: $('template-parameters-error'), empty: () => false },
  steps: field(el.steps, 'template-steps-error'),
  assertions: field(el.assertions, 'template-assertions-error'),
});

/** Fields holding a list: an issue inside one says where ("steps.0.url: …"). */
const LISTS = new Set(['tags', 'parameters', 'steps', 'assertions']);

/** @type {Template} what a new template starts from */
const BLANK = { id: '', name: '', description: null, type: 'ui', parameters: [], steps: [], assertions: [], priority: 'medium', tags: [], created_by: null, created_at: '', updated_at: '' };

/** @type {Editing | undefined} */
let editing;
/** Bumped on every open and close: a late answer for an editor since closed changes nothing. */
let opening = 0;
/** Gives each parameter row's inputs ids of their own. */
let rowIds = 0;

/**
 * One parameter's row: name, description and default, and Remove.
 * @param {Partial<TemplateParameter>} [p]
 */
function parameterRow(p = {}) {
  const li = element('li', { className: 'template-parameter-row', testid: 'template-parameter-row' });
  const n = ++rowIds;
  /** @param {'name' | 'description' | 'default'} key @param {string} label @param {string} placeholder */
  const input = (key, label, placeholder) => {
    const wrap = element('div', { className: 'field' });
    const box = /** @type {HTMLInputElement} */ (element('input', { testid: `template-parameter-${key}` }));
    box.type = 'text';
    box.id = `template-parameter-${n}-${key}`;
    box.autocomplete = 'off';
    box.spellcheck = false;
    box.placeholder = placeholder;
    box.dataset.key = key;
    box.value = p[key] ?? '';
    const text = /** @type {HTMLLabelElement} */ (element('label', { text: label }));
    text.htmlFor = box.id;
    wrap.append(text, box);
    return wrap;
  };
  const remove = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: 'template-parameter-remove', text: 'Remove' }));
  remove.type = 'button';
  remove.setAttribute('aria-label', p.name ? `Remove the parameter ${p.name}` : 'Remove this parameter');
  remove.addEventListener('click', () => li.remove());
  li.append(input('name', 'Name', 'path'), input('description', 'Description', 'optional'), input('default', 'Default', 'none: required'), remove);
  return li;
}

/** @param {HTMLElement} row @param {string} key */
const inputOf = (row, key) => /** @type {HTMLInputElement | null} */ (row.querySelector(`input[data-key="${key}"]`));

/**
 * The parameters the rows say, and the row of each (the API's "parameters.1.name" is the
 * second one sent); a row left blank is not sent. An empty default is no default.
 */
function parametersOf() {
  /** @type {TemplateParameter[]} */
  const parameters = [];
  /** @type {HTMLElement[]} */
  const rows = [];
  for (const row of /** @type {HTMLElement[]} */ ([...el.parameters.children])) {
    const name = inputOf(row, 'name')?.value.trim() ?? '';
    const description = inputOf(row, 'description')?.value.trim() ?? '';
    const fallback = inputOf(row, 'default')?.value ?? '';
    if (!name && !description && !fallback) continue;
    /** @type {TemplateParameter} */
    const parameter = { name };
    if (description) parameter.description = description;
    if (fallback !== '') parameter.default = fallback;
    parameters.push(parameter);
    rows.push(row);
  }
  return { parameters, rows };
}

/** @param {Template} t */
function fill(t) {
  el.name.value = t.name;
  el.description.value = t.description ?? '';
  el.type.value = t.type;
  el.priority.value = t.priority;
  el.tags.value = t.tags.join(', ');
  el.parameters.replaceChildren(...t.parameters.map((p) => parameterRow(p)));
  el.steps.value = JSON.stringify(t.steps, null, 2);
  el.assertions.value = JSON.stringify(t.assertions, null, 2);
}

function clearErrors() {
  FIELDS.parameters.inputs = [];
  clearFieldErrors(FIELDS, el.error);
  for (const input of el.parameters.querySelectorAll('input')) input.removeAttribute('aria-invalid');
}

/**
 * The API's answer under the fields it names; the parameters' issues mark the inputs they
 * are about.
 * @param {unknown} err
 * @param {HTMLElement[]} rows the row of each parameter sent
 */
function showErrors(err, rows) {
  if (err instanceof ApiError && err.status === 409) {
    showFieldError(FIELDS.name, err.message);
    el.name.focus();
    return;
  }
  const issues = issuesOf(err);
  FIELDS.parameters.inputs = issues.flatMap(({ path }) => {
    const [top, index, key] = path.split('.');
    const input = top === 'parameters' && rows[Number(index)] ? inputOf(rows[Number(index)], key ?? 'name') : null;
    return input ? [input] : [];
  });
  const said = issues.map(({ path, message }) => ({ path, message: LISTS.has(path.split('.')[0]) && path.includes('.') ? `${path}: ${message}` : message }));
  showFieldErrors(issues.length ? withIssues(err, said) : err, { fields: FIELDS, formError: el.error, form: el.form });
}

/**
 * Opens the editor on a template, read afresh, or on a new one (id null).
 * @param {string | null} id
 * @param {{ onSaved: (saved: Template) => void }} options onSaved: the list shows the change
 */
export async function openTemplateEditor(id, { onSaved }) {
  const mine = ++opening;
  editing = { id, onSaved };
  clearErrors();
  setMessage(el.status);
  fill(BLANK);
  el.heading.textContent = id ? 'Edit template' : 'New template';
  el.form.hidden = false;
  el.form.scrollIntoView({ block: 'nearest' });
  if (!id) {
    el.name.focus();
    return;
  }
  setMessage(el.status, 'Loading…');
  try {
    /** @type {Template} */
    const template = await api(`/api/test-templates/${encodeURIComponent(id)}`);
    if (mine !== opening) return;
    fill(template);
    el.heading.textContent = `Edit template · ${template.name}`;
    setMessage(el.status);
  } catch (err) {
    if (mine !== opening) return;
    setMessage(el.status);
    setMessage(el.error, `Could not open the template: ${messageOf(err)}`);
  }
}

/**
 * Closes the editor; with `onlyId`, only when it shows that template (it was deleted).
 * @param {string} [onlyId]
 */
export function closeTemplateEditor(onlyId) {
  if (onlyId !== undefined && editing?.id !== onlyId) return;
  opening++;
  editing = undefined;
  el.form.hidden = true;
}

el.addParameter.addEventListener('click', () => {
  const row = parameterRow();
  el.parameters.append(row);
  inputOf(row, 'name')?.focus();
});

el.form.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!editing) return;
  const target = editing;
  clearErrors();
  // Broken JSON is said under its field and nothing is sent.
  const steps = jsonOf(el.steps);
  const assertions = jsonOf(el.assertions);
  if (steps === undefined) showFieldError(FIELDS.steps, 'Not valid JSON: a list of steps, e.g. [{ "type": "request", "method": "GET", "url": "/health" }].');
  if (assertions === undefined) showFieldError(FIELDS.assertions, 'Not valid JSON: a list of assertions, e.g. [{ "type": "status", "equals": 200 }].');
  if (steps === undefined || assertions === undefined) {
    (steps === undefined ? el.steps : el.assertions).focus();
    return;
  }
  const { parameters, rows } = parametersOf();
  const description = el.description.value.trim() ? el.description.value : undefined;
  // Everything goes to the API, which names every field that is wrong at once; an edit replaces the lists whole.
  /** @type {Record<string, unknown>} */
  const body = { name: el.name.value.trim(), type: el.type.value, priority: el.priority.value, tags: listOf(el.tags), parameters, steps, assertions };
  if (target.id) body.description = description ?? null;
  else if (description) body.description = description;
  await submitting(el.form, async () => {
    setMessage(el.status, 'Saving…');
    try {
      /** @type {Template} */
      const saved = await api(target.id ? `/api/test-templates/${encodeURIComponent(target.id)}` : '/api/test-templates', { method: target.id ? 'PATCH' : 'POST', body });
      if (target !== editing) return;
      closeTemplateEditor();
      target.onSaved(saved);
    } catch (err) {
      if (target !== editing) return;
      setMessage(el.status);
      showErrors(err, rows);
    }
  });
});

el.close.addEventListener('click', () => closeTemplateEditor());
