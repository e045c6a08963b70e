import { api } from './api.js';
import { $, clearFieldErrors, listOf, showFieldErrors, submitting } from './dom.js';
import { hideSetup, showSetup } from './vcs-setup.js';

/**
 * The form that adds a source-control integration (POST /api/integrations/vcs). Every
 * field is one entry of FIELDS: its inputs, the line under them for the API's error, and
 * what it puts in the request body under the name the API uses (and names in its issues).
 * A new field is an input in index.html and one entry here.
 *
 * @typedef {import('./vcs.js').Integration} Integration
 * @typedef {import('./dom.js').FormField & { value: () => unknown }} BodyField
 */

const form = /** @type {HTMLFormElement} */ ($('vcs-form'));
const formError = $('vcs-error');
const project = /** @type {HTMLSelectElement} */ ($('vcs-project'));

/** @param {string} inputId */
const input = (inputId) => /** @type {HTMLInputElement} */ ($(inputId));

/** The event check boxes, in the order the API lists events. */
const EVENT_INPUTS = /** @type {HTMLInputElement[]} */ ([...form.querySelectorAll('input[name="events"]')]);
const checkedEvents = () => EVENT_INPUTS.filter((box) => box.checked).map((box) => box.value);

/** The form's fields by the name the API's body and issues use. */
const FIELDS = /** @type {Record<string, BodyField>} */ ({
  project_id: { inputs: [input('vcs-project')], error: $('vcs-project-error'), emptyMessage: 'Choose a project.', value: () => project.value },
  provider: { inputs: [input('vcs-provider')], error: $('vcs-provider-error'), value: () => input('vcs-provider').value },
  repository: { inputs: [input('vcs-repository')], error: $('vcs-repository-error'), value: () => input('vcs-repository').value.trim() },
  events: { inputs: EVENT_INPUTS, error: $('vcs-events-error'), empty: () => checkedEvents().length === 0, emptyMessage: 'Choose pushes, pull requests or both.', value: checkedEvents },
  branches: { inputs: [input('vcs-branches')], error: $('vcs-branches-error'), value: () => listOf(input('vcs-branches')) },
  tags: { inputs: [input('vcs-tags')], error: $('vcs-tags-error'), value: () => listOf(input('vcs-tags')) },
  healing_enabled: { inputs: [input('vcs-healing')], error: $('vcs-healing-error'), value: () => (input('vcs-healing').value === '' ? null : input('vcs-healing').value === 'true') },
});

/**
 * Which showing of the section this is: bumped by resetVcsForm, so an answer that arrives
 * for the organization shown before shows nothing.
 */
let shown = 0;
/** What to do once an integration was added (reload the list). @type {() => Promise<void>} */
let afterCreate = async () => {};

/** @param {() => Promise<void>} reload */
export function onVcsCreated(reload) {
  afterCreate = reload;
}

/**
 * The projects the form offers (an integration belongs to one); the one chosen stays
 * chosen if it is still there.
 * @param {import('./projects.js').ProjectRef[]} projects
 */
export function setVcsProjects(projects) {
  const chosen = project.value;
  project.replaceChildren(new Option('Choose a project', ''), ...projects.map((p) => new Option(p.name, p.id)));
  if (projects.some((p) => p.id === chosen)) project.value = chosen;
}

/** Back to the defaults, without errors, projects or a secret: the section was shown again or hidden. */
export function resetVcsForm() {
  shown++;
  form.reset();
  clearFieldErrors(FIELDS, formError);
  setVcsProjects([]);
  hideSetup();
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearFieldErrors(FIELDS, formError);
  hideSetup();
  const mine = shown;
  // Everything goes to the API, which names every field that is wrong at once.
  const body = Object.fromEntries(Object.entries(FIELDS).map(([name, field]) => [name, field.value()]));
  await submitting(form, async () => {
    try {
      /** @type {Integration & { secret: string, webhook_path: string }} */
      const created = await api('/api/integrations/vcs', { method: 'POST', body });
      if (mine !== shown) return;
      // The secret is in this answer only: shown now, with what to paste where.
      showSetup(created);
      const chosen = project.value;
      form.reset();
      project.value = chosen;
      await afterCreate();
    } catch (err) {
      if (mine !== shown) return;
      showFieldErrors(err, { fields: FIELDS, formError, form });
    }
  });
});
