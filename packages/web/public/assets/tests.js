import { api, ApiError } from './api.js';
import { $, deleteButton, element, listLoader, messageOf, setMessage } from './dom.js';
import { badgeClass, resetRuns, startRun } from './test-run.js';
import { closeEditor, openEditor, openNewTest } from './test-editor.js';
import { closeHistory, openHistory } from './test-history.js';
import { closeTestComments, openTestComments } from './test-comments.js';

/**
 * The tests of one project: name, kind, priority, tags, the number of parameter sets of a
 * parameterised test, and the outcome of its latest run (the API keeps it in the test's
 * status). Everyone may look (the API lets viewers list tests and read runs); members and
 * admins also write a new test (New test, in the editor), run one test or all of them, retry a failed case, quarantine a test (it runs,
 * but its failure no longer fails runs) or release it, edit a test (test-editor.js), restore
 * an earlier revision from its history (test-history.js; everyone may read it), and delete
 * a test (the API enforces the same). Everyone reads a test's review comments (Comments,
 * test-comments.js); members write them. The run started last is followed under the list (test-run.js).
 *
 * @typedef {{ name: string, values: Record<string, unknown> }} ParameterSet
 * @typedef {{ reason: string, since: string, by: string | null }} Quarantine
 * @typedef {{ id: string, project_id: string, name: string, type: string, status: string, priority: string, tags: string[], parameter_sets: ParameterSet[], quarantine: Quarantine | null }} Test
 * @typedef {{ id: string, name: string }} ProjectRef
 */

const el = {
  panel: $('tests'),
  heading: $('tests-heading'),
  close: /** @type {HTMLButtonElement} */ ($('tests-close')),
  runAll: /** @type {HTMLButtonElement} */ ($('tests-run-all')),
  newTest: /** @type {HTMLButtonElement} */ ($('tests-new')),
  status: $('tests-status'),
  list: $('tests-list'),
  more: /** @type {HTMLButtonElement} */ ($('tests-more')),
};

/** Tests shown per page (the API's pages go up to 200). */
const PAGE = 100;
/** Tests one run takes at most (the API's limit on test_ids). */
const MAX_RUN = 1000;
/** A test's latest status in words; "pending" means it never ran. */
const STATUS_WORDS = /** @type {Record<string, string>} */ ({ pending: 'not run yet' });

/** @type {{ project: ProjectRef, canRun: boolean } | undefined} */
let current;
/**
 * Which opening the panel shows. Bumped on every open and close, so a row action or a page
 * that arrives for a closed panel, or for the project shown before, changes nothing.
 */
let opened = 0;
/** @type {string | null} where the next page starts */
let nextCursor = null;
/** Bumped on every load: only the latest one sets where the next page starts. */
let loads = 0;
const tests = listLoader({ status: el.status, list: el.list, empty: 'No tests yet: write one with New test, let Discover & test write them from the app, start from a template (Templates), or create them through the API, the MCP tools or svc.', what: 'the tests' });

const id = encodeURIComponent;

/** Kind, priority and tags, in one line. @param {Test} test */
function detailOf(test) {
  const tags = test.tags.length ? ` · tags ${test.tags.join(', ')}` : '';
  return `${test.type} · ${test.priority} priority${tags}`;
}

/** @param {Test} test */
function testRow(test) {
  const li = element('li', { className: 'test-row', testid: 'test-row' });
  li.dataset.id = test.id;

  const about = element('div', { className: 'test-about' });
  const head = element('div', { className: 'test-head' });
  head.append(element('span', { className: 'test-name', testid: 'test-row-name', text: test.name }));
  const sets = test.parameter_sets.length;
  if (sets) head.append(element('span', { className: 'badge', testid: 'test-row-sets', text: `${sets} parameter set${sets === 1 ? '' : 's'}` }));
  if (test.quarantine) {
    const badge = element('span', { className: 'badge badge-paused', testid: 'test-row-quarantined', text: 'quarantined' });
    badge.title = test.quarantine.reason;
    head.append(badge);
  }
  about.append(head, element('span', { className: 'muted test-detail', testid: 'test-row-detail', text: detailOf(test) }));
  if (test.quarantine) about.append(element('span', { className: 'muted test-detail', testid: 'test-row-quarantine-reason', text: `Quarantined: ${test.quarantine.reason} — its failures do not fail runs` }));

  const status = element('span', { className: badgeClass(test.status), testid: 'test-row-status', text: STATUS_WORDS[test.status] ?? test.status });
  status.setAttribute('aria-label', `Latest run: ${STATUS_WORDS[test.status] ?? test.status}`);

  const actions = element('span', { className: 'test-actions' });
  const reload = reloadFor(opened);
  const history = rowButton('History', 'test-row-history', test, () => openHistory(test, { canRestore: !!current?.canRun, onRestored: () => void reload() }));
  const comments = rowButton('Comments', 'test-row-comments', test, () => openTestComments(test, { canWrite: !!current?.canRun }));
  comments.setAttribute('aria-label', `Comments on ${test.name}`);
  actions.append(history, comments);
  if (current?.canRun) {
    actions.append(rowButton('Edit', 'test-row-edit', test, () => void openEditor(test.id, { onSaved: () => void reload() })));
    const run = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: 'test-row-run', text: 'Run' }));
    run.type = 'button';
    run.setAttribute('aria-label', `Run ${test.name}`);
    run.addEventListener('click', () => void startRun(test.name, () => api('/api/v1/test/run', { method: 'POST', body: { project_id: test.project_id, test_ids: [test.id], trigger: 'manual' } })));
    actions.append(
      run,
      quarantineButton(test),
      deleteButton({
        verb: 'Delete',
        testid: 'test-delete',
        item: `test ${test.name}`,
        path: `/api/tests/${id(test.id)}`,
        status: el.status,
        reload: async () => {
          closeTestComments(test.id);
          await reload();
        },
        confirm: `Delete the test “${test.name}”? Its past results stay with their runs.`,
      }),
    );
  }
  li.append(about, status, actions);
  return li;
}

