import { api } from './api.js';
import { $, clearFieldErrors, element, listLoader, setMessage, showFieldErrors, submitting } from './dom.js';
import { integrationActions, rowStatus } from './integration-row.js';
import { allProjects } from './projects.js';
import { rotateSecret } from './secret-rotation.js';
import { copyButton } from './vcs-setup.js';

/**
 * The organization's automation integrations, for admins (the API refuses others): the
 * n8n, Zapier, Make or cron jobs whose signed events run tests and turn failures into tests
 * (docs/automation.md). Each row shows its name, projects and secret hint, pause or resume,
 * rotate secret (the new one shown once under the row) and delete; the form adds one, and the new integration's id and secret are shown once
 * below it (the API never returns the secret again: nothing here keeps it).
 *
 * @typedef {{ id: string, name: string, project_ids: string[], enabled: boolean, secret_hint: string, created_at: string, updated_at: string }} AutomationIntegration
 */

const el = {
  panel: $('automation'),
  url: $('automation-url'),
  status: $('automation-status'),
  list: $('automation-list'),
  form: /** @type {HTMLFormElement} */ ($('automation-form')),
  name: /** @type {HTMLInputElement} */ ($('automation-name')),
  projects: /** @type {HTMLSelectElement} */ ($('automation-projects')),
  formError: $('automation-error'),
  created: $('automation-created'),
};

const WEBHOOK_PATH = '/webhooks/automation';

/** The form's fields by the name the API's body and issues use. */
const FIELDS = /** @type {Record<string, import('./dom.js').FormField & { value: () => unknown }>} */ ({
  name: { inputs: [el.name], error: $('automation-name-error'), emptyMessage: 'Name the integration (the tool or workflow it is for).', value: () => el.name.value.trim() },
  project_ids: { inputs: [/** @type {HTMLInputElement} */ (/** @type {unknown} */ (el.projects))], error: $('automation-projects-error'), empty: () => false, value: () => [...el.projects.selectedOptions].map((o) => o.value) },
});

/** Projects by id, for the rows' project names. @type {Map<string, string>} */
let projectNames = new Map();
/** Which showing of the section this is: bumped on every show and hide, so a late answer for another organization changes nothing. */
let opened = 0;
const integrations = listLoader({ status: el.status, list: el.list, empty: 'No automation integrations yet.', what: 'the automation integrations' });

/** Drops a shown secret from the page. */
function hideCreated() {
  el.created.hidden = true;
  el.created.replaceChildren();
}

/**
 * The new integration's id and secret, shown this once, with the URL its events go to.
 * @param {AutomationIntegration & { secret: string, webhook_path: string }} created
 */
function showCreated(created) {
  const url = `${location.origin}${created.webhook_path}`;
  const intro = element('p');
  intro.append(element('strong', { text: 'Copy the secret now:' }), ' it is not shown again. To change it later, rotate it from the integration\'s row.');
  const list = element('dl', { className: 'vcs-setup', testid: 'automation-created-values' });
  for (const [label, value, testid] of [['URL', url, 'automation-created-url'], ['X-Svc-Integration', created.id, 'automation-created-id'], ['Secret', created.secret, 'automation-created-secret']]) {
    const dd = element('dd');
    dd.append(element('code', { testid, text: value }), copyButton(value, label.toLowerCase(), `${testid}-copy`));
    list.append(element('dt', { text: label }), dd);
  }
  const done = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: 'automation-created-done', text: 'Done' }));
  done.type = 'button';
  done.addEventListener('click', hideCreated);
  el.created.replaceChildren(element('h3', { text: `Sign ${created.name}'s events with this secret` }), intro, list, done);
  el.created.hidden = false;
}

/** @param {AutomationIntegration} integration */
function scopeOf(integration) {
  if (!integration.project_ids.length) return 'All projects';
  return integration.project_ids.map((id) => projectNames.get(id) ?? `Project ${id} (not found)`).join(', ');
}

