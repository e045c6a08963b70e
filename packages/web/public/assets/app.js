import { api, getOrganizationId, markSession, setOrganizationId } from './api.js';
import { $, clearFieldErrors, messageOf, setMessage, showFieldError, showFieldErrors } from './dom.js';
import { closeEnvironment, openEnvironment } from './environment.js';
import { closeBaselines, openBaselines } from './visual.js';
import { closeInsights, openInsights } from './insights.js';
import { closeSchedules, openSchedules } from './schedules.js';
import { closeFlows, openFlows } from './flows.js';
import { closeTemplates, openTemplates } from './templates.js';
import { closeTests, openTests } from './tests.js';
import { closeAudit, openAudit } from './audit.js';
import { closeLoop, openLoop } from './loop.js';
import { showApiKeys } from './api-keys.js';
import { notificationProjectsChanged, showNotifications } from './notifications.js';
import { showVcs, vcsProjectsChanged } from './vcs.js';
import { chatProjectsChanged, showChat } from './chat.js';
import { automationProjectsChanged, showAutomation } from './automation.js';
import { searchOrganizationChanged, searchProject, searchProjectsChanged, setupSearch } from './search.js';
import { showRun } from './test-run.js';
import { setSignedIn } from './session.js';

/**
 * @typedef {{ organization_id: string, organization_name: string, organization_slug: string, role: string }} Membership
 * @typedef {{ id: string, user_id: string, email: string, display_name: string, default_organization_id: string | null, memberships: Membership[] }} Me
 * @typedef {{ id: string, organization_id: string, name: string, app_url?: string | null, created_at: string | number }} Project
 */

/** Roles allowed to create projects (viewer < member < admin). */
const WRITE_ROLES = new Set(['member', 'admin']);


const el = {
  main: $('main'),
  appError: $('app-error'),
  switcher: /** @type {HTMLSelectElement} */ ($('org-switcher')),
  userEmail: $('user-email'),
  signOut: /** @type {HTMLButtonElement} */ ($('sign-out')),
  templatesOpen: /** @type {HTMLButtonElement} */ ($('templates-open')),
  orgName: $('org-name'),
  status: $('projects-status'),
  list: $('projects-list'),
  empty: $('projects-empty'),
  more: /** @type {HTMLButtonElement} */ ($('projects-more')),
  newProject: $('new-project'),
  form: /** @type {HTMLFormElement} */ ($('new-project-form')),
  name: /** @type {HTMLInputElement} */ ($('new-project-name')),
  url: /** @type {HTMLInputElement} */ ($('new-project-url')),
  nameError: $('new-project-name-error'),
  urlError: $('new-project-url-error'),
  formError: $('new-project-error'),
  formHeading: $('new-project-heading'),
  submit: /** @type {HTMLButtonElement} */ ($('new-project-submit')),
  cancel: /** @type {HTMLButtonElement} */ ($('new-project-cancel')),
};

/**
 * The side form creates a project, or edits one (a project row's Edit: its name and app URL,
 * PATCH; an app URL emptied is removed). Cancel, a save, or another organization brings
 * back the new-project form.
 * @type {{ id: string, name: string } | undefined}
 */
let editingProject;

/** @type {Me | undefined} */
let me;
/** Bumped on every list load so that a slow response for a previous organization is ignored. */
let loadSeq = 0;
/** @type {string | null} */
let nextCursor = null;


