import { api, ApiError } from './api.js';
import { $, jsonOf, listOf, messageOf, setMessage } from './dom.js';
import { peopleNamer, when } from './revision-people.js';

/**
 * Edits one test's name, description, priority, tags and steps. The editor remembers the
 * revision it loaded and sends it as If-Match, so a save never overwrites a change someone
 * made since: the API answers 412 and the editor says who changed the test and when,
 * keeping the edit in its fields until the person chooses to reload (docs/test-revisions.md).
 */

const el = {
  form: /** @type {HTMLFormElement} */ ($('test-editor')),
  heading: $('test-editor-heading'),
  name: /** @type {HTMLInputElement} */ ($('test-editor-name')),
  description: /** @type {HTMLTextAreaElement} */ ($('test-editor-description')),
  priority: /** @type {HTMLSelectElement} */ ($('test-editor-priority')),
  tags: /** @type {HTMLInputElement} */ ($('test-editor-tags')),
  steps: /** @type {HTMLTextAreaElement} */ ($('test-editor-steps')),
  error: $('test-editor-error'),
  status: $('test-editor-status'),
  reload: /** @type {HTMLButtonElement} */ ($('test-editor-reload')),
  close: /** @type {HTMLButtonElement} */ ($('test-editor-close')),
};

/** @type {{ id: string, revision: number, onSaved: () => void } | undefined} what the editor shows */
let editing;
/** Bumped on every open and close: a late answer for an editor since closed changes nothing. */
let opening = 0;

/** @param {{ name: string, description: string | null, priority: string, tags: string[], steps: unknown[] }} test */
function fill(test) {
  el.name.value = test.name;
  el.description.value = test.description ?? '';
  el.priority.value = test.priority;
  el.tags.value = test.tags.join(', ');
  el.steps.value = JSON.stringify(test.steps, null, 2);
}

/** @param {string} testId */
async function loadInto(testId) {
  const mine = opening;
  const test = await api(`/api/tests/${encodeURIComponent(testId)}`);
  if (mine !== opening || !editing) return;
  fill(test);
  editing.revision = test.revision;
  el.heading.textContent = `Edit test · ${test.name} (revision ${test.revision})`;
  el.reload.hidden = true;
  setMessage(el.error);
}

/**
 * Opens the editor on a test, read afresh (its revision is what a save is conditioned on).
 * @param {string} testId
 * @param {{ onSaved: () => void }} options onSaved: the list shows the change
 */
export async function openEditor(testId, { onSaved }) {
  opening++;
  editing = { id: testId, revision: 0, onSaved };
  setMessage(el.status);
  setMessage(el.error);
  el.form.hidden = false;
  try {
    await loadInto(testId);
    el.form.scrollIntoView({ block: 'nearest' });
  } catch (err) {
    setMessage(el.error, `Could not open the test: ${messageOf(err)}`);
  }
}

export function closeEditor() {
  opening++;
  editing = undefined;
  el.form.hidden = true;
}

/** The 412's words: who changed the test and when, and that the edit is still here. @param {ApiError} err */
async function staleMessage(err) {
  const details = err.details ?? {};
  const name = await peopleNamer();
  return `This test was changed by ${name(String(details.changed_by ?? 'someone'))} at ${details.changed_at ? when(details.changed_at) : 'an unknown time'} (now revision ${details.current_revision ?? '?'}) since you opened it — reload to see it; your edit is kept in the editor.`;
}

el.form.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!editing) return;
  const target = editing;
  const steps = jsonOf(el.steps);
  if (steps === undefined) {
    setMessage(el.error, 'Steps: not valid JSON (a list of steps, e.g. [{ "type": "goto", "url": "/" }]).');
    return;
  }
  setMessage(el.error);
  setMessage(el.status, 'Saving…');
  try {
    const saved = await api(`/api/tests/${encodeURIComponent(target.id)}`, {
      method: 'PATCH',
      headers: { 'If-Match': `"${target.revision}"` },
      body: { name: el.name.value, description: el.description.value.trim() ? el.description.value : null, priority: el.priority.value, tags: listOf(el.tags), steps },
    });
    if (target !== editing) return;
    target.revision = saved.revision;
    el.heading.textContent = `Edit test · ${saved.name} (revision ${saved.revision})`;
    setMessage(el.status, `Saved as revision ${saved.revision}.`);
    target.onSaved();
  } catch (err) {
    if (target !== editing) return;
    setMessage(el.status);
    if (err instanceof ApiError && err.status === 412) {
      setMessage(el.error, await staleMessage(err));
      el.reload.hidden = false;
    } else {
      setMessage(el.error, `Not saved: ${messageOf(err)}`);
    }
  }
});

el.reload.addEventListener('click', async () => {
  if (!editing) return;
  try {
    await loadInto(editing.id);
    setMessage(el.status, 'Reloaded: the editor shows the test as it is now.');
  } catch (err) {
    setMessage(el.error, `Could not reload the test: ${messageOf(err)}`);
  }
});

el.close.addEventListener('click', closeEditor);