/**
 * A small row button named for its test.
 * @param {string} verb
 * @param {string} testid
 * @param {Test} test
 * @param {() => void} onClick
 */
function rowButton(verb, testid, test, onClick) {
  const button = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid, text: verb }));
  button.type = 'button';
  button.setAttribute('aria-label', `${verb} ${test.name}`);
  button.addEventListener('click', onClick);
  return button;
}

/**
 * Quarantine (asking why: the reason is shown wherever the test's failures are) or Release.
 * A refusal is said in the panel's status line.
 * @param {Test} test
 */
function quarantineButton(test) {
  const quarantined = !!test.quarantine;
  const button = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: quarantined ? 'test-row-release' : 'test-row-quarantine', text: quarantined ? 'Release' : 'Quarantine' }));
  button.type = 'button';
  button.setAttribute('aria-label', `${quarantined ? 'Release' : 'Quarantine'} ${test.name}`);
  const reload = reloadFor(opened);
  button.addEventListener('click', async () => {
    /** @type {string | null} */
    let reason = null;
    if (!quarantined) {
      reason = prompt(`Why quarantine “${test.name}”? It keeps running, but its failures will not fail runs.`);
      if (reason === null) return;
    }
    button.disabled = true;
    try {
      await api(`/api/tests/${id(test.id)}/quarantine`, quarantined ? { method: 'DELETE' } : { method: 'POST', body: { reason } });
      await reload();
    } catch (err) {
      button.disabled = false;
      setMessage(el.status, `Could not ${quarantined ? 'release' : 'quarantine'} ${test.name}: ${messageOf(err)}`);
    }
  });
  return button;
}

/** @param {boolean} [append] load the next page under the rows shown */
async function load(append = false) {
  const mine = ++loads;
  const projectId = current?.project.id ?? '';
  const query = append && nextCursor ? `&cursor=${id(nextCursor)}` : '';
  el.more.hidden = true;
  /** @type {string | null} */
  let more = null;
  await tests.load(async () => {
    const page = await api(`/api/tests?project_id=${id(projectId)}&limit=${PAGE}${query}`);
    more = page.next_cursor ?? null;
    return page;
  }, testRow, { append });
  if (mine !== loads) return;
  nextCursor = more;
  el.more.hidden = !more;
}

/** A reload that does nothing once the panel was closed or shows another project. @param {number} mine */
const reloadFor = (mine) => async () => {
  if (mine === opened) await load();
};

/**
 * Every test id of the project, oldest first as schedules run them, fetched afresh (the
 * list may show one page only); at most MAX_RUN.
 * @param {string} projectId
 */
async function allTestIds(projectId) {
  /** @type {string[]} */
  const ids = [];
  /** @type {string | null} */
  let cursor = null;
  do {
    const page = await api(`/api/tests?project_id=${id(projectId)}&limit=200${cursor ? `&cursor=${id(cursor)}` : ''}`);
    ids.push(...page.items.map((/** @type {Test} */ t) => t.id));
    cursor = page.next_cursor ?? null;
  } while (cursor && ids.length < MAX_RUN);
  return ids.slice(0, MAX_RUN).reverse();
}

el.runAll.addEventListener('click', () => {
  if (!current) return;
  const projectId = current.project.id;
  void startRun('all tests', async () => {
    const ids = await allTestIds(projectId);
    if (!ids.length) throw new ApiError(400, 'NO_TESTS', 'the project has no tests yet.');
    return api('/api/v1/test/run', { method: 'POST', body: { project_id: projectId, test_ids: ids, trigger: 'manual' } });
  });
});

el.newTest.addEventListener('click', () => {
  if (!current) return;
  const reload = reloadFor(opened);
  openNewTest(current.project, { onSaved: () => void reload() });
});

el.more.addEventListener('click', () => void load(true));
el.close.addEventListener('click', closeTests);

/**
 * Shows the tests of a project.
 * @param {ProjectRef} project
 * @param {{ canRun: boolean }} options members and admins run, retry and delete; viewers look
 */
export function openTests(project, { canRun }) {
  opened++;
  current = { project, canRun };
  const mine = opened;
  el.heading.textContent = `Tests · ${project.name}`;
  el.runAll.hidden = !canRun;
  el.newTest.hidden = !canRun;
  el.list.replaceChildren();
  nextCursor = null;
  closeEditor();
  closeHistory();
  closeTestComments();
  // A finished run changed the latest statuses: the list is read again.
  resetRuns({ canRetry: canRun, onFinished: () => void reloadFor(mine)() });
  el.panel.hidden = false;
  el.panel.scrollIntoView({ block: 'nearest' });
  void load();
}

/**
 * Reads the list again when it shows this project (a test was made elsewhere in the
 * dashboard, e.g. from a template); otherwise does nothing.
 * @param {string} projectId
 */
export function refreshTestsOf(projectId) {
  if (current?.project.id === projectId) void reloadFor(opened)();
}

export function closeTests() {
  opened++;
  current = undefined;
  tests.cancel();
  resetRuns();
  closeEditor();
  closeHistory();
  closeTestComments();
  el.list.replaceChildren();
  setMessage(el.status);
  el.more.hidden = true;
  el.panel.hidden = true;
}