/** @param {AutomationIntegration} integration */
function integrationRow(integration) {
  const li = element('li', { className: 'vcs-row automation-row', testid: 'automation-row' });
  li.dataset.id = integration.id;
  li.dataset.enabled = String(integration.enabled);
  const name = `the automation integration ${integration.name}`;
  const mine = opened;
  const current = () => mine === opened;

  const head = element('div', { className: 'vcs-head' });
  head.append(
    element('strong', { testid: 'automation-row-name', text: integration.name }),
    element('span', { className: integration.enabled ? 'badge badge-enabled' : 'badge badge-paused', testid: 'automation-row-state', text: integration.enabled ? 'enabled' : 'paused' }),
  );
  const scope = element('span', { className: 'vcs-scope muted' });
  const hint = element('span', { testid: 'automation-row-secret', text: `Secret ${integration.secret_hint}` });
  scope.append(element('span', { testid: 'automation-row-projects', text: scopeOf(integration) }), ' · ', element('span', { testid: 'automation-row-id', text: `Id ${integration.id}` }), ' · ', hint);
  const status = rowStatus('automation-row-status');
  const about = element('div', { className: 'vcs-about' });
  about.append(head, scope, status);
  const path = `/api/integrations/automation/${encodeURIComponent(integration.id)}`;
  const rotation = rotateSecret({
    path, name, prefix: 'automation', status, current, where: "the tool's credentials (it signs events and checks callbacks with it)",
    rotated: (answer) => (hint.textContent = `Secret …${answer.secret.slice(-4)}`),
  });
  const actions = integrationActions({
    enabled: integration.enabled, name, item: name, prefix: 'automation', status, current, reload: load, middle: [rotation.button], path,
    confirm: `Delete ${name}? Its events are refused from then on; its runs stay.`,
  });
  li.append(about, actions, rotation.panel);
  return li;
}

/** @returns {Promise<void>} */
const load = () => integrations.load(() => api('/api/integrations/automation?limit=200'), integrationRow);

/** Reads the projects (for the form and the rows' scopes), then the integrations. */
async function loadAll() {
  const mine = opened;
  const projects = await allProjects(() => mine === opened);
  if (mine !== opened) return;
  projectNames = new Map(projects.map((p) => [p.id, p.name]));
  const chosen = new Set([...el.projects.selectedOptions].map((o) => o.value));
  el.projects.replaceChildren(...projects.map((p) => new Option(p.name, p.id, false, chosen.has(p.id))));
  await load();
}

el.form.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearFieldErrors(FIELDS, el.formError);
  hideCreated();
  const mine = opened;
  // Everything goes to the API, which names every field that is wrong at once.
  const body = Object.fromEntries(Object.entries(FIELDS).map(([name, field]) => [name, field.value()]));
  await submitting(el.form, async () => {
    try {
      const created = await api('/api/integrations/automation', { method: 'POST', body });
      if (mine !== opened) return;
      el.form.reset();
      showCreated(created);
      await load();
    } catch (err) {
      if (mine !== opened) return;
      showFieldErrors(err, { fields: FIELDS, formError: el.formError, form: el.form });
    }
  });
});

/**
 * Shows or hides the section; shown, it (re)loads the selected organization's integrations
 * and projects. Either way a shown secret and a half-filled form are dropped.
 * @param {boolean} visible
 */
export function showAutomation(visible) {
  opened++;
  el.panel.hidden = !visible;
  el.form.reset();
  clearFieldErrors(FIELDS, el.formError);
  hideCreated();
  el.projects.replaceChildren();
  el.list.replaceChildren();
  projectNames = new Map();
  if (!visible) {
    integrations.cancel();
    setMessage(el.status);
    return;
  }
  el.url.textContent = `${location.origin}${WEBHOOK_PATH}`;
  setMessage(el.status, 'Loading…');
  void loadAll();
}

/** A project was added: offer it in the form while the section is shown. */
export function automationProjectsChanged() {
  if (!el.panel.hidden) void loadAll();
}
