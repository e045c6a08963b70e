import { api } from './api.js';
import { $, clearFieldErrors, element, setMessage, showFieldError, showFieldErrors } from './dom.js';
import { allProjects } from './projects.js';

/**
 * The search box above the projects: `GET /api/quality/semantic-search` over the
 * organization's tests, failures and heals (docs/search.md), for every role (the API lets
 * viewers search). It searches the project opened last (a project row's panel button, or a
 * result's) or every project, and only the kinds ticked (none ticked: all three). A failure result opens
 * its run in the project's Tests panel; a test result opens that panel.
 *
 * @typedef {{ id: string, name: string }} ProjectRef
 * @typedef {{ kind: 'test' | 'failure' | 'heal', id: string, score: number, title: string, snippet: string, project_id: string | null, links: Record<string, string> }} SearchResult
 * @typedef {{ provider: string, model: string, fallback?: boolean, reason?: string }} Embedder
 * @typedef {{ query: string, embedder: Embedder, results: SearchResult[], searched: { tests: number, failures: number, heals: number, truncated: boolean } }} SearchAnswer
 * @typedef {{ openTests: (project: ProjectRef) => void, showRun: (project: ProjectRef, what: string, runId: string) => void }} SearchActions
 */

const el = {
  form: /** @type {HTMLFormElement} */ ($('search-form')),
  q: /** @type {HTMLInputElement} */ ($('search-q')),
  qError: $('search-q-error'),
  scope: /** @type {HTMLSelectElement} */ ($('search-scope')),
  scopeError: $('search-scope-error'),
  kinds: $('search-kinds'),
  kindsError: $('search-kinds-error'),
  error: $('search-error'),
  status: $('search-status'),
  fallback: $('search-fallback'),
  results: $('search-results'),
};

const kindInputs = /** @type {HTMLInputElement[]} */ ([...el.kinds.querySelectorAll('input[name="kinds"]')]);

/** The form's fields by the name the API's issues use. */
const FIELDS = /** @type {Record<string, import('./dom.js').FormField>} */ ({
  q: { inputs: [el.q], error: el.qError, emptyMessage: 'Type what to search for.' },
  project_id: { inputs: [/** @type {any} */ (el.scope)], error: el.scopeError },
  kinds: { inputs: kindInputs, error: el.kindsError, empty: () => false },
});

const KIND_WORDS = /** @type {Record<string, string>} */ ({ test: 'test', failure: 'failure', heal: 'heal' });

/** @type {SearchActions | undefined} */
let actions;
/** @type {ProjectRef | undefined} the project opened last */
let scoped;
/** The organization's projects by id, read once per organization for result rows' names. @type {Promise<Map<string, string>> | undefined} */
let names;
/** Bumped on every search and organization change: an older answer is dropped. */
let seq = 0;

/** @param {SearchActions} a what the results' buttons do (app.js knows the role) */
export function setupSearch(a) {
  actions = a;
}

/**
 * The project the search offers as its scope (the one opened last), chosen as the scope.
 * @param {ProjectRef} project
 */
export function searchProject(project) {
  scoped = project;
  const option = new Option(`${project.name} (this project)`, project.id);
  option.dataset.testid = 'search-scope-project';
  el.scope.replaceChildren(new Option('All projects', ''), option);
  el.scope.value = project.id;
}

/** Another organization: no project scope, its own project names, nothing shown. */
export function searchOrganizationChanged() {
  seq++;
  scoped = undefined;
  names = undefined;
  el.scope.replaceChildren(new Option('All projects', ''));
  el.results.replaceChildren();
  clearFieldErrors(FIELDS, el.error);
  setMessage(el.status);
  setMessage(el.fallback);
}

/** A new project has a name the cache lacks. */
export function searchProjectsChanged() {
  names = undefined;
}

/** @returns {Promise<Map<string, string>>} */
function projectNames() {
  const mine = seq;
  names ??= allProjects(() => mine === seq).then((list) => new Map(list.map((p) => [p.id, p.name])));
  return names;
}