/** @param {string | number} value */
function formatDate(value) {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  return date.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

/** @param {string | null | undefined} value */
function safeHttpUrl(value) {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A project row's button that opens one of the project's panels.
 * @param {string} testid
 * @param {string} text
 * @param {string} label what it opens, for assistive technology ("Schedules of shop")
 * @param {() => void} open
 * @param {{ id: string, name: string }} project whose panel it opens
 */
function panelButton(testid, text, label, open, project) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'button button-small';
  button.dataset.testid = testid;
  button.textContent = text;
  button.setAttribute('aria-label', label);
  button.addEventListener('click', () => {
    // The project opened last is what the search box offers as its scope.
    searchProject(project);
    open();
  });
  return button;
}

/** @param {Project} project */
function projectRow(project) {
  const li = document.createElement('li');
  li.className = 'project-row';
  li.dataset.testid = 'project-row';
  li.dataset.projectId = project.id;

  const name = document.createElement('span');
  name.className = 'project-name';
  name.dataset.testid = 'project-name';
  name.textContent = project.name;

  const href = safeHttpUrl(project.app_url);
  /** @type {HTMLElement} */
  let url;
  if (href) {
    url = document.createElement('a');
    /** @type {HTMLAnchorElement} */ (url).href = href;
    /** @type {HTMLAnchorElement} */ (url).target = '_blank';
    /** @type {HTMLAnchorElement} */ (url).rel = 'noopener noreferrer';
    url.textContent = project.app_url ?? '';
  } else {
    url = document.createElement('span');
    url.className = 'muted';
    url.textContent = project.app_url || 'No app URL';
  }
  url.classList.add('project-url');

  const created = document.createElement('time');
  created.className = 'project-date muted';
  const date = new Date(project.created_at);
  if (!Number.isNaN(date.getTime())) created.dateTime = date.toISOString();
  created.textContent = formatDate(project.created_at);

  const actions = document.createElement('span');
  actions.className = 'project-actions';
  actions.append(created);
  const role = currentMembership()?.role;
  const canWrite = !!role && WRITE_ROLES.has(role);
  const ref = { id: project.id, name: project.name };
  // Environment variables are for members (read) and admins (edit); viewers do not see them.
  if (canWrite) actions.append(panelButton('project-edit', 'Edit', `Edit ${project.name}: its name and app URL`, () => editProject(project), ref));
  if (canWrite) actions.append(panelButton('project-environment', 'Environment', `Environment of ${project.name}`, () => openEnvironment(ref, { canEdit: role === 'admin' }), ref));
  actions.append(
    // Everyone may look at the tests and their runs; members and admins may run, retry and delete.
    panelButton('project-tests', 'Tests', `Tests of ${project.name}`, () => openTests(ref, { canRun: canWrite }), ref),
    // Everyone may look at the visual baselines; members and admins may delete one.
    panelButton('project-baselines', 'Baselines', `Visual baselines of ${project.name}`, () => openBaselines(ref, { canDelete: canWrite }), ref),
    // Insights are read-only: everyone may look.
    panelButton('project-insights', 'Insights', `Insights of ${project.name}`, () => openInsights(ref, { openRun: (runId, what) => openRunOf(ref, what, runId) }), ref),
    // Everyone may look at the schedules; members and admins may add, run, pause and delete them.
    panelButton('project-schedules', 'Schedules', `Schedules of ${project.name}`, () => openSchedules(ref, { canEdit: canWrite }), ref),
    // Flows are read-only here (written through the API or flow files): everyone may look.
    panelButton('project-flows', 'Flows', `Flows of ${project.name}`, () => openFlows(ref), ref),
  );
  // An audit opens the app in the server's browser: members and admins only, as the API says.
  if (canWrite) actions.append(panelButton('project-audit', 'Audit', `Quality audit of ${project.name}`, () => openAudit({ ...ref, app_url: project.app_url }), ref));
  // The autonomous loop writes and runs tests: members and admins only, as the API says.
  if (canWrite) {
    const openEnv = () => openEnvironment(ref, { canEdit: role === 'admin' });
    actions.append(panelButton('project-loop', 'Discover & test', `Discover and test ${project.name}`, () => openLoop({ ...ref, app_url: project.app_url }, { canRunTests: canWrite, openEnvironment: openEnv }), ref));
  }

  li.append(name, url, actions);
  return li;
}

/** Whether the signed-in person may run tests in the selected organization. */
function canWriteHere() {
  const role = currentMembership()?.role;
  return !!role && WRITE_ROLES.has(role);
}

/**
 * Opens a project's Tests panel with one of its runs in the run view (a search result's
 * failure, a run listed in Insights).
 * @param {{ id: string, name: string }} project @param {string} what @param {string} runId
 */
function openRunOf(project, what, runId) {
  openTests(project, { canRun: canWriteHere() });
  void showRun(what, runId);
}

// A search result opens its project's Tests panel (and a failure's run in it), as the project's row does.
setupSearch({
  openTests: (project) => openTests(project, { canRun: canWriteHere() }),
  showRun: openRunOf,
});

/** @returns {Membership | undefined} */
function currentMembership() {
  return me?.memberships.find((m) => m.organization_id === el.switcher.value);
}

/** @param {boolean} append load the next page instead of starting over */
async function loadProjects(append = false) {
  const seq = ++loadSeq;
  if (!append) {
    el.list.replaceChildren();
    el.empty.hidden = true;
    el.more.hidden = true;
    setMessage(el.status, 'Loading…');
  }
  el.more.disabled = true;
  el.main.setAttribute('aria-busy', 'true');
  try {
    const query = append && nextCursor ? `?cursor=${encodeURIComponent(nextCursor)}` : '';
    /** @type {{ items: Project[], next_cursor: string | null }} */
    const page = await api(`/api/v1/projects${query}`);
    if (seq !== loadSeq) return;
    el.list.append(...page.items.map(projectRow));
    nextCursor = page.next_cursor ?? null;
    setMessage(el.status, '');
    el.empty.hidden = el.list.childElementCount > 0;
    el.more.hidden = !nextCursor;
  } catch (err) {
    if (seq !== loadSeq) return;
    setMessage(el.status, `Could not load projects: ${messageOf(err)}`);
  } finally {
    if (seq === loadSeq) {
      el.more.disabled = false;
      el.main.setAttribute('aria-busy', 'false');
    }
  }
}

function showOrganization() {
  const membership = currentMembership();
  el.orgName.textContent = membership ? `${membership.organization_name} · ${membership.role}` : '';
  el.newProject.hidden = !membership || !WRITE_ROLES.has(membership.role);
  // Everyone may look at the organization's test templates; members and admins also write them and make tests from them.
  el.templatesOpen.hidden = !membership;
  // Key management, notification channels, source control, chat commands and automation are for admins (the API refuses others with 403).
  showApiKeys(membership?.role === 'admin');
  showNotifications(membership?.role === 'admin');
  showVcs(membership?.role === 'admin');
  showChat(membership?.role === 'admin');
  showAutomation(membership?.role === 'admin');
  clearFormErrors();
}

/** The new-project form's fields by the name the API's issues use. */
const FIELDS = /** @type {Record<string, import('./dom.js').FormField>} */ ({
  name: { inputs: [el.name], error: el.nameError },
  app_url: { inputs: [el.url], error: el.urlError },
});

function clearFormErrors() {
  clearFieldErrors(FIELDS, el.formError);
}

/** @param {unknown} err */
function showFormErrors(err) {
  showFieldErrors(err, { fields: FIELDS, formError: el.formError, form: el.form });
}

/**
 * Turns the side form into the project's editor, its fields filled, focus on the name.
 * @param {Project} project
 */
function editProject(project) {
  editingProject = { id: project.id, name: project.name };
  clearFormErrors();
  el.formHeading.textContent = `Edit project · ${project.name}`;
  el.name.value = project.name;
  el.url.value = project.app_url ?? '';
  el.submit.textContent = 'Save';
  el.cancel.hidden = false;
  el.newProject.scrollIntoView({ block: 'nearest' });
  el.name.focus();
}

/** Back to creating a new project. */
function stopEditingProject() {
  editingProject = undefined;
  clearFormErrors();
  el.form.reset();
  el.formHeading.textContent = 'New project';
  el.submit.textContent = 'Create project';
  el.cancel.hidden = true;
}

el.cancel.addEventListener('click', stopEditingProject);

el.form.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearFormErrors();
  const submit = el.submit;
  const editing = editingProject;
  /** @type {{ name: string, app_url?: string | null }} */
  const body = { name: el.name.value.trim() };
  const appUrl = el.url.value.trim();
  if (appUrl) body.app_url = appUrl;
  else if (editing) body.app_url = null;
  // What is wrong for sure is said under its field (all at once) and nothing is sent; the API checks the rest.
  if (!body.name) showFieldError(FIELDS.name, 'This field is required.');
  if (appUrl && !safeHttpUrl(appUrl)) showFieldError(FIELDS.app_url, 'Enter an http or https URL, e.g. https://staging.example.com.');
  const firstInvalid = el.form.querySelector('[aria-invalid="true"]');
  if (firstInvalid instanceof HTMLElement) {
    firstInvalid.focus();
    return;
  }

  submit.disabled = true;
  try {
    if (editing) {
      await api(`/api/v1/projects/${encodeURIComponent(editing.id)}`, { method: 'PATCH', body });
      stopEditingProject();
    } else {
      await api('/api/v1/projects', { method: 'POST', body });
      el.form.reset();
    }
    el.name.focus();
    // A channel may be limited to the new project, and an integration belongs to one: their forms offer it.
    notificationProjectsChanged();
    vcsProjectsChanged();
    chatProjectsChanged();
    automationProjectsChanged();
    searchProjectsChanged();
    await loadProjects();
  } catch (err) {
    showFormErrors(err);
  } finally {
    submit.disabled = false;
  }
});

