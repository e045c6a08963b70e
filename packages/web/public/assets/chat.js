import { api } from './api.js';
import { $, clearFieldErrors, element, listLoader, listOf, setMessage, showFieldErrors, submitting } from './dom.js';
import { integrationActions, rowStatus } from './integration-row.js';
import { allProjects } from './projects.js';

/**
 * The organization's chat integrations, for admins (the API refuses others): a Slack app's
 * slash command whose signed commands run, report on and score the organization's projects
 * (docs/chatops.md). The section shows what Slack's slash-command form needs (the Request
 * URL is this dashboard's origin and /webhooks/chat), each integration with its default
 * project, workspace, allowed users and signing secret hint, pause or resume and delete;
 * the form adds one. The signing secret is Slack's, typed here once: the API never returns
 * it, only its last four characters.
 *
 * @typedef {{ id: string, provider: 'slack', project_id: string, team_id: string | null, allowed_user_ids: string[], enabled: boolean, signing_secret_set: boolean, signing_secret_hint: string | null, created_at: string, updated_at: string }} ChatIntegration
 */

const el = {
  panel: $('chat'),
  status: $('chat-status'),
  list: $('chat-list'),
  requestUrl: $('chat-request-url'),
  copy: /** @type {HTMLButtonElement} */ ($('chat-request-url-copy')),
  loopback: $('chat-loopback'),
  form: /** @type {HTMLFormElement} */ ($('chat-form')),
  project: /** @type {HTMLSelectElement} */ ($('chat-project')),
  secret: /** @type {HTMLInputElement} */ ($('chat-secret')),
  team: /** @type {HTMLInputElement} */ ($('chat-team')),
  users: /** @type {HTMLInputElement} */ ($('chat-users')),
  formError: $('chat-error'),
};

/** Where Slack sends the commands, on this server. */
const REQUEST_PATH = '/webhooks/chat';
/** Hosts that Slack cannot reach without a tunnel. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The form's fields by the name the API's body and issues use. */
const FIELDS = /** @type {Record<string, import('./dom.js').FormField & { value: () => unknown }>} */ ({
  project_id: { inputs: [/** @type {HTMLInputElement} */ ($('chat-project'))], error: $('chat-project-error'), emptyMessage: 'Choose a project.', value: () => el.project.value },
  signing_secret: { inputs: [el.secret], error: $('chat-secret-error'), emptyMessage: "Paste the Slack app's signing secret.", value: () => el.secret.value.trim() },
  team_id: { inputs: [el.team], error: $('chat-team-error'), value: () => el.team.value.trim() || null },
  allowed_user_ids: { inputs: [el.users], error: $('chat-users-error'), value: () => listOf(el.users) },
});

/** Projects by id, for the rows' project names. @type {Map<string, string>} */
let projectNames = new Map();
/**
 * Which showing of the section this is. Bumped on every show and hide (an organization
 * switch), so a row action or an answer for the organization shown before changes nothing.
 */
let opened = 0;
const integrations = listLoader({ status: el.status, list: el.list, empty: 'No Slack integrations yet.', what: 'the chat integrations' });

/** @param {ChatIntegration} integration */
function projectOf(integration) {
  return projectNames.get(integration.project_id) ?? `Project ${integration.project_id} (not found)`;
}

