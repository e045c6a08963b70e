import { api } from './api.js';
import { $, clearFieldErrors, deleteButton, element, listLoader, listOf, messageOf, setMessage, showFieldErrors, submitting, timeOf } from './dom.js';

/**
 * The schedules of one project: runs of its tests that start when a cron expression says,
 * read in the schedule's time zone. Everyone may look (the API lets viewers list them);
 * members and admins also add one, run one now, pause or resume it and delete it (the API
 * enforces the same). Times are shown in the browser's local time.
 *
 * @typedef {{ run_id: string, slot: string, started_at: string }} RecentRun
 * @typedef {{ id: string, project_id: string, name: string, cron: string, timezone: string, test_ids: string[] | null, tags: string[], app_url: string | null, enabled: boolean, next_run_at: string | null, last_run_at: string | null, last_run_id: string | null, last_error: string | null, recent_runs: RecentRun[], created_by: string | null, created_at: string, updated_at: string }} Schedule
 * @typedef {{ id: string, name: string }} ProjectRef
 * @typedef {'name' | 'cron' | 'timezone' | 'tags'} FieldName
 */

const el = {
  panel: $('schedules'),
  heading: $('schedules-heading'),
  close: /** @type {HTMLButtonElement} */ ($('schedules-close')),
  status: $('schedules-status'),
  list: $('schedules-list'),
  more: $('schedules-more'),
  form: /** @type {HTMLFormElement} */ ($('schedule-form')),
  formError: $('schedule-error'),
};

/** The form's inputs and the error line under each, by the field name the API's issues use. */
const FIELDS = /** @type {Record<FieldName, import('./dom.js').FormField>} */ ({
  name: { inputs: [/** @type {HTMLInputElement} */ ($('schedule-name'))], error: $('schedule-name-error') },
  cron: { inputs: [/** @type {HTMLInputElement} */ ($('schedule-cron'))], error: $('schedule-cron-error') },
  timezone: { inputs: [/** @type {HTMLInputElement} */ ($('schedule-timezone'))], error: $('schedule-timezone-error') },
  tags: { inputs: [/** @type {HTMLInputElement} */ ($('schedule-tags'))], error: $('schedule-tags-error') },
});

/** Schedules shown at once (the API's largest page). */
const PAGE = 100;

/** @type {{ project: ProjectRef, canEdit: boolean } | undefined} */
let current;
/**
 * Which opening the panel shows. Bumped on every open and close, so a row action or a form
 * answer that arrives for a closed panel, or for the project shown before, changes nothing.
 */
let opened = 0;
const schedules = listLoader({ status: el.status, list: el.list, empty: 'No schedules yet.', what: 'the schedules' });

const id = encodeURIComponent;

/** The browser's IANA time zone, the form's default (the API's own default is UTC). */
function browserTimeZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** Which tests a schedule runs, in words. @param {Schedule} schedule */
function scopeOf(schedule) {
  const tests = schedule.test_ids
    ? `${schedule.test_ids.length} chosen test${schedule.test_ids.length === 1 ? '' : 's'}`
    : schedule.tags.length
      ? `Tests tagged ${schedule.tags.join(', ')}`
      : 'All tests';
  return schedule.app_url ? `${tests} · against ${schedule.app_url}` : tests;
}

/**
 * A small row button that sends one request and reloads the list; it disables itself
 * meanwhile and says in the status line when the request fails.
 * @param {{ text: string, testid: string, label: string, failure: string, work: () => Promise<string | void> }} o
 *   `work` may return a message for the status line, shown once the list has reloaded
 */
function actionButton({ text, testid, label, failure, work }) {
  const button = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid, text }));
  button.type = 'button';
  button.setAttribute('aria-label', label);
  const mine = opened;
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const message = await work();
      if (mine !== opened) return;
      await load();
      // After the reload, which clears the status line when the list has rows.
      if (message && mine === opened) setMessage(el.status, message);
    } catch (err) {
      if (mine !== opened) return;
      button.disabled = false;
      setMessage(el.status, `${failure}: ${messageOf(err)}`);
    }
  });
  return button;
}