el.switcher.addEventListener('change', () => {
  setOrganizationId(el.switcher.value);
  stopEditingProject();
  closeEnvironment();
  closeBaselines();
  closeInsights();
  closeSchedules();
  closeFlows();
  closeTemplates();
  closeTests();
  closeAudit();
  closeLoop();
  searchOrganizationChanged();
  showOrganization();
  void loadProjects();
});

el.more.addEventListener('click', () => void loadProjects(true));
el.templatesOpen.addEventListener('click', () => openTemplates({ canEdit: canWriteHere() }));

el.signOut.addEventListener('click', async () => {
  el.signOut.disabled = true;
  // No session left to renew: the sign-in page will not try.
  markSession(false);
  try {
    await api('/api/auth/logout', { method: 'POST', body: {}, organization: false, redirectOn401: false });
  } catch {
    // Signed out or not, the sign-in page is the right place to be now.
  }
  location.assign('/sign-in');
});

async function start() {
  try {
    me = /** @type {Me} */ (await api('/api/v1/users/me', { organization: false }));
  } catch (err) {
    setMessage(el.appError, `Could not load your account: ${messageOf(err)}`);
    setMessage(el.status, '');
    el.main.setAttribute('aria-busy', 'false');
    return;
  }
  el.userEmail.textContent = me.email;
  setSignedIn(me);
  // Signed in (perhaps through another page or before the mark existed): the sign-in page may renew this session.
  markSession(true);

  const memberships = me.memberships ?? [];
  if (memberships.length === 0) {
    setMessage(el.status, 'You are not a member of any organization yet.');
    el.main.setAttribute('aria-busy', 'false');
    return;
  }
  el.switcher.replaceChildren(
    ...memberships.map((m) => new Option(m.organization_name, m.organization_id)),
  );
  const ids = memberships.map((m) => m.organization_id);
  const stored = getOrganizationId();
  const selected =
    (stored && ids.includes(stored) && stored) ||
    (me.default_organization_id && ids.includes(me.default_organization_id) && me.default_organization_id) ||
    ids[0];
  el.switcher.value = selected;
  el.switcher.disabled = false;
  setOrganizationId(selected);
  showOrganization();
  await loadProjects();
}

void start();
