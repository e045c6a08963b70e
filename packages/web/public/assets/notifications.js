import { api } from './api.js';
import { $, actionButton, clearFieldErrors, deleteButton, disclosureButton, element, listLoader, setMessage, showFieldErrors, submitting, timeOf } from './dom.js';
import { allProjects } from './projects.js';

/**
 * The organization's notification channels, for admins: where a finished run is told
 * about (a Slack-compatible incoming webhook gets a chat message, any other endpoint gets
 * signed JSON) and which run outcomes of which project send a message. The API never
 * returns a channel's URL (it is a credential), only its origin; a webhook channel's
 * signing secret is shown once, when it is created.
 *
 * @typedef {'run_failed' | 'run_recovered' | 'run_passed'} NotificationEvent
 * @typedef {{ id: string, name: string, kind: 'slack' | 'webhook', url_hint: string, project_id: string | null, events: NotificationEvent[], enabled: boolean, created_at: string, updated_at: string }} Channel
 * @typedef {{ status: 'delivered' | 'failed', attempts: number, http_status: number | null, error: string | null }} Delivery
 * @typedef {Delivery & { id: string, channel_id: string, run_id: string | null, event: string, created_at: string }} DeliveryLog
 * @typedef {'name' | 'url' | 'events'} FieldName
 */

const el = {
  panel: $('notifications'),
  status: $('notifications-status'),
  list: $('notifications-list'),
  form: /** @type {HTMLFormElement} */ ($('notification-form')),
  kind: /** @type {HTMLSelectElement} */ ($('notification-kind')),
  project: /** @type {HTMLSelectElement} */ ($('notification-project')),
  formError: $('notification-error'),
  created: $('notification-created'),
  secret: $('notification-secret'),
};

/** The event checkboxes, in the order the API lists events. */
const EVENT_INPUTS = /** @type {HTMLInputElement[]} */ ([...el.form.querySelectorAll('input[name="events"]')]);

/**
 * The form's fields and the error line under each, by the field name the API's issues use;
 * `empty` says whether nothing was given, for which the form has its own words.
 */
const FIELDS = /** @type {Record<FieldName, import('./dom.js').FormField>} */ ({
  name: { inputs: [/** @type {HTMLInputElement} */ ($('notification-name'))], error: $('notification-name-error'), empty: () => !textOf('notification-name') },
  url: { inputs: [/** @type {HTMLInputElement} */ ($('notification-url'))], error: $('notification-url-error'), empty: () => !textOf('notification-url') },
  // Each checkbox is marked invalid (a fieldset takes no aria-invalid); the first one takes the focus.
  events: { inputs: EVENT_INPUTS, error: $('notification-events-error'), empty: () => checkedEvents().length === 0, emptyMessage: 'Choose at least one run outcome.' },
});

/** Run outcomes in words, as the list and the form name them. */
const EVENT_LABELS = /** @type {Record<string, string>} */ ({ run_failed: 'Failed', run_recovered: 'Recovered', run_passed: 'Passed', test: 'Test message' });

/** What the URL input suggests for each kind. */
const URL_PLACEHOLDERS = { slack: 'https://hooks.slack.com/services/T000/B000/XXXX', webhook: 'https://ci.example.com/hooks/svc' };

/** Deliveries shown under a row: the latest ones. */
const LOG_LIMIT = 20;

/** Projects shown in the list and offered by the form, by id. */
/** @type {Map<string, string>} */
let projectNames = new Map();
/**
 * Which showing of the section this is. Bumped on every show and hide (an organization
 * switch), so a row action or a form answer that arrives for the organization shown before
 * changes nothing.
 */
let opened = 0;
const channels = listLoader({ status: el.status, list: el.list, empty: 'No channels yet.', what: 'the notification channels' });

const id = encodeURIComponent;

/** @param {string} inputId */
const textOf = (inputId) => /** @type {HTMLInputElement} */ ($(inputId)).value.trim();

/** @returns {NotificationEvent[]} */
const checkedEvents = () => EVENT_INPUTS.filter((input) => input.checked).map((input) => /** @type {NotificationEvent} */ (input.value));

/** Which projects a channel hears about, in words. @param {Channel} channel */
function projectOf(channel) {
  if (!channel.project_id) return 'All projects';
  // A project deleted since keeps its id in the rule; say so rather than show nothing.
  return projectNames.get(channel.project_id) ?? `Project ${channel.project_id} (not found)`;
}

/** What an endpoint said, in a few words: the HTTP status, or the error. @param {Delivery} delivery */
function outcomeOf(delivery) {
  if (delivery.status === 'delivered') return delivery.http_status === null ? 'Delivered' : `Delivered (HTTP ${delivery.http_status})`;
  const tries = delivery.attempts > 1 ? ` (${delivery.attempts} attempts)` : '';
  return `Failed: ${delivery.error ?? (delivery.http_status === null ? 'not delivered' : `HTTP ${delivery.http_status}`)}${tries}`;
}