/** @param {Schedule} schedule */
function scheduleRow(schedule) {
  const li = element('li', { className: 'schedule-row', testid: 'schedule-row' });
  li.dataset.id = schedule.id;
  li.dataset.enabled = String(schedule.enabled);

  const about = element('div', { className: 'schedule-about' });
  const head = element('div', { className: 'schedule-head' });
  head.append(
    element('span', { className: 'schedule-name', testid: 'schedule-row-name', text: schedule.name }),
    element('span', { className: schedule.enabled ? 'badge badge-enabled' : 'badge badge-paused', testid: 'schedule-row-state', text: schedule.enabled ? 'enabled' : 'paused' }),
  );
  const when = element('span', { className: 'schedule-cron', testid: 'schedule-row-cron' });
  when.append(element('code', { text: schedule.cron }), ` · ${schedule.timezone}`);
  about.append(head, when, element('span', { className: 'muted schedule-scope', testid: 'schedule-row-scope', text: scopeOf(schedule) }));

  const times = element('div', { className: 'schedule-times' });
  const next = element('span', { testid: 'schedule-row-next' });
  if (schedule.next_run_at) next.append('Next run ', timeOf(schedule.next_run_at, 'schedule-row-next-at'));
  else next.textContent = schedule.enabled ? 'No next run: the expression names no future date' : 'Paused: no next run';
  const last = element('span', { className: 'muted', testid: 'schedule-row-last' });
  if (schedule.last_run_at) {
    last.append('Last run ', timeOf(schedule.last_run_at, 'schedule-row-last-at'));
    if (schedule.last_run_id) last.append(' · run ', element('code', { testid: 'schedule-row-last-run', text: schedule.last_run_id }));
  } else {
    last.textContent = 'Not run yet';
  }
  times.append(next, last);
  // Why the last due run could not start (no tests, no app URL): the schedule moved on without it.
  if (schedule.last_error) times.append(element('p', { className: 'alert schedule-error', testid: 'schedule-row-error', text: `Last run could not start: ${schedule.last_error}` }));

  const actions = element('span', { className: 'schedule-actions' });
  if (current?.canEdit) {
    const path = `/api/schedules/${id(schedule.id)}`;
    actions.append(
      actionButton({
        text: 'Run now',
        testid: 'schedule-run-now',
        label: `Run ${schedule.name} now`,
        failure: `Could not run ${schedule.name}`,
        work: async () => {
          /** @type {{ run: { id: string } }} */
          const started = await api(`${path}/run`, { method: 'POST', body: {} });
          return `Started run ${started.run.id}`;
        },
      }),
      actionButton({
        text: schedule.enabled ? 'Pause' : 'Resume',
        testid: 'schedule-toggle',
        label: `${schedule.enabled ? 'Pause' : 'Resume'} ${schedule.name}`,
        failure: `Could not ${schedule.enabled ? 'pause' : 'resume'} ${schedule.name}`,
        work: async () => {
          await api(path, { method: 'PATCH', body: { enabled: !schedule.enabled } });
        },
      }),
      deleteButton({ verb: 'Delete', testid: 'schedule-delete', item: `schedule ${schedule.name}`, path, status: el.status, reload: reloadFor(opened), confirm: `Delete the schedule “${schedule.name}”? Its tests stop running on it.` }),
    );
  }
  li.append(about, times, actions);
  return li;
}

/** @returns {Promise<void>} */
const load = async () => {
  /** @type {string | null} */
  let more = null;
  const projectId = current?.project.id ?? '';
  await schedules.load(async () => {
    const page = await api(`/api/schedules?project_id=${id(projectId)}&limit=${PAGE}`);
    more = page.next_cursor ?? null;
    return page;
  }, scheduleRow);
  // A project with more schedules than a page says so rather than look complete.
  el.more.hidden = !more;
};

/** A reload that does nothing once the panel was closed or shows another project. @param {number} mine */
const reloadFor = (mine) => async () => {
  if (mine === opened) await load();
};

function clearFormErrors() {
  clearFieldErrors(FIELDS, el.formError);
}

/**
 * Shows the API's field errors (400) under their inputs ("tags.2" is about the tags field),
 * the rest above the button; the inputs keep what was typed, to be corrected.
 * @param {unknown} err
 */
function showFormErrors(err) {
  showFieldErrors(err, { fields: FIELDS, formError: el.formError, form: el.form });
}

/** The comma-separated tags field as a list, without blanks. */
function tagsOf() {
  return listOf(FIELDS.tags.inputs[0]);
}

el.form.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!current) return;
  clearFormErrors();
  const mine = opened;
  // Everything goes to the API, which names every field that is wrong at once.
  /** @type {{ project_id: string, name: string, cron: string, timezone?: string, tags?: string[] }} */
  const body = { project_id: current.project.id, name: FIELDS.name.inputs[0].value.trim(), cron: FIELDS.cron.inputs[0].value.trim() };
  const timezone = FIELDS.timezone.inputs[0].value.trim();
  if (timezone) body.timezone = timezone;
  const tags = tagsOf();
  if (tags.length) body.tags = tags;
  await submitting(el.form, async () => {
    try {
      await api('/api/schedules', { method: 'POST', body });
      if (mine !== opened) return;
      el.form.reset();
      FIELDS.name.inputs[0].focus();
      await load();
    } catch (err) {
      if (mine !== opened) return;
      showFormErrors(err);
    }
  });
});

el.close.addEventListener('click', closeSchedules);

/**
 * Shows the schedules of a project.
 * @param {ProjectRef} project
 * @param {{ canEdit: boolean }} options members and admins add, run, pause and delete; viewers look
 */
export function openSchedules(project, { canEdit }) {
  opened++;
  current = { project, canEdit };
  el.heading.textContent = `Schedules · ${project.name}`;
  el.form.hidden = !canEdit;
  // Set as the default value, so that the reset after an added schedule keeps it.
  FIELDS.timezone.inputs[0].defaultValue = browserTimeZone();
  el.form.reset();
  clearFormErrors();
  el.list.replaceChildren();
  el.more.hidden = true;
  el.panel.hidden = false;
  el.panel.scrollIntoView({ block: 'nearest' });
  void load();
}

export function closeSchedules() {
  opened++;
  current = undefined;
  schedules.cancel();
  el.list.replaceChildren();
  setMessage(el.status);
  el.more.hidden = true;
  el.panel.hidden = true;
}
