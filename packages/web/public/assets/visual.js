import { api } from './api.js';
import { $, deleteButton, disclosureButton, element, listLoader } from './dom.js';
import { commentsSection } from './comments.js';

/**
 * The visual baselines of one project: the accepted screenshot each visual assertion is
 * compared with, by test and name, with the image itself. Members and admins may delete
 * one (the next run records a new baseline); viewers look. Each baseline's review comments
 * open under its row (Comments; comments.js): everyone reads, members write. Images are fetched with the
 * session's headers (an <img src> could not send the organization header) and shown as
 * object URLs, released when the list is replaced.
 *
 * @typedef {{ id: string, test_id: string, project_id: string, name: string, screenshot_hash: string, metadata: { width?: number, height?: number }, created_at: string, updated_at: string }} Baseline
 * @typedef {{ id: string, name: string }} ProjectRef
 */

const el = {
  panel: $('baselines'),
  heading: $('baselines-heading'),
  close: /** @type {HTMLButtonElement} */ ($('baselines-close')),
  status: $('baselines-status'),
  list: $('baselines-list'),
  more: $('baselines-more'),
};

/** Baselines shown at once (the API's page size). */
const PAGE = 100;

/** @type {{ project: ProjectRef, canDelete: boolean } | undefined} canDelete: a member's or an admin's, who also comment */
let current;
/** @type {Map<string, string>} the project's test names by id, for the rows (a test id says nothing to a reader) */
let testNames = new Map();
/** @type {string[]} object URLs of the images on screen */
let imageUrls = [];
/** Which load the rows on screen belong to; an image arriving for an older one is dropped. */
let loaded = 0;
const baselines = listLoader({ status: el.status, list: el.list, empty: 'No baselines yet: a test’s first run with a visual assertion records them.', what: 'the baselines' });

function releaseImages() {
  loaded++;
  for (const url of imageUrls) URL.revokeObjectURL(url);
  imageUrls = [];
}

/** @param {Baseline} baseline */
function baselineRow(baseline) {
  const li = element('li', { className: 'baseline-row', testid: 'baseline-row' });
  li.dataset.id = baseline.id;
  const figure = element('figure', { className: 'baseline-image' });
  const img = /** @type {HTMLImageElement} */ (element('img', { testid: 'baseline-image' }));
  img.alt = `Baseline ${baseline.name}`;
  figure.append(img);
  const list = loaded;
  void api(`/api/visual/baselines/${encodeURIComponent(baseline.id)}/image`, { as: 'blob' })
    .then((blob) => {
      if (list !== loaded) return; // the list was replaced or closed meanwhile: no URL to leak
      const url = URL.createObjectURL(blob);
      imageUrls.push(url);
      img.src = url;
    })
    .catch(() => figure.replaceChildren(element('p', { className: 'muted', text: 'Image not available.' })));

  const size = baseline.metadata.width && baseline.metadata.height ? ` · ${baseline.metadata.width}×${baseline.metadata.height}` : '';
  const about = element('div', { className: 'baseline-about' });
  about.append(
    element('span', { className: 'baseline-name', testid: 'baseline-name', text: baseline.name }),
    element('span', { className: 'muted', testid: 'baseline-detail', text: `${testNames.has(baseline.test_id) ? `test “${testNames.get(baseline.test_id)}”` : `test ${baseline.test_id}`}${size} · updated ${new Date(baseline.updated_at).toLocaleString()}` }),
  );
  const actions = element('span', { className: 'baseline-actions' });
  const comments = element('div', { className: 'baseline-comments', testid: 'baseline-comments' });
  comments.id = `baseline-comments-${baseline.id}`;
  comments.hidden = true;
  const canWrite = !!current?.canDelete;
  actions.append(disclosureButton({
    text: 'Comments', testid: 'baseline-comments-toggle', label: `Comments on baseline ${baseline.name}`, failure: 'Could not show the comments', status: el.status,
    current: () => list === loaded,
    panel: comments,
    opening: async () => {
      comments.replaceChildren(commentsSection({ targetType: 'visual_baseline', targetId: baseline.id, canWrite }).element);
    },
  }));
  if (current?.canDelete) {
    actions.append(deleteButton({ verb: 'Delete', testid: 'baseline-delete', item: `baseline ${baseline.name}`, path: `/api/visual/baselines/${encodeURIComponent(baseline.id)}`, status: el.status, reload: load, confirm: `Delete the baseline “${baseline.name}”? The next run records a new one from whatever the page shows then.` }));
  }
  li.append(figure, about, actions, comments);
  return li;
}

/** @returns {Promise<void>} */
const load = async () => {
  releaseImages();
  /** @type {string | null} */
  let more = null;
  await baselines.load(async () => {
    const projectId = encodeURIComponent(current?.project.id ?? '');
    const [page, names] = await Promise.all([api(`/api/visual/baselines?limit=${PAGE}&project_id=${projectId}`), testNamesOf(projectId)]);
    testNames = names;
    more = page.next_cursor ?? null;
    return page;
  }, baselineRow);
  // A project with more baselines than a page says so rather than look complete.
  el.more.hidden = !more;
};

/**
 * The project's test names by id (its first 200 tests, summaries); none when they cannot be
 * read — the rows then name tests by id.
 * @param {string} projectId encoded
 * @returns {Promise<Map<string, string>>}
 */
async function testNamesOf(projectId) {
  try {
    /** @type {{ items: Array<{ id: string, name: string }> }} */
    const page = await api(`/api/tests?project_id=${projectId}&view=summary&limit=200`);
    return new Map(page.items.map((t) => [t.id, t.name]));
  } catch {
    return new Map();
  }
}

el.close.addEventListener('click', closeBaselines);

/**
 * Shows the visual baselines of a project.
 * @param {ProjectRef} project
 * @param {{ canDelete: boolean }} options
 */
export function openBaselines(project, { canDelete }) {
  current = { project, canDelete };
  el.heading.textContent = `Visual baselines · ${project.name}`;
  el.list.replaceChildren();
  el.panel.hidden = false;
  el.panel.scrollIntoView({ block: 'nearest' });
  void load();
}

export function closeBaselines() {
  current = undefined;
  el.more.hidden = true;
  baselines.cancel();
  releaseImages();
  el.list.replaceChildren();
  el.panel.hidden = true;
}
