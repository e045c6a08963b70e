import { api } from './api.js';
import { $, messageOf, setMessage } from './dom.js';
import { clustersView, codeView, flakyView, gapsView, heatmapView, qualityView, runsView } from './insights-views.js';

/**
 * The insights of one project: its quality score, flaky tests, failure heatmap, failure
 * clusters, latest runs, untested pages and untested code (the routes and pages of its
 * analysed codebase that no passing test reaches), computed by the API from the project's
 * latest finished runs each time the panel opens. Everyone may look (the API lets viewers
 * read them). The seven answers load
 * in parallel and each fills its own section, so one that fails (or is slow) says so in its
 * place without holding back the others.
 *
 * @typedef {{ id: string, name: string }} ProjectRef
 * @typedef {import('./insights-views.js').View} View
 * @typedef {{ openRun?: (runId: string, what: string) => void }} InsightActions
 * @typedef {{ key: string, path: (projectId: string) => string, view: (data: any, actions: InsightActions) => View }} Source
 */

const el = {
  panel: $('insights'),
  heading: $('insights-heading'),
  close: /** @type {HTMLButtonElement} */ ($('insights-close')),
};

const id = encodeURIComponent;

/**
 * What each section asks for and how it shows the answer. `key` names its elements in the
 * page: #insights-<key>-status and #insights-<key>-body.
 * @type {Source[]}
 */
const SOURCES = [
  { key: 'quality', path: (p) => `/api/quality/score?project_id=${id(p)}`, view: qualityView },
  { key: 'flaky', path: (p) => `/api/quality/flaky-ranking?project_id=${id(p)}&limit=20`, view: flakyView },
  { key: 'heatmap', path: (p) => `/api/analytics/heatmap?project_id=${id(p)}&bucket=day&limit=20`, view: heatmapView },
  { key: 'clusters', path: (p) => `/api/analytics/failure-clusters?project_id=${id(p)}&limit=10`, view: clustersView },
  { key: 'runs', path: (p) => `/api/analytics/timeline?project_id=${id(p)}`, view: runsView },
  { key: 'gaps', path: (p) => `/api/coverage/gaps?project_id=${id(p)}&limit=10`, view: gapsView },
  { key: 'code', path: (p) => `/api/coverage/map?project_id=${id(p)}`, view: codeView },
];

/** What the section names in "Could not load …". */
const WHAT = {
  quality: 'the quality score',
  flaky: 'the flaky tests',
  heatmap: 'the failure heatmap',
  clusters: 'the failure clusters',
  runs: 'the latest runs',
  gaps: 'the untested pages',
  code: 'the untested code',
};

/** @type {InsightActions} what the sections' rows can open (set by openInsights) */
let actions = {};

/**
 * Which opening the sections on screen belong to. Bumped on every open and close, so an
 * answer for a closed panel, or for the project shown before, is dropped when it arrives.
 */
let opened = 0;

/** @param {Source} source */
const partsOf = (source) => ({ status: $(`insights-${source.key}-status`), body: $(`insights-${source.key}-body`) });

/**
 * Loads one section: "Loading…", then its view (or its empty message), or what went wrong.
 * @param {Source} source
 * @param {string} projectId
 * @param {number} mine the opening it loads for
 */
async function loadSection(source, projectId, mine) {
  const { status, body } = partsOf(source);
  body.replaceChildren();
  setMessage(status, 'Loading…');
  try {
    const data = await api(source.path(projectId));
    if (mine !== opened) return;
    const view = source.view(data, actions);
    body.replaceChildren(...view.nodes);
    setMessage(status, view.empty);
  } catch (err) {
    if (mine !== opened) return;
    body.replaceChildren();
    setMessage(status, `Could not load ${WHAT[/** @type {keyof WHAT} */ (source.key)]}: ${messageOf(err)}`);
  }
}

el.close.addEventListener('click', closeInsights);

/**
 * Shows the insights of a project.
 * @param {ProjectRef} project
 * @param {InsightActions} [options] openRun: a latest run's time opens it in the run view
 */
export function openInsights(project, options = {}) {
  const mine = ++opened;
  actions = options;
  el.heading.textContent = `Insights · ${project.name}`;
  el.panel.hidden = false;
  el.panel.setAttribute('aria-busy', 'true');
  el.panel.scrollIntoView({ block: 'nearest' });
  void Promise.allSettled(SOURCES.map((source) => loadSection(source, project.id, mine))).then(() => {
    if (mine === opened) el.panel.setAttribute('aria-busy', 'false');
  });
}

export function closeInsights() {
  opened++;
  for (const source of SOURCES) {
    const { status, body } = partsOf(source);
    body.replaceChildren();
    setMessage(status);
  }
  el.panel.removeAttribute('aria-busy');
  el.panel.hidden = true;
}
