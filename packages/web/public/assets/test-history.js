import { api, ApiError } from './api.js';
import { $, element, messageOf, setMessage } from './dom.js';
import { when } from './revision-people.js';
import { foldUnchanged, lineDiff } from './line-diff.js';

/**
 * A test's revisions, newest first: who, when, why and which fields, and on request the
 * lines of the definition a revision changed (Changes). Members restore an earlier one; the restore is conditioned (If-Match) on the newest revision shown, so it
 * never undoes a change this list has not shown (docs/test-revisions.md).
 *
 * @typedef {{ revision: number, created_at: string, changed_by: string, changed_by_name: string, source: string, changed_fields: string[], restored_from: number | null }} Revision
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
 * @param {number} newest the revision a restore is conditioned on
 */
function revisionRow(r, newest) {
  const li = element('li', { className: 'test-history-row', testid: 'test-history-row' });
  li.dataset.revision = String(r.revision);
  const why = SOURCE_WORDS[r.source] ?? r.source;
  const from = r.restored_from ? ` revision ${r.restored_from}` : '';
  const fields = r.changed_fields.length ? ` · ${r.changed_fields.join(', ')}` : '';
  li.append(element('span', { testid: 'test-history-text', text: `Revision ${r.revision} · ${why}${from} · ${r.changed_by_name} · ${when(r.created_at)}${fields}` }));
  if (r.revision > 1) li.append(changesButton(r.revision, li));
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
 * A definition as lines to compare: keys in one order at every depth (`type` and `name`
 * first, then alphabetical), so two revisions written by different code never differ by
 * key order alone.
 * @param {unknown} value
 * @returns {unknown}
 */
function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (!value || typeof value !== 'object') return value;
  const rank = (/** @type {string} */ k) => (k === 'type' ? 0 : k === 'name' ? 1 : 2);
  const keys = Object.keys(value).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return Object.fromEntries(keys.map((k) => [k, canonical(/** @type {Record<string, unknown>} */ (value)[k])]));
}

/** @param {unknown} definition */
const linesOf = (definition) => JSON.stringify(canonical(definition), null, 2).split('\n');

/**
 * "Changes": the lines of the definition this revision changed against the one before,
 * folded to three lines of context; shown under the row, and hidden by a second click.
 * @param {number} revision
 * @param {HTMLElement} row
 */
function changesButton(revision, row) {
  const button = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: 'test-history-changes', text: 'Changes' }));
  button.type = 'button';
  button.setAttribute('aria-label', `What revision ${revision} changed`);
  button.setAttribute('aria-expanded', 'false');
  /** @type {HTMLElement | undefined} */
  let shownDiff;
  button.addEventListener('click', async () => {
    if (shownDiff) {
      shownDiff.remove();
      shownDiff = undefined;
      button.setAttribute('aria-expanded', 'false');
      return;
    }
    const target = shown;
    if (!target) return;
    button.disabled = true;
    const pre = element('pre', { className: 'line-diff', testid: 'test-history-diff' });
    try {
      const at = (/** @type {number} */ n) => api(`/api/tests/${encodeURIComponent(target.id)}/revisions/${n}`);
      const [before, after] = await Promise.all([at(revision - 1).catch((err) => (err instanceof ApiError && err.status === 404 ? undefined : Promise.reject(err))), at(revision)]);
      if (target !== shown) return;
      if (!before) pre.textContent = `Revision ${revision - 1} is no longer kept (the newest 100 are), so there is nothing to compare with.`;
      else {
        for (const line of foldUnchanged(lineDiff(linesOf(before.definition), linesOf(after.definition)))) {
          const kind = line.op === '+' ? 'diff-add' : line.op === '-' ? 'diff-del' : line.op === ' ' ? 'diff-same' : 'diff-skip';
          const text = line.op === '…' ? `… ${line.skipped} unchanged line${line.skipped === 1 ? '' : 's'}` : `${line.op} ${line.text}`;
          pre.append(element('span', { className: kind, testid: kind, text: `${text}\n` }));
        }
      }
    } catch (err) {
      if (target !== shown) return;
      pre.textContent = `Could not load the changes: ${messageOf(err)}`;
    } finally {
      button.disabled = false;
    }
    shownDiff = pre;
    row.append(pre);
    button.setAttribute('aria-expanded', 'true');
  });
  return button;
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
    const page = await api(`/api/tests/${encodeURIComponent(target.id)}/revisions?limit=${SHOWN}`);
    if (mine !== opening) return;
    const items = /** @type {Revision[]} */ (page.items);
    const newest = items[0]?.revision ?? 0;
    el.list.replaceChildren(...items.map((r) => revisionRow(r, newest)));
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
