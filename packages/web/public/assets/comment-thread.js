import { actionButton, clearFieldErrors, element, showFieldErrors, submitting } from './dom.js';
import { when } from './revision-people.js';

/**
 * One thread of review comments (comments.js): its first comment, its answers indented
 * under it, and what the signed-in person may do: answer, resolve or reopen the thread
 * (members), edit their own comment, delete their own (or, as an admin, anyone's). A
 * resolved thread says who resolved it and folds its answers away. Bodies are plain text,
 * always set as text, never as HTML.
 *
 * @typedef {{ id: string, target_type: string, target_id: string, project_id: string, test_id: string | null, parent_id: string | null, body: string, author: string, author_email: string, resolved: boolean, resolved_by: string | null, resolved_at: string | null, edited_at: string | null, deleted_at: string | null, created_at: string, updated_at: string }} ReviewComment
 * @typedef {{
 *   canWrite: boolean,
 *   actor: string,
 *   admin: boolean,
 *   nameOf: (actor: string) => string,
 *   testName: (testId: string) => string,
 *   drafts: Map<string, string>,
 *   expanded: Set<string>,
 *   root: HTMLElement,
 *   failures: HTMLElement,
 *   current: () => boolean,
 *   redraw: () => void,
 *   resolve: (thread: ReviewComment, resolved: boolean) => Promise<void>,
 *   remove: (comment: ReviewComment) => Promise<void>,
 *   answer: (thread: ReviewComment, body: string) => Promise<void>,
 *   edit: (comment: ReviewComment, body: string) => Promise<void>,
 * }} ThreadContext `drafts`: the text of the open answer (`answer:<thread id>`) and edit (`edit:<comment id>`) forms, kept across redraws; `expanded`: resolved threads shown whole
 */

/** Numbers the forms, for their labels' ids. */
let forms = 0;

/**
 * A form with one plain-text body: the API's error about it under it, any other error
 * under the form, submit and (optionally) Cancel. Its parts' test ids start with `prefix`
 * (`<prefix>-body`, `<prefix>-submit`, …).
 * @param {{ prefix: string, label: string, submit: string, value?: string, before?: HTMLElement[], fields?: Record<string, import('./dom.js').FormField>, onInput?: (text: string) => void, send: (body: string) => Promise<void>, cancel?: () => void }} o
 */
export function bodyForm({ prefix, label, submit, value = '', before = [], fields: more = {}, onInput, send, cancel }) {
  const id = `comment-form-${++forms}`;
  const form = /** @type {HTMLFormElement} */ (element('form', { className: 'comment-form', testid: `${prefix}-form` }));
  form.noValidate = true;
  const field = element('div', { className: 'field' });
  const caption = /** @type {HTMLLabelElement} */ (element('label', { text: label }));
  caption.htmlFor = id;
  const area = /** @type {HTMLTextAreaElement} */ (element('textarea', { testid: `${prefix}-body` }));
  area.id = id;
  area.rows = 3;
  area.maxLength = 10_000;
  area.value = value;
  const error = element('p', { className: 'field-error', testid: `${prefix}-body-error` });
  error.id = `${id}-error`;
  error.hidden = true;
  area.setAttribute('aria-describedby', error.id);
  field.append(caption, area, error);
  const formError = element('p', { className: 'alert', testid: `${prefix}-error` });
  formError.setAttribute('role', 'alert');
  formError.hidden = true;
  const buttons = element('span', { className: 'panel-buttons' });
  const button = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-primary button-small', testid: `${prefix}-submit`, text: submit }));
  button.type = 'submit';
  buttons.append(button);
  if (cancel) buttons.append(smallButton('Cancel', `${prefix}-cancel`, `Cancel: ${label}`, cancel));
  form.append(...before, field, formError, buttons);

  const fields = { body: { inputs: [/** @type {HTMLInputElement} */ (/** @type {unknown} */ (area))], error, empty: () => false }, ...more };
  if (onInput) area.addEventListener('input', () => onInput(area.value));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearFieldErrors(fields, formError);
    void submitting(form, async () => {
      try {
        await send(area.value);
      } catch (err) {
        showFieldErrors(err, { fields, formError, form });
      }
    });
  });
  return { form, area };
}

