import { api } from './api.js';
import { $, clearFieldErrors, element, issuesOf, setMessage, showFieldErrors, submitting, withIssues } from './dom.js';
import { allProjects } from './projects.js';
import { openTests, refreshTestsOf } from './tests.js';

/**
 * "New test from template" (templates.js): the project the test goes in, its name (the
 * template's by default) and a value per parameter, each shown with its description and
 * default (a value left empty takes the default). The API names what is wrong: a value a
 * parameter needs (values.<name>) under that value, and a test field a value broke
 * ("steps.0.url") under the value whose placeholder stands there. The new test is then
 * named with its project, and Show in Tests opens it in the project's Tests panel.
 *
 * @typedef {import('./templates.js').Template} Template
 * @typedef {import('./templates.js').TemplateParameter} TemplateParameter
 * @typedef {import('./dom.js').FormField} FormField
 * @typedef {import('./projects.js').ProjectRef} ProjectRef
 */

const el = {
  form: /** @type {HTMLFormElement} */ ($('template-use')),
  heading: $('template-use-heading'),
  project: /** @type {HTMLSelectElement} */ ($('template-use-project')),
  name: /** @type {HTMLInputElement} */ ($('template-use-name')),
  values: $('template-use-values'),
  error: $('template-use-error'),
  close: /** @type {HTMLButtonElement} */ ($('template-use-close')),
  created: $('template-use-created'),
};

/** A template's placeholder, as the API finds them (contracts/test-templates.ts). */
const PLACEHOLDER = /\{\{\s*template\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** @type {{ template: Template, canRun: boolean } | undefined} */
let using;
/** Bumped on every open and close: a late answer for a form since closed changes nothing. */
let opening = 0;
/** @type {Record<string, FormField>} the form's fields by issue path; a value's is "value:<name>" */
let fields = {};
/** @type {Map<string, string>} project names by id */
let projectNames = new Map();

/** A parameter's description and default, in words. @param {TemplateParameter} p */
function hintOf(p) {
  const fallback = p.default === undefined ? 'Required: no default' : `Default: ${p.default === '' ? '(empty)' : p.default} (used when left empty)`;
  return p.description ? `${p.description} · ${fallback}` : fallback;
}

/**
 * One parameter's value: its label, input, description and default, and the line its errors go on.
 * @param {TemplateParameter} p
 */
function valueField(p) {
  const base = `template-value-${p.name}`;
  const wrap = element('div', { className: 'field' });
  const input = /** @type {HTMLInputElement} */ (element('input', { testid: base }));
  input.type = 'text';
  input.id = base;
  input.autocomplete = 'off';
  input.spellcheck = false;
  input.dataset.name = p.name;
  if (p.default) input.placeholder = p.default;
  const label = /** @type {HTMLLabelElement} */ (element('label'));
  label.htmlFor = base;
  label.append(element('code', { text: p.name }));
  if (p.default !== undefined) label.append(' ', element('span', { className: 'muted', text: '(optional)' }));
  const hint = element('p', { className: 'muted vcs-hint', testid: `${base}-hint`, text: hintOf(p) });
  hint.id = `${base}-hint`;
  const error = element('p', { className: 'field-error', testid: `${base}-error` });
  error.id = `${base}-error`;
  error.hidden = true;
  input.setAttribute('aria-describedby', `${hint.id} ${error.id}`);
  wrap.append(label, input, hint, error);
  return { wrap, field: /** @type {FormField} */ ({ inputs: [input], error, emptyMessage: `Give ${p.name} a value: it has no default.` }) };
}

/**
 * The parameters whose placeholders stand at a place of the template ("steps.0.url").
 * @param {Template} template
 * @param {string} path
 */
function parametersAt(template, path) {
  /** @type {any} */
  let value = template;
  for (const key of path.split('.')) {
    if (!value || typeof value !== 'object') return [];
    value = value[key];
  }
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? '');
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]))];
}

/**
 * The API's answer under the fields it names: values.<name> under that value, a test field
 * a single value made wrong under that value (with the field's place), the rest above the buttons.
 * @param {unknown} err
 * @param {Template} template
 */