/** @param {ChatIntegration} integration */
function integrationRow(integration) {
  const li = element('li', { className: 'vcs-row chat-row', testid: 'chat-row' });
  li.dataset.id = integration.id;
  li.dataset.enabled = String(integration.enabled);
  const project = projectOf(integration);
  const name = `the Slack integration of ${project}${integration.team_id ? ` (workspace ${integration.team_id})` : ''}`;
  const mine = opened;
  const current = () => mine === opened;

  const head = element('div', { className: 'vcs-head' });
  head.append(
    element('strong', { testid: 'chat-row-project', text: project }),
    element('span', { className: 'badge', text: 'Slack' }),
    element('span', { className: integration.enabled ? 'badge badge-enabled' : 'badge badge-paused', testid: 'chat-row-state', text: integration.enabled ? 'enabled' : 'paused' }),
  );
  const scope = element('span', { className: 'vcs-scope muted' });
  scope.append(
    element('span', { testid: 'chat-row-team', text: integration.team_id ? `Workspace ${integration.team_id}` : 'Any workspace' }),
    ' · ',
    element('span', { testid: 'chat-row-users', text: integration.allowed_user_ids.length ? `Users ${integration.allowed_user_ids.join(', ')}` : 'Everyone in the workspace' }),
    ' · ',
    element('span', { testid: 'chat-row-secret', text: integration.signing_secret_set ? `Signing secret ${integration.signing_secret_hint ?? 'set'}` : 'No signing secret' }),
  );
  const status = rowStatus('chat-row-status');
  const about = element('div', { className: 'vcs-about' });
  about.append(head, scope, status);
  const actions = integrationActions({
    enabled: integration.enabled, name, item: name, prefix: 'chat', status, current, reload: load,
    path: `/api/integrations/chat/${encodeURIComponent(integration.id)}`,
    confirm: `Delete ${name}? Its slash commands are refused from then on; its runs stay.`,
  });
  li.append(about, actions);
  return li;
}

/** @returns {Promise<void>} */
const load = () => integrations.load(() => api('/api/integrations/chat?limit=200'), integrationRow);

/**
 * The projects the form offers (an integration's default project); the one chosen stays
 * chosen if it is still there.
 * @param {import('./projects.js').ProjectRef[]} projects
 */
function setProjects(projects) {
  const chosen = el.project.value;
  el.project.replaceChildren(new Option('Choose a project', ''), ...projects.map((p) => new Option(p.name, p.id)));
  if (projects.some((p) => p.id === chosen)) el.project.value = chosen;
}

/** Reads the projects (for the form and the rows' names), then the integrations. */
async function loadAll() {
  const mine = opened;
  const projects = await allProjects(() => mine === opened);
  if (mine !== opened) return;
  projectNames = new Map(projects.map((p) => [p.id, p.name]));
  setProjects(projects);
  await load();
}

/** What Slack's slash-command form asks for: the Request URL, and whether Slack can reach it. */
function showSlackSettings() {
  const url = `${location.origin}${REQUEST_PATH}`;
  el.requestUrl.textContent = url;
  el.copy.textContent = 'Copy';
  setMessage(
    el.loopback,
    LOOPBACK.has(location.hostname)
      ? `This dashboard is at a loopback address: Slack can reach ${url} only through a tunnel or proxy you run. Give Slack the tunnel's address, ending in ${REQUEST_PATH}.`
      : '',
  );
}

el.copy.addEventListener('click', async () => {
  try {
    await navigator.clipboard.writeText(el.requestUrl.textContent ?? '');
    el.copy.textContent = 'Copied';
  } catch {
    // No clipboard (an insecure origin, a refused permission): the value is on screen to select.
    el.copy.textContent = 'Copy failed: select it';
  }
});

el.form.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearFieldErrors(FIELDS, el.formError);
  const mine = opened;
  // Everything goes to the API, which names every field that is wrong at once.
  const body = { provider: 'slack', ...Object.fromEntries(Object.entries(FIELDS).map(([name, field]) => [name, field.value()])) };
  await submitting(el.form, async () => {
    try {
      await api('/api/integrations/chat', { method: 'POST', body });
      if (mine !== opened) return;
      const chosen = el.project.value;
      el.form.reset();
      el.project.value = chosen;
      await load();
    } catch (err) {
      if (mine !== opened) return;
      showFieldErrors(err, { fields: FIELDS, formError: el.formError, form: el.form });
    }
  });
});

/**
 * Shows or hides the section; shown, it (re)loads the selected organization's
 * integrations and projects. Either way a half-filled form (a pasted secret) is dropped.
 * @param {boolean} visible
 */
export function showChat(visible) {
  opened++;
  el.panel.hidden = !visible;
  el.form.reset();
  clearFieldErrors(FIELDS, el.formError);
  setProjects([]);
  el.list.replaceChildren();
  projectNames = new Map();
  if (!visible) {
    integrations.cancel();
    setMessage(el.status);
    return;
  }
  showSlackSettings();
  setMessage(el.status, 'Loading…');
  void loadAll();
}

/** A project was added: offer it in the form while the section is shown. */
export function chatProjectsChanged() {
  if (!el.panel.hidden) void loadAll();
}