/**
 * @param {string} text @param {string} testid @param {string} label @param {() => void} onClick
 */
function smallButton(text, testid, label, onClick) {
  const button = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid, text }));
  button.type = 'button';
  button.setAttribute('aria-label', label);
  button.addEventListener('click', onClick);
  return button;
}

/**
 * A button that sends a change and says a failure above the threads.
 * @param {ThreadContext} ctx @param {string} text @param {string} testid @param {string} label @param {string} failure @param {() => Promise<void>} work
 */
const changeButton = (ctx, text, testid, label, failure, work) => actionButton({ text, testid, label, failure, status: ctx.failures, current: ctx.current, work });

/**
 * One comment: its author and time, "(edited)", its text (or the form editing it), and Edit
 * and Delete for whoever may.
 * @param {ReviewComment} c
 * @param {number} answers how many answers it has (a thread's first comment; 0 for an answer)
 * @param {ThreadContext} ctx
 */
function commentItem(c, answers, ctx) {
  const item = element('div', { className: 'comment', testid: 'comment' });
  item.dataset.id = c.id;
  const meta = element('p', { className: 'comment-meta' });
  const time = /** @type {HTMLTimeElement} */ (element('time', { className: 'muted', testid: 'comment-time', text: when(c.created_at) }));
  time.dateTime = c.created_at;
  meta.append(element('span', { className: 'comment-author', testid: 'comment-author', text: c.author_email }), time);
  if (c.edited_at && !c.deleted_at) {
    const edited = element('span', { className: 'muted', testid: 'comment-edited', text: '(edited)' });
    edited.title = `edited ${when(c.edited_at)}`;
    meta.append(edited);
  }
  const mine = c.author === ctx.actor;
  if (ctx.canWrite && !c.deleted_at && !ctx.drafts.has(`edit:${c.id}`)) {
    const actions = element('span', { className: 'comment-actions' });
    if (mine) actions.append(smallButton('Edit', 'comment-edit', 'Edit your comment', () => {
      ctx.drafts.set(`edit:${c.id}`, c.body);
      ctx.redraw();
      focusIn(ctx, `[data-testid="comment"][data-id="${CSS.escape(c.id)}"] textarea`);
    }));
    if (mine || ctx.admin) {
      const question = mine ? `Delete your comment?${answers ? ' Its answers stay.' : ''}` : `Delete the comment by ${c.author_email}?${answers ? ' Its answers stay.' : ''}`;
      actions.append(changeButton(ctx, 'Delete', 'comment-delete', mine ? 'Delete your comment' : `Delete the comment by ${c.author_email}`, 'Could not delete the comment', async () => {
        if (window.confirm(question)) await ctx.remove(c);
      }));
    }
    if (actions.childElementCount) meta.append(actions);
  }
  item.append(meta);

  const editing = ctx.drafts.get(`edit:${c.id}`);
  if (c.deleted_at) item.append(element('p', { className: 'comment-body comment-deleted', testid: 'comment-body', text: 'This comment was deleted.' }));
  else if (editing !== undefined) {
    const done = () => {
      ctx.drafts.delete(`edit:${c.id}`);
      ctx.redraw();
    };
    const { form } = bodyForm({ prefix: 'comment-edit', label: 'Your comment', submit: 'Save', value: editing, onInput: (text) => ctx.drafts.set(`edit:${c.id}`, text), send: (body) => ctx.edit(c, body), cancel: done });
    item.append(form);
  } else item.append(element('p', { className: 'comment-body', testid: 'comment-body', text: c.body }));
  return item;
}

