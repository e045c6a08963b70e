import { api } from './api.js';
import { element, messageOf, setMessage } from './dom.js';
import { bodyForm, threadItem } from './comment-thread.js';
import { peopleNamer } from './revision-people.js';
import { signedIn } from './session.js';

/**
 * Review comments on a run, a test or a visual baseline (docs/review-comments.md): the
 * threads, oldest first, each with its answers (comment-thread.js), how many are open, and a
 * form for a new thread — on a run, optionally about one of its tests. Everyone reads;
 * members write, answer, resolve and reopen; the author edits and deletes their comment,
 * an admin deletes anyone's (the API enforces the same). After every change the list is
 * read again, so what is shown is what the API keeps (a deleted first comment with answers
 * stays as "This comment was deleted."); the text being written in an open answer or edit
 * form stays through it. Bodies are plain text, set as text only.
 *
 * @typedef {import('./comment-thread.js').ReviewComment} ReviewComment
 * @typedef {{ id: string, name: string }} TestRef
 * @typedef {{ element: HTMLElement, aboutTest: (testId: string) => void }} CommentsSection
 */

/**
 * @param {{ targetType: 'run' | 'test' | 'visual_baseline' | 'generated_test', targetId: string, canWrite: boolean, tests?: TestRef[], titled?: boolean }} o
 *   `tests`: a run's tests, offered as what a new thread is about; `titled`: a "Comments" heading (default true; false where the panel has its own)
 * @returns {CommentsSection}
 */
export function commentsSection({ targetType, targetId, canWrite, tests = [], titled = true }) {
  const root = element('section', { className: 'comments', testid: 'comments' });
  root.setAttribute('aria-label', 'Comments');
  const header = element('div', { className: 'comments-header' });
  if (titled) header.append(element('h4', { text: 'Comments' }));
  const openCount = element('span', { className: 'badge badge-paused', testid: 'comments-open-count' });
  openCount.hidden = true;
  header.append(openCount);
  const status = element('p', { className: 'muted', testid: 'comments-status' });
  status.setAttribute('role', 'status');
  const failures = element('p', { className: 'alert', testid: 'comments-error' });
  failures.setAttribute('role', 'alert');
  failures.hidden = true;
  const list = element('ul', { className: 'comments-threads', testid: 'comments-threads' });
  root.append(header, status, failures, list);

  const me = signedIn();
  const testNames = new Map(tests.map((t) => [t.id, t.name]));
  /** @type {ReviewComment[]} */
  let items = [];
  /** @type {((actor: string) => string) | undefined} members' emails, read once a resolver is not an author here */
  let members;
  /** Bumped on every load: a slow answer never replaces a newer one. */
  let loads = 0;
  const path = (/** @type {string} */ id) => `/api/comments/${encodeURIComponent(id)}`;

  /** Reads the comments again (after a change: `quiet`, no "Loading…"). */
  async function load(quiet = false) {
    const mine = ++loads;
    if (!quiet) setMessage(status, 'Loading…');
    try {
      /** @type {{ items: ReviewComment[], open_threads: number }} */
      const page = await api(`/api/comments?target_type=${encodeURIComponent(targetType)}&target_id=${encodeURIComponent(targetId)}`);
      const authors = new Set(page.items.map((c) => c.author));
      if (!members && page.items.some((c) => c.resolved_by && !authors.has(c.resolved_by))) members = await peopleNamer();
      if (mine !== loads) return;
      items = page.items;
      openCount.textContent = `${page.open_threads} open thread${page.open_threads === 1 ? '' : 's'}`;
      openCount.className = page.open_threads ? 'badge' : 'badge badge-paused';
      openCount.hidden = false;
      redraw();
    } catch (err) {
      if (mine === loads) setMessage(status, `Could not load the comments: ${messageOf(err)}`);
    }
  }

  /** @param {string} actor */
  function nameOf(actor) {
    return items.find((c) => c.author === actor)?.author_email ?? (members ? members(actor) : actor);
  }

  /** @type {import('./comment-thread.js').ThreadContext} */
  const ctx = {
    canWrite,
    actor: me?.actor ?? '',
    admin: me?.role === 'admin',
    nameOf,
    testName: (testId) => (testNames.has(testId) ? `test ${testNames.get(testId)}` : `test ${testId}`),
    drafts: new Map(),
    expanded: new Set(),
    root,
    failures,
    current: () => root.isConnected,
    redraw,
    resolve: (thread, resolved) => change(() => api(path(thread.id), { method: 'PATCH', body: { resolved } })),
    remove: (comment) => change(() => api(path(comment.id), { method: 'DELETE' })),
    answer: async (thread, body) => {
      await api('/api/comments', { method: 'POST', body: { target_type: targetType, target_id: targetId, body, parent_id: thread.id } });
      ctx.drafts.delete(`answer:${thread.id}`);
      await load(true);
    },
    edit: async (comment, body) => {
      await api(path(comment.id), { method: 'PATCH', body: { body } });
      ctx.drafts.delete(`edit:${comment.id}`);
      await load(true);
    },
  };

  /** A change from a button, then the list as it now is; a refusal throws to the button, which says it. @param {() => Promise<unknown>} send */
  async function change(send) {
    setMessage(failures);
    await send();
    await load(true);
  }

  function redraw() {
    /** @type {Map<string, ReviewComment[]>} */
    const answers = new Map();
    for (const c of items) if (c.parent_id) answers.set(c.parent_id, [...(answers.get(c.parent_id) ?? []), c]);
    list.replaceChildren(...items.filter((c) => !c.parent_id).map((thread) => threadItem(thread, answers.get(thread.id) ?? [], ctx)));
    setMessage(status, items.length ? '' : 'No comments yet.');
  }

  /** @type {HTMLSelectElement | undefined} */
  let about;
  /** @type {HTMLTextAreaElement | undefined} */
  let newBody;
  if (canWrite) {
    /** @type {HTMLElement[]} */
    const before = [];
    /** @type {Record<string, import('./dom.js').FormField>} */
    const fields = {};
    if (targetType === 'run' && tests.length) {
      const field = element('div', { className: 'field' });
      const select = /** @type {HTMLSelectElement} */ (element('select', { testid: 'comment-new-test' }));
      select.append(new Option('The whole run', ''), ...tests.map((t) => new Option(t.name, t.id)));
      const label = element('label', { text: 'About' });
      const error = element('p', { className: 'field-error', testid: 'comment-new-test-error' });
      error.hidden = true;
      label.append(select);
      field.append(label, error);
      before.push(field);
      fields.test_id = { inputs: [/** @type {HTMLInputElement} */ (/** @type {unknown} */ (select))], error, empty: () => false };
      about = select;
    }
    const { form, area } = bodyForm({
      prefix: 'comment-new',
      label: 'New comment',
      submit: 'Comment',
      before,
      fields,
      send: async (body) => {
        const testId = about?.value;
        await api('/api/comments', { method: 'POST', body: { target_type: targetType, target_id: targetId, body, ...(testId && { test_id: testId }) } });
        area.value = '';
        if (about) about.value = '';
        await load(true);
      },
    });
    newBody = area;
    root.append(form);
  }

  void load();
  return {
    element: root,
    aboutTest(testId) {
      if (!newBody) return;
      if (about && testNames.has(testId)) about.value = testId;
      newBody.scrollIntoView({ block: 'nearest' });
      newBody.focus();
    },
  };
}