/**
 * A row button whose failure is said in `status` unless the section was shown again
 * (another organization) meanwhile.
 * @param {Omit<import('./dom.js').ActionButton, 'current'>} o
 */
function rowButton(o) {
  const mine = opened;
  return actionButton({ ...o, current: () => mine === opened });
}

/**
 * (Re)loads a channel's latest deliveries into its list under the row.
 * @param {Channel} channel
 * @param {HTMLElement} list
 * @param {HTMLElement} status
 */
async function loadLogs(channel, list, status) {
  const mine = opened;
  setMessage(status, 'Loading…');
  /** @type {{ items: DeliveryLog[] }} */
  const page = await api(`/api/notifications/channels/${id(channel.id)}/logs?limit=${LOG_LIMIT}`);
  if (mine !== opened) return;
  list.replaceChildren(...page.items.map(logItem));
  setMessage(status, page.items.length ? '' : 'Nothing sent yet.');
}

/** @param {DeliveryLog} log */
function logItem(log) {
  const li = element('li', { className: 'notification-log', testid: 'notification-log' });
  li.dataset.status = log.status;
  const state = element('span', { className: log.status === 'delivered' ? 'badge badge-enabled' : 'badge badge-failed', testid: 'notification-log-status', text: log.status === 'delivered' ? 'Delivered' : 'Failed' });
  const parts = [EVENT_LABELS[log.event] ?? log.event];
  if (log.http_status !== null) parts.push(`HTTP ${log.http_status}`);
  if (log.attempts > 1) parts.push(`${log.attempts} attempts`);
  // The error repeats an HTTP status but adds the start of the endpoint's answer, or names a network error.
  if (log.error) parts.push(log.error);
  li.append(timeOf(log.created_at, 'notification-log-time'), state, element('span', { className: 'notification-log-detail', testid: 'notification-log-detail', text: parts.join(' · ') }));
  return li;
}

/** @param {Channel} channel */
function channelRow(channel) {
  const li = element('li', { className: 'notification-row', testid: 'notification-row' });
  li.dataset.id = channel.id;
  li.dataset.enabled = String(channel.enabled);

  const about = element('div', { className: 'notification-about' });
  const head = element('div', { className: 'notification-head' });
  head.append(
    element('span', { className: 'notification-name', testid: 'notification-row-name', text: channel.name }),
    element('span', { className: 'badge', testid: 'notification-row-kind', text: channel.kind }),
    element('span', { className: channel.enabled ? 'badge badge-enabled' : 'badge badge-paused', testid: 'notification-row-state', text: channel.enabled ? 'enabled' : 'paused' }),
  );
  const where = element('span', { className: 'notification-where muted' });
  where.append(
    element('code', { testid: 'notification-row-url', text: channel.url_hint }),
    ' · ',
    element('span', { testid: 'notification-row-project', text: projectOf(channel) }),
  );
  const events = element('span', { className: 'notification-events', testid: 'notification-row-events', text: `On: ${channel.events.map((e) => EVENT_LABELS[e] ?? e).join(', ')}` });
  // What the last row action (a test, a pause, a failed delete) came to; read out when it changes.
  const status = element('p', { className: 'notification-status muted', testid: 'notification-status' });
  status.setAttribute('role', 'status');
  status.hidden = true;
  about.append(head, where, events, status);

  // The deliveries, under the row; closed until asked for.
  const logs = element('div', { className: 'notification-logs', testid: 'notification-logs-panel' });
  logs.id = `notification-logs-${channel.id}`;
  logs.hidden = true;
  const logsStatus = element('p', { className: 'muted', testid: 'notification-logs-status' });
  logsStatus.setAttribute('role', 'status');
  const logList = element('ul', { className: 'notification-log-list', testid: 'notification-logs-list' });
  logList.setAttribute('aria-label', `Latest deliveries to ${channel.name}`);
  logs.append(logsStatus, logList);

  const path = `/api/notifications/channels/${id(channel.id)}`;
  const mine = opened;
  const actions = element('span', { className: 'notification-actions' });
  const showLogs = disclosureButton({
    text: 'Deliveries',
    testid: 'notification-logs',
    label: `Latest deliveries to ${channel.name}`,
    failure: 'Could not load the deliveries',
    status: logsStatus,
    current: () => mine === opened,
    panel: logs,
    opening: () => loadLogs(channel, logList, logsStatus),
  });
  actions.append(
    rowButton({
      text: 'Send test',
      testid: 'notification-test',
      label: `Send a test message to ${channel.name}`,
      failure: 'Could not send a test message',
      status,
      work: async () => {
        // A failing endpoint is tried three times, a few seconds in all: say that it is under way.
        setMessage(status, 'Sending…');
        delete status.dataset.outcome;
        /** @type {Delivery} */
        const delivery = await api(`${path}/test`, { method: 'POST', body: {} });
        if (mine !== opened) return;
        setMessage(status, outcomeOf(delivery));
        status.dataset.outcome = delivery.status;
        if (!logs.hidden) await loadLogs(channel, logList, logsStatus);
      },
    }),
    rowButton({
      text: channel.enabled ? 'Pause' : 'Resume',
      testid: 'notification-toggle',
      label: `${channel.enabled ? 'Pause' : 'Resume'} ${channel.name}`,
      failure: `Could not ${channel.enabled ? 'pause' : 'resume'} ${channel.name}`,
      status,
      work: async () => {
        await api(path, { method: 'PATCH', body: { enabled: !channel.enabled } });
        if (mine === opened) await load();
      },
    }),
    showLogs,
    deleteButton({ verb: 'Delete', testid: 'notification-delete', item: `channel ${channel.name}`, path, status, reload: reloadFor(mine), confirm: `Delete the notification channel “${channel.name}”? Its URL and delivery history go with it.` }),
  );
  li.append(about, actions, logs);
  return li;
}