/**
 * A thread: its first comment and its answers (folded away once resolved, unless shown),
 * then Answer and Resolve, or who resolved it and Reopen.
 * @param {ReviewComment} thread
 * @param {ReviewComment[]} answers oldest first
 * @param {ThreadContext} ctx
 */
export function threadItem(thread, answers, ctx) {
  const li = element('li', { className: 'comment-thread', testid: 'comment-thread' });
  li.dataset.id = thread.id;
  li.dataset.resolved = String(thread.resolved);
  if (thread.resolved) li.classList.add('comment-thread-resolved');
  if (thread.test_id) li.append(element('p', { className: 'comment-about muted', testid: 'comment-about', text: `About ${ctx.testName(thread.test_id)}` }));
  li.append(commentItem(thread, answers.length, ctx));

  const folded = thread.resolved && !ctx.expanded.has(thread.id);
  if (thread.resolved) {
    const line = element('div', { className: 'comment-thread-actions' });
    line.append(element('span', { className: 'badge badge-enabled', text: 'Resolved' }), element('span', { className: 'muted', testid: 'comment-resolved', text: `Resolved by ${ctx.nameOf(thread.resolved_by ?? '')} · ${when(thread.resolved_at ?? '')}` }));
    if (answers.length) {
      const n = `${answers.length} answer${answers.length === 1 ? '' : 's'}`;
      const toggle = smallButton(folded ? `Show ${n}` : `Hide ${n}`, 'comment-thread-toggle', folded ? `Show the ${n} of this resolved thread` : `Hide the ${n}`, () => {
        if (folded) ctx.expanded.add(thread.id);
        else ctx.expanded.delete(thread.id);
        ctx.redraw();
      });
      toggle.setAttribute('aria-expanded', String(!folded));
      line.append(toggle);
    }
    if (ctx.canWrite) line.append(changeButton(ctx, 'Reopen', 'comment-reopen', 'Reopen this thread', 'Could not reopen the thread', () => ctx.resolve(thread, false)));
    li.append(line);
  }
  if (!folded && answers.length) {
    const list = element('ul', { className: 'comment-answers', testid: 'comment-answers' });
    for (const answer of answers) {
      const row = element('li', { testid: 'comment-answer-item' });
      row.append(commentItem(answer, 0, ctx));
      list.append(row);
    }
    li.append(list);
  }
  if (!ctx.canWrite || thread.resolved) return li;

  const key = `answer:${thread.id}`;
  const draft = ctx.drafts.get(key);
  if (draft !== undefined) {
    const done = () => {
      ctx.drafts.delete(key);
      ctx.redraw();
    };
    const { form } = bodyForm({ prefix: 'comment-answer', label: 'Your answer', submit: 'Answer', value: draft, onInput: (text) => ctx.drafts.set(key, text), send: (body) => ctx.answer(thread, body), cancel: done });
    li.append(form);
    return li;
  }
  const actions = element('div', { className: 'comment-thread-actions' });
  actions.append(smallButton('Answer', 'comment-answer', 'Answer this thread', () => {
    ctx.drafts.set(key, '');
    ctx.redraw();
    focusIn(ctx, `[data-testid="comment-thread"][data-id="${CSS.escape(thread.id)}"] [data-testid="comment-answer-body"]`);
  }));
  // A deleted first comment cannot be resolved (the API answers 404); its thread stays open while answers remain.
  if (!thread.deleted_at) actions.append(changeButton(ctx, 'Resolve', 'comment-resolve', 'Resolve this thread', 'Could not resolve the thread', () => ctx.resolve(thread, true)));
  li.append(actions);
  return li;
}

/** Focuses a form just drawn (Edit, Answer). @param {ThreadContext} ctx @param {string} selector */
function focusIn(ctx, selector) {
  const area = ctx.root.querySelector(selector);
  if (area instanceof HTMLElement) area.focus();
}