function showErrors(err, template) {
  const issues = issuesOf(err).map(({ path, message }) => {
    const [top, name] = path.split('.');
    if (top === 'values' && Object.hasOwn(fields, `value:${name}`)) return { path: `value:${name}`, message };
    const names = top === 'steps' || top === 'assertions' ? parametersAt(template, path) : [];
    if (names.length === 1 && Object.hasOwn(fields, `value:${names[0]}`)) return { path: `value:${names[0]}`, message: `${path}: ${message}` };
    return { path, message };
  });
  showFieldErrors(issues.length ? withIssues(err, issues) : err, { fields, formError: el.error, form: el.form });
}

/** @param {{ id: string, name: string, project_id: string }} test @param {boolean} canRun */
function showCreated(test, canRun) {
  const project = { id: test.project_id, name: projectNames.get(test.project_id) ?? test.project_id };
  const text = element('p', { testid: 'template-use-created-text' });
  text.append('Created the test ', element('strong', { testid: 'template-use-created-name', text: test.name }), ` in ${project.name}.`);
  const show = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: 'template-use-open-tests', text: 'Show in Tests' }));
  show.type = 'button';
  show.setAttribute('aria-label', `Show in Tests: the tests of ${project.name}`);
  show.addEventListener('click', () => openTests(project, { canRun }));
  el.created.replaceChildren(text, show);
  el.created.hidden = false;
  // The project's Tests panel, if open, lists the new test now (not on the next reload).
  refreshTestsOf(test.project_id);
}

function hideCreated() {
  el.created.hidden = true;
  el.created.replaceChildren();
}

/**
 * Opens the form for a template, with the organization's projects to choose from.
 * @param {Template} template
 * @param {{ canRun: boolean }} options canRun: for the Tests panel the new test is shown in
 */
export async function openTemplateUse(template, { canRun }) {
  const mine = ++opening;
  using = { template, canRun };
  hideCreated();
  el.heading.textContent = `New test from ${template.name}`;
  el.name.value = '';
  el.name.placeholder = template.name;
  const values = template.parameters.map(valueField);
  el.values.replaceChildren(...values.map((v) => v.wrap));
  fields = {
    project_id: { inputs: [/** @type {HTMLInputElement} */ (/** @type {unknown} */ (el.project))], error: $('template-use-project-error'), emptyMessage: 'Choose the project the test goes in.' },
    name: { inputs: [el.name], error: $('template-use-name-error') },
    ...Object.fromEntries(template.parameters.map((p, i) => [`value:${p.name}`, values[i].field])),
  };
  clearFieldErrors(fields, el.error);
  el.project.replaceChildren(new Option('Loading projects…', ''));
  el.project.disabled = true;
  el.form.hidden = false;
  el.form.scrollIntoView({ block: 'nearest' });
  const projects = await allProjects(() => mine === opening);
  if (mine !== opening) return;
  projectNames = new Map(projects.map((p) => [p.id, p.name]));
  el.project.replaceChildren(new Option(projects.length ? 'Choose a project' : 'No projects yet', ''), ...projects.map((p) => new Option(p.name, p.id)));
  if (projects.length === 1) el.project.value = projects[0].id;
  el.project.disabled = false;
  el.project.focus();
}

/**
 * Closes the form and what it created; with `onlyId`, only when it is for that template (it was deleted).
 * @param {string} [onlyId]
 */
export function closeTemplateUse(onlyId) {
  if (onlyId !== undefined && using?.template.id !== onlyId) return;
  opening++;
  using = undefined;
  el.form.hidden = true;
  el.values.replaceChildren();
  fields = {};
  hideCreated();
}

el.form.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!using) return;
  const target = using;
  const mine = opening;
  clearFieldErrors(fields, el.error);
  hideCreated();
  // A value left empty is not sent: the parameter's default is used, or the API says it needs one.
  /** @type {Record<string, string>} */
  const values = {};
  for (const input of el.values.querySelectorAll('input')) if (input.value !== '') values[input.dataset.name ?? ''] = input.value;
  /** @type {{ project_id: string, values: Record<string, string>, name?: string }} */
  const body = { project_id: el.project.value, values };
  if (el.name.value.trim()) body.name = el.name.value.trim();
  await submitting(el.form, async () => {
    try {
      const test = await api(`/api/test-templates/${encodeURIComponent(target.template.id)}/tests`, { method: 'POST', body });
      if (mine !== opening) return;
      el.form.hidden = true;
      showCreated(test, target.canRun);
    } catch (err) {
      if (mine !== opening) return;
      showErrors(err, target.template);
    }
  });
});

el.close.addEventListener('click', () => closeTemplateUse());