/** The run id in a failure's `links.run` ("/api/v1/test/status/{run}"). @param {SearchResult} result */
function runIdOf(result) {
  const link = result.links?.run ?? '';
  const match = /\/test\/status\/([^/?#]+)/.exec(link);
  return match ? decodeURIComponent(match[1]) : '';
}

/**
 * @param {SearchResult} result
 * @param {Map<string, string>} projects
 */
function resultRow(result, projects) {
  const li = element('li', { className: 'search-result', testid: 'search-result' });
  li.dataset.kind = result.kind;
  li.dataset.id = result.id;
  const kind = KIND_WORDS[result.kind] ?? result.kind;
  const percent = `${Math.round(result.score * 100)}%`;
  const projectName = result.project_id ? (projects.get(result.project_id) ?? result.project_id) : 'every project';
  li.setAttribute('aria-label', `${kind}: ${result.title}, ${projectName}, score ${percent}`);

  const about = element('div', { className: 'search-result-about' });
  const head = element('div', { className: 'search-result-head' });
  head.append(
    element('span', { className: `badge badge-kind-${result.kind}`, testid: 'search-result-kind', text: kind }),
    element('span', { className: 'search-result-title', testid: 'search-result-title', text: result.title }),
    element('span', { className: 'muted', testid: 'search-result-project', text: projectName }),
  );
  about.append(head);

  const side = element('div', { className: 'search-result-actions' });
  const score = element('span', { className: 'muted', testid: 'search-result-score', text: percent });
  score.setAttribute('aria-label', `score ${percent}`);
  side.append(score);
  const project = result.project_id ? { id: result.project_id, name: projectName } : undefined;
  if (project && result.kind === 'failure') {
    const runId = runIdOf(result);
    if (runId) side.append(button('Open run', 'search-result-open-run', `Open the run of ${result.title} in ${projectName}`, () => {
      searchProject(project);
      actions?.showRun(project, result.title, runId);
    }));
  }
  if (project && (result.kind === 'test' || result.kind === 'failure')) {
    side.append(button('Tests', 'search-result-open-tests', `Tests of ${projectName}`, () => {
      searchProject(project);
      actions?.openTests(project);
    }));
  }

  li.append(about, side, element('p', { className: 'muted search-result-snippet', testid: 'search-result-snippet', text: result.snippet }));
  return li;
}

/**
 * @param {string} text
 * @param {string} testid
 * @param {string} label
 * @param {() => void} onClick
 */
function button(text, testid, label, onClick) {
  const node = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid, text }));
  node.type = 'button';
  node.setAttribute('aria-label', label);
  node.addEventListener('click', onClick);
  return node;
}

async function search() {
  const mine = ++seq;
  clearFieldErrors(FIELDS, el.error);
  setMessage(el.fallback);
  const q = el.q.value.trim();
  if (!q) {
    // Nothing to search for: said under the field, and no request the API would refuse.
    el.results.replaceChildren();
    el.results.setAttribute('aria-busy', 'false');
    setMessage(el.status);
    showFieldError(FIELDS.q, FIELDS.q.emptyMessage ?? 'This field is required.');
    el.q.focus();
    return;
  }
  const params = new URLSearchParams({ q });
  if (el.scope.value) params.set('project_id', el.scope.value);
  const kinds = kindInputs.filter((i) => i.checked).map((i) => i.value);
  if (kinds.length) params.set('kinds', kinds.join(','));
  setMessage(el.status, 'Searching…');
  el.results.setAttribute('aria-busy', 'true');
  try {
    /** @type {SearchAnswer} */
    const answer = await api(`/api/quality/semantic-search?${params}`);
    const projects = await projectNames();
    if (mine !== seq) return;
    el.results.replaceChildren(...answer.results.map((r) => resultRow(r, projects)));
    const where = el.scope.value && scoped ? ` in ${scoped.name}` : '';
    const n = answer.results.length;
    setMessage(el.status, n ? `${n} result${n === 1 ? '' : 's'}${where}, best first.` : `Nothing found${where} for “${answer.query}”.`);
    if (answer.embedder?.fallback) setMessage(el.fallback, `Ranked by words only: ${answer.embedder.reason ?? 'the embedder failed.'}`);
  } catch (err) {
    if (mine !== seq) return;
    el.results.replaceChildren();
    setMessage(el.status);
    showFieldErrors(err, { fields: FIELDS, formError: el.error, form: el.form });
  } finally {
    if (mine === seq) el.results.setAttribute('aria-busy', 'false');
  }
}

// Enter in the field submits the form.
el.form.addEventListener('submit', (event) => {
  event.preventDefault();
  const submit = /** @type {HTMLButtonElement} */ (el.form.querySelector('button[type="submit"]'));
  submit.disabled = true;
  void search().finally(() => {
    submit.disabled = false;
  });
});