/** @returns {Promise<void>} */
const load = () => channels.load(() => api('/api/notifications/channels?limit=200'), channelRow);

/** A reload that does nothing once the section shows another organization. @param {number} mine */
const reloadFor = (mine) => async () => {
  if (mine === opened) await load();
};

/**
 * Every project of the organization, for the form's select and the rows' project names.
 * Failing, the form offers "All projects" only and the rows show project ids.
 */
async function loadProjects() {
  const mine = opened;
  const projects = await allProjects(() => mine === opened);
  if (mine !== opened) return;
  projectNames = new Map(projects.map((p) => [p.id, p.name]));
  const chosen = el.project.value;
  el.project.replaceChildren(new Option('All projects', ''), ...projects.map((p) => new Option(p.name, p.id)));
  if (projectNames.has(chosen)) el.project.value = chosen;
}

function clearFormErrors() {
  clearFieldErrors(FIELDS, el.formError);
}

/**
 * Shows the API's field errors (400) under their fields, the rest above the button; the
 * form keeps what was typed, to be corrected.
 * @param {unknown} err
 */
function showFormErrors(err) {
  showFieldErrors(err, { fields: FIELDS, formError: el.formError, form: el.form });
}

function hideSecret() {
  el.created.hidden = true;
  el.secret.textContent = '';
}

function showUrlPlaceholder() {
  FIELDS.url.inputs[0].placeholder = el.kind.value === 'webhook' ? URL_PLACEHOLDERS.webhook : URL_PLACEHOLDERS.slack;
}

el.kind.addEventListener('change', showUrlPlaceholder);

el.form.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearFormErrors();
  hideSecret();
  const mine = opened;
  // Everything goes to the API, which names every field that is wrong at once.
  /** @type {{ name: string, kind: string, url: string, events: NotificationEvent[], project_id?: string }} */
  const body = { name: textOf('notification-name'), kind: el.kind.value, url: textOf('notification-url'), events: checkedEvents() };
  if (el.project.value) body.project_id = el.project.value;
  await submitting(el.form, async () => {
    try {
      /** @type {Channel & { signing_secret: string | null }} */
      const created = await api('/api/notifications/channels', { method: 'POST', body });
      if (mine !== opened) return;
      // Shown this once: the API never returns it again.
      if (created.signing_secret) {
        el.secret.textContent = created.signing_secret;
        el.created.hidden = false;
      }
      el.form.reset();
      showUrlPlaceholder();
      await load();
    } catch (err) {
      if (mine !== opened) return;
      showFormErrors(err);
    }
  });
});

/**
 * Shows or hides the section; shown, it (re)loads the selected organization's channels and
 * projects. Either way a secret shown before and a half-filled form are dropped.
 * @param {boolean} visible
 */
export function showNotifications(visible) {
  opened++;
  el.panel.hidden = !visible;
  hideSecret();
  el.form.reset();
  showUrlPlaceholder();
  clearFormErrors();
  el.list.replaceChildren();
  projectNames = new Map();
  el.project.replaceChildren(new Option('All projects', ''));
  if (!visible) {
    channels.cancel();
    setMessage(el.status);
    return;
  }
  setMessage(el.status, 'Loading…');
  // Rows name their project: load the projects first.
  const mine = opened;
  void loadProjects().then(() => {
    if (mine === opened) return load();
  });
}

/** A project was added: offer it in the form (and name it in rows) while the section is shown. */
export function notificationProjectsChanged() {
  if (el.panel.hidden) return;
  const mine = opened;
  void loadProjects().then(() => {
    if (mine === opened) return load();
  });
}
