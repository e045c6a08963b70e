import { api, ApiError } from './api.js';
import { $, element, messageOf, setMessage } from './dom.js';
import { peopleNamer, when } from './revision-people.js';

/**
 * A test's revisions, newest first: who, when, why and which fields. Members restore an
 * earlier one; the restore is conditioned (If-Match) on the newest revision shown, so it
 * never undoes a change this list has not shown (docs/test-revisions.md).
 *
 * @typedef {{ revision: number, created_at: string, changed_by: string, source: string, changed_fields: string[], restored_from: number | null }} Revision
 */

const el = {
  panel: $('test-history'),
  heading: $('test-history-heading'),
  status: $('test-history-status'),
  list: $('test-history-list'),
  close: /** @type {HTMLButtonElement} */ ($('test-history-close')),
};

/** Revisions shown (the API keeps the newest 100). */
const SHOWN = 100;
const SOURCE_WORDS = /** @type {Record<string, string>} */ ({ created: 'created', edited: 'edited', restored: 'restored', autonomous_loop: 'autonomous loop', before_history: 'before history was kept' });

/** @type {{ id: string, name: string, canRestore: boolean, onRestored: () => void } | undefined} */
let shown;
/** Bumped on every open and close: a late answer for a history since closed changes nothing. */
let opening = 0;

/**
 * @param {Revision} r
 * @param {(by: string) => string} name
 * @param {number} newest the revision a restore is conditioned on
 */
function revisionRow(r, name, newest) {
  const li = element('li', { className: 'test-history-row', testid: 'test-history-row' });
  li.dataset.revision = String(r.revision);
  const why = SOURCE_WORDS[r.source] ?? r.source;
  const from = r.restored_from ? ` revision ${r.restored_from}` : '';
  const fields = r.changed_fields.length ? ` · ${r.changed_fields.join(', ')}` : '';
  li.append(element('span', { testid: 'test-history-text', text: `Revision ${r.revision} · ${why}${from} · ${name(r.changed_by)} · ${when(r.created_at)}${fields}` }));
  if (shown?.canRestore && r.revision !== newest) {
    const restore = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: 'test-history-restore', text: 'Restore' }));
    restore.type = 'button';
    restore.setAttribute('aria-label', `Restore revision ${r.revision}`);
    restore.addEventListener('click', () => void restoreRevision(r.revision, newest, restore));
    li.append(restore);
  }
  return li;
}

/**
 * @param {number} revision
 * @param {number} newest
 * @param {HTMLButtonElement} button
 */
async function restoreRevision(revision, newest, button) {
  const target = shown;
  if (!target) return;
  button.disabled = true;
  try {
    const test = await api(`/api/tests/${encodeURIComponent(target.id)}/revisions/${revision}/restore`, { method: 'POST', headers: { 'If-Match': `"${newest}"` }, body: {} });
    if (target !== shown) return;
    target.onRestored();
    await load();
    setMessage(el.status, `Restored revision ${revision} as revision ${test.revision}.`);
  } catch (err) {
    if (target !== shown) return;
    button.disabled = false;
    const stale = err instanceof ApiError && err.status === 412;
    setMessage(el.status, stale ? 'Not restored: the test changed since this list was read. The list now shows its latest history.' : `Not restored: ${messageOf(err)}`);
    if (stale) await load(false);
  }
}

/** @param {boolean} [clearStatus] */
async function load(clearStatus = true) {
  const mine = opening;
  const target = shown;
  if (!target) return;
  if (clearStatus) setMessage(el.status, 'Loading…');
  try {
    const [page, name] = await Promise.all([api(`/api/tests/${encodeURIComponent(target.id)}/revisions?limit=${SHOWN}`), peopleNamer()]);
    if (mine !== opening) return;
    const items = /** @type {Revision[]} */ (page.items);
    const newest = items[0]?.revision ?? 0;
    el.list.replaceChildren(...items.map((r) => revisionRow(r, name, newest)));
    if (clearStatus) setMessage(el.status, items.length ? '' : 'No revisions kept.');
  } catch (err) {
    if (mine === opening) setMessage(el.status, `Could not load the history: ${messageOf(err)}`);
  }
}

/**
 * Shows a test's history.
 * @param {{ id: string, name: string }} test
 * @param {{ canRestore: boolean, onRestored: () => void }} options
 */
export function openHistory(test, { canRestore, onRestored }) {
  opening++;
  shown = { id: test.id, name: test.name, canRestore, onRestored };
  el.heading.textContent = `History · ${test.name}`;
  el.list.replaceChildren();
  el.panel.hidden = false;
  el.panel.scrollIntoView({ block: 'nearest' });
  void load();
}

export function closeHistory() {
  opening++;
  shown = undefined;
  el.list.replaceChildren();
  setMessage(el.status);
  el.panel.hidden = true;
}

el.close.addEventListener('click', closeHistory);
