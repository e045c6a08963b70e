import { api } from './api.js';
import { $, element, listLoader, setMessage } from './dom.js';
import { integrationActions, rowStatus } from './integration-row.js';
import { allProjects } from './projects.js';
import { rotateSecret } from './secret-rotation.js';
import { openTests } from './tests.js';
import { showRun } from './test-run.js';
import { deliveriesOf } from './vcs-deliveries.js';
import { onVcsCreated, resetVcsForm, setVcsProjects } from './vcs-form.js';

/**
 * The organization's source-control integrations, for admins (the API refuses others): a
 * GitHub or GitLab repository linked to a project, whose signed push and pull-request
 * webhooks start runs of the project's tests (docs/vcs-webhooks.md). Each row says what
 * runs when and offers pause or resume, the delivery log, rotate secret (the new one shown
 * once under the row) and delete; the form adds one
 * (vcs-form.js) and shows its secret once (vcs-setup.js).
 *
 * @typedef {'github' | 'gitlab'} Provider
 * @typedef {{ id: string, project_id: string, provider: Provider, repository: string, events: string[], branches: string[], tags: string[], healing_enabled: boolean | null, enabled: boolean, created_at: string, updated_at: string }} Integration
 */

const el = {
  panel: $('vcs'),
  status: $('vcs-status'),
  list: $('vcs-list'),
};

const PROVIDERS = /** @type {Record<string, string>} */ ({ github: 'GitHub', gitlab: 'GitLab' });
const EVENT_LABELS = /** @type {Record<string, string>} */ ({ push: 'pushes', pull_request: 'pull requests' });

/** Projects by id, for the rows' project names. @type {Map<string, string>} */
let projectNames = new Map();
/**
 * Which showing of the section this is. Bumped on every show and hide (an organization
 * switch), so a row action or an answer for the organization shown before changes nothing.
 */
let opened = 0;
const integrations = listLoader({ status: el.status, list: el.list, empty: 'No integrations yet.', what: 'the integrations' });

/** @param {Integration} integration */
function projectOf(integration) {
  return projectNames.get(integration.project_id) ?? `Project ${integration.project_id} (not found)`;
}

/** What runs, on what, in one line each. @param {Integration} i */
function rulesOf(i) {
  return {
    events: `Runs on ${i.events.map((e) => EVENT_LABELS[e] ?? e).join(' and ')}`,
    branches: i.branches.length ? `Branches: ${i.branches.join(', ')}` : "Branches: the repository's default branch",
    tags: i.tags.length ? `Tests tagged ${i.tags.join(', ')}` : 'Every test of the project',
    healing: i.healing_enabled === null ? "Healing: the project's setting" : `Healing: ${i.healing_enabled ? 'on' : 'off'}`,
  };
}

/**
 * Opens a run in the Tests panel of the integration's project, which follows it and offers
 * its report.
 * @param {Integration} integration
 * @param {string} runId
 * @param {string} what
 */
function openRun(integration, runId, what) {
  // Admins may run and retry, as in the project's own Tests panel.
  openTests({ id: integration.project_id, name: projectOf(integration) }, { canRun: true });
  void showRun(what, runId);
}

/** @param {Integration} integration */
function integrationRow(integration) {
  const li = element('li', { className: 'vcs-row', testid: 'vcs-row' });
  li.dataset.id = integration.id;
  li.dataset.enabled = String(integration.enabled);
  const name = integration.repository;
  const mine = opened;
  const current = () => mine === opened;

  const head = element('div', { className: 'vcs-head' });
  head.append(
    element('code', { className: 'vcs-repository', testid: 'vcs-row-repository', text: name }),
    element('span', { className: 'badge', testid: 'vcs-row-provider', text: PROVIDERS[integration.provider] ?? integration.provider }),
    element('span', { className: integration.enabled ? 'badge badge-enabled' : 'badge badge-paused', testid: 'vcs-row-state', text: integration.enabled ? 'enabled' : 'paused' }),
  );
  const rules = rulesOf(integration);
  const scope = element('span', { className: 'vcs-scope muted' });
  scope.append(element('span', { testid: 'vcs-row-project', text: projectOf(integration) }), ' · ', element('span', { testid: 'vcs-row-tags', text: rules.tags }), ' · ', element('span', { testid: 'vcs-row-healing', text: rules.healing }));
  const on = element('span', { className: 'vcs-rules' });
  on.append(element('span', { testid: 'vcs-row-events', text: rules.events }), ' · ', element('span', { testid: 'vcs-row-branches', text: rules.branches }));
  const status = rowStatus('vcs-row-status');
  const about = element('div', { className: 'vcs-about' });
  about.append(head, scope, on, status);

  const deliveries = deliveriesOf(integration, { current, openRun: (runId, what) => openRun(integration, runId, what) });
  const path = `/api/integrations/vcs/${encodeURIComponent(integration.id)}`;
  const host = PROVIDERS[integration.provider] ?? integration.provider;
  const rotation = rotateSecret({ path, name: `the integration for ${name}`, prefix: 'vcs', status, current, where: `the repository's webhook on ${host} (${integration.provider === 'gitlab' ? 'Secret token' : 'Secret'})` });
  const actions = integrationActions({
    enabled: integration.enabled, name, item: `the integration for ${name}`, prefix: 'vcs', status, current, reload: load, middle: [deliveries.button, rotation.button], path,
    confirm: `Delete the integration for “${name}”? Its webhooks are refused from then on; its runs stay.`,
  });
  li.append(about, actions, rotation.panel, deliveries.panel);
  return li;
}

/** @returns {Promise<void>} */
const load = () => integrations.load(() => api('/api/integrations/vcs?limit=200'), integrationRow);

onVcsCreated(async () => {
  if (!el.panel.hidden) await load();
});

/** Reads the projects (for the form and the rows' names), then the integrations. */
async function loadAll() {
  const mine = opened;
  const projects = await allProjects(() => mine === opened);
  if (mine !== opened) return;
  projectNames = new Map(projects.map((p) => [p.id, p.name]));
  setVcsProjects(projects);
  await load();
}

/**
 * Shows or hides the section; shown, it (re)loads the selected organization's
 * integrations and projects. Either way a secret shown before and a half-filled form are
 * dropped.
 * @param {boolean} visible
 */
export function showVcs(visible) {
  opened++;
  el.panel.hidden = !visible;
  resetVcsForm();
  el.list.replaceChildren();
  projectNames = new Map();
  if (!visible) {
    integrations.cancel();
    setMessage(el.status);
    return;
  }
  setMessage(el.status, 'Loading…');
  void loadAll();
}

/** A project was added: offer it in the form while the section is shown. */
export function vcsProjectsChanged() {
  if (!el.panel.hidden) void loadAll();
}
