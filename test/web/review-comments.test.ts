// Review comments in the dashboard, in Chromium over the real API and a real run: a member
// runs a project's two API tests (one fails by design) and, under the finished run, starts
// a thread about one of its tests (an empty body shows the API's message under the field);
// an answer by someone else and one of their own show indented under it; resolving folds
// the thread, says who resolved it and updates the open count, and Reopen undoes it; they
// edit their comment (marked "(edited)"); a row's Comment starts a thread about that row's
// test, and a body of markup stays text; deleting their first comment (after a confirm)
// leaves "This comment was deleted." over its answers. A test's comments open from the
// Tests panel. A viewer, opening the run from the search box, reads everything and has
// nothing that writes; an admin deletes someone else's comment; a visual baseline has its
// comments too.
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngOf } from '@svc/core/visual/test-png';
import { joinAs, resultRowOf, signInAs, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;
interface StoredComment {
  id: string;
  test_id: string | null;
  parent_id: string | null;
  body: string;
  author: string;
  author_email: string;
  resolved: boolean;
  resolved_by: string | null;
  edited_at: string | null;
  deleted_at: string | null;
}

describe('review comments in the dashboard', () => {
  let world: World;
  let tab: Page;
  let problems: string[];
  let listedId: string;
  let teapotId: string;
  let runId = '';
  let threadId = '';
  let memberActor = '';

  const PROJECT = 'Review shop';
  const MEMBER = 'comments-member@example.com';
  const VIEWER = 'comments-viewer@example.com';
  const MARKUP = '<img src=x onerror=alert(1)>';
  const EMPTY_MESSAGE = 'a comment needs some text';

  const runView = () => tab.getByTestId('test-run');
  const runComments = () => runView().getByTestId('comments');
  const threads = (within: Locator = runComments()) => within.getByTestId('comment-thread');
  const threadOf = (id: string, within: Locator = runComments()) => within.locator(`[data-testid="comment-thread"][data-id="${id}"]`);
  /** A thread's first comment (its answers are comments too). */
  const firstOf = (thread: Locator) => thread.getByTestId('comment').first();
  const answersOf = (thread: Locator) => thread.getByTestId('comment-answers').getByTestId('comment');

  async function stored(targetType = 'run', targetId = runId): Promise<{ items: StoredComment[]; open_threads: number }> {
    const res = await world.api.get(`/api/comments?target_type=${targetType}&target_id=${targetId}`);
    expect(res.status, res.text).toBe(200);
    return res.body;
  }

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ page: tab, problems } = world);
    // An alert would mean a comment's text ran as markup; confirms are answered by each test.
    tab.on('dialog', (dialog) => {
      if (dialog.type() === 'alert') {
        problems.push(`alert: ${dialog.message()}`);
        void dialog.dismiss();
      }
    });
    const create = async (body: Record<string, unknown>) => {
      const created = await world.api.post('/api/tests', { project_id: world.projectId, type: 'api', steps: [{ type: 'request', url: '/api/items' }], ...body });
      expect(created.status, created.text).toBe(201);
      return created.body.id as string;
    };
    listedId = await create({ name: 'items are listed', assertions: [{ type: 'status', equals: 200 }] });
    // The fixture answers 200: this one fails, so that the search box finds its failure (and its run).
    teapotId = await create({ name: 'teapot answers', assertions: [{ type: 'status', equals: 418 }] });
  });

  afterAll(async () => {
    await world?.close();
  });

  it("a member starts a thread about a test of a finished run; an empty body shows the API's message under the field", async () => {
    await signInAs(tab, world.server.url, world.server.admin.email, world.server.admin.password);
    const member = await joinAs(tab, world.server.url, world.api, MEMBER, 'member', 'Member own org');
    memberActor = `user:${member.userId}`;
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).getByTestId('project-tests').click();
    await tab.getByTestId('tests-run-all').click();
    await expect.poll(() => tab.getByTestId('test-run-state').textContent(), { timeout: 90_000, interval: 200 }).toMatch(/^(completed|failed)$/);
    runId = (await tab.getByTestId('test-run-id').textContent()) ?? '';
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);

    await expect.poll(() => runComments().getByTestId('comments-status').textContent()).toBe('No comments yet.');
    expect(await runComments().getByTestId('comments-open-count').textContent()).toBe('0 open threads');
    // The run's tests are offered as what a thread is about.
    const about = runComments().getByTestId('comment-new-test');
    expect(await about.locator('option').allTextContents()).toEqual(['The whole run', 'items are listed', 'teapot answers']);

    // Nothing written: the API's own message, under the field.
    const refused = await world.api.post('/api/comments', { target_type: 'run', target_id: runId, body: '   ' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.issues).toEqual([{ path: 'body', message: EMPTY_MESSAGE }]);
    await runComments().getByTestId('comment-new-body').fill('   ');
    await runComments().getByTestId('comment-new-submit').click();
    await expect.poll(() => runComments().getByTestId('comment-new-body-error').textContent()).toBe(EMPTY_MESSAGE);
    expect(await runComments().getByTestId('comment-new-body').getAttribute('aria-invalid')).toBe('true');
    expect(await runComments().getByTestId('comment-new-error').isHidden()).toBe(true);
    expect((await stored()).items).toEqual([]);

    await about.selectOption({ label: 'teapot answers' });
    await runComments().getByTestId('comment-new-body').fill('Why does this answer 200?\nThe spec says 418.');
    await runComments().getByTestId('comment-new-submit').click();
    await expect.poll(() => threads().count()).toBe(1);
    const thread = threads().first();
    expect(await thread.getByTestId('comment-about').textContent()).toBe('About test teapot answers');
    expect(await firstOf(thread).getByTestId('comment-author').textContent()).toBe(MEMBER);
    expect(await firstOf(thread).getByTestId('comment-body').textContent()).toBe('Why does this answer 200?\nThe spec says 418.');
    expect(await firstOf(thread).getByTestId('comment-edited').count()).toBe(0);
    expect(await runComments().getByTestId('comments-open-count').textContent()).toBe('1 open thread');
    expect(await runComments().getByTestId('comments-status').isHidden()).toBe(true);
    // The form is ready for the next comment.
    expect(await runComments().getByTestId('comment-new-body').inputValue()).toBe('');
    expect(await runComments().getByTestId('comment-new-body-error').isHidden()).toBe(true);
    expect(await runComments().getByTestId('comment-new-body').getAttribute('aria-invalid')).toBeNull();

    const list = await stored();
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({ test_id: teapotId, parent_id: null, body: 'Why does this answer 200?\nThe spec says 418.', author: memberActor, author_email: MEMBER, resolved: false });
    expect(list.open_threads).toBe(1);
    threadId = list.items[0].id;
    expect(await thread.getAttribute('data-id')).toBe(threadId);
    expect(problems).toEqual([]);
  }, 150_000);

  it("answers show indented under their thread, someone else's without Edit or Delete", async () => {
    const byAdmin = await world.api.post('/api/comments', { target_type: 'run', target_id: runId, parent_id: threadId, body: 'The fixture answers 200 on purpose.' });
    expect(byAdmin.status, byAdmin.text).toBe(201);
    const thread = threadOf(threadId);
    await thread.getByTestId('comment-answer').click();
    const area = thread.getByTestId('comment-answer-body');
    expect(await area.evaluate((node) => node === document.activeElement)).toBe(true);
    // An empty answer is refused as a new comment is.
    await thread.getByTestId('comment-answer-submit').click();
    await expect.poll(() => thread.getByTestId('comment-answer-body-error').textContent()).toBe(EMPTY_MESSAGE);
    await area.fill('Then the test is wrong: I will fix it.');
    await thread.getByTestId('comment-answer-submit').click();

    // The list is read again after the answer: the admin's answer (written elsewhere) shows too, oldest first.
    await expect.poll(() => answersOf(thread).getByTestId('comment-body').allTextContents()).toEqual(['The fixture answers 200 on purpose.', 'Then the test is wrong: I will fix it.']);
    expect(await answersOf(thread).getByTestId('comment-author').allTextContents()).toEqual([world.server.admin.email, MEMBER]);
    expect(await thread.getByTestId('comment-answer-form').count()).toBe(0);
    // Indented under the first comment.
    const [firstBox, answerBox] = [await firstOf(thread).boundingBox(), await answersOf(thread).first().boundingBox()];
    expect(answerBox!.x).toBeGreaterThan(firstBox!.x + 10);
    // The member edits and deletes their own answer only; an answer has no Resolve.
    expect(await answersOf(thread).nth(0).getByTestId('comment-edit').count()).toBe(0);
    expect(await answersOf(thread).nth(0).getByTestId('comment-delete').count()).toBe(0);
    expect(await answersOf(thread).nth(1).getByTestId('comment-edit').count()).toBe(1);
    expect(await answersOf(thread).nth(1).getByTestId('comment-delete').count()).toBe(1);
    expect(await thread.getByTestId('comment-resolve').count()).toBe(1);
    expect(await runComments().getByTestId('comments-open-count').textContent()).toBe('1 open thread');

    const list = await stored();
    expect(list.items.map((c) => [c.parent_id, c.author_email, c.test_id])).toEqual([[null, MEMBER, teapotId], [threadId, world.server.admin.email, teapotId], [threadId, MEMBER, teapotId]]);
    expect(problems).toEqual([]);
  }, 60_000);

  it('resolving folds the thread, says who resolved it and updates the open count; Reopen undoes it', async () => {
    const thread = threadOf(threadId);
    await thread.getByTestId('comment-resolve').click();
    await expect.poll(() => thread.getAttribute('data-resolved')).toBe('true');
    expect(await thread.getByTestId('comment-resolved').textContent()).toMatch(new RegExp(`^Resolved by ${MEMBER.replace(/\./g, '\\.')} · .+`));
    expect(await runComments().getByTestId('comments-open-count').textContent()).toBe('0 open threads');
    // Folded: the first comment shows, the answers do not, and nothing answers a resolved thread.
    expect(await firstOf(thread).getByTestId('comment-body').textContent()).toBe('Why does this answer 200?\nThe spec says 418.');
    expect(await thread.getByTestId('comment-answers').count()).toBe(0);
    expect(await thread.getByTestId('comment-answer').count()).toBe(0);
    expect(await thread.getByTestId('comment-resolve').count()).toBe(0);
    const toggle = thread.getByTestId('comment-thread-toggle');
    expect(await toggle.textContent()).toBe('Show 2 answers');
    let list = await stored();
    expect(list.items[0]).toMatchObject({ resolved: true, resolved_by: memberActor });
    expect(list.open_threads).toBe(0);

    await toggle.click();
    await expect.poll(() => answersOf(thread).count()).toBe(2);
    expect(await thread.getByTestId('comment-thread-toggle').textContent()).toBe('Hide 2 answers');

    await thread.getByTestId('comment-reopen').click();
    await expect.poll(() => thread.getAttribute('data-resolved')).toBe('false');
    expect(await runComments().getByTestId('comments-open-count').textContent()).toBe('1 open thread');
    expect(await thread.getByTestId('comment-resolved').count()).toBe(0);
    expect(await thread.getByTestId('comment-resolve').count()).toBe(1);
    expect(await answersOf(thread).count()).toBe(2);
    list = await stored();
    expect(list.items[0]).toMatchObject({ resolved: false, resolved_by: null });
    expect(list.open_threads).toBe(1);
    expect(problems).toEqual([]);
  }, 60_000);

  it('edits their own comment: the text changes and it says "(edited)"', async () => {
    const first = firstOf(threadOf(threadId));
    await first.getByTestId('comment-edit').click();
    const area = first.getByTestId('comment-edit-body');
    expect(await area.inputValue()).toBe('Why does this answer 200?\nThe spec says 418.');
    // Emptied: the API's message under the field, and the text stays.
    await area.fill('');
    await first.getByTestId('comment-edit-submit').click();
    await expect.poll(() => first.getByTestId('comment-edit-body-error').textContent()).toBe(EMPTY_MESSAGE);
    expect((await stored()).items[0]).toMatchObject({ body: 'Why does this answer 200?\nThe spec says 418.', edited_at: null });
    // Cancel puts the text back as it was.
    await first.getByTestId('comment-edit-cancel').click();
    expect(await first.getByTestId('comment-body').textContent()).toBe('Why does this answer 200?\nThe spec says 418.');

    await first.getByTestId('comment-edit').click();
    await first.getByTestId('comment-edit-body').fill('Why does teapot answer 200 and not 418?');
    await first.getByTestId('comment-edit-submit').click();
    await expect.poll(() => first.getByTestId('comment-body').textContent()).toBe('Why does teapot answer 200 and not 418?');
    expect(await first.getByTestId('comment-edited').textContent()).toBe('(edited)');
    expect(await first.getByTestId('comment-edit-form').count()).toBe(0);
    expect((await stored()).items[0]).toMatchObject({ body: 'Why does teapot answer 200 and not 418?', edited_at: expect.any(String) });
    expect(problems).toEqual([]);
  }, 60_000);

  it("a row's Comment starts a thread about that row's test; a body of markup stays text", async () => {
    await resultRowOf(tab, 'items are listed').getByTestId('test-result-comment').click();
    const area = runComments().getByTestId('comment-new-body');
    expect(await runComments().getByTestId('comment-new-test').inputValue()).toBe(listedId);
    expect(await area.evaluate((node) => node === document.activeElement)).toBe(true);
    await area.fill(MARKUP);
    await runComments().getByTestId('comment-new-submit').click();
    await expect.poll(() => threads().count()).toBe(2);
    const second = threads().nth(1);
    expect(await second.getByTestId('comment-about').textContent()).toBe('About test items are listed');
    expect(await firstOf(second).getByTestId('comment-body').textContent()).toBe(MARKUP);
    // Shown as text: no element made of it.
    expect(await runView().locator('img').count()).toBe(0);
    expect(await firstOf(second).getByTestId('comment-body').evaluate((node) => node.childElementCount)).toBe(0);
    expect(await runComments().getByTestId('comments-open-count').textContent()).toBe('2 open threads');
    const list = await stored();
    expect(list.items.at(-1)).toMatchObject({ body: MARKUP, test_id: listedId, parent_id: null });
    expect(problems).toEqual([]);
  }, 60_000);

  it('deleting a first comment with answers (after a confirm) leaves "This comment was deleted." over them', async () => {
    const thread = threadOf(threadId);
    tab.once('dialog', (dialog) => void dialog.dismiss());
    await firstOf(thread).getByTestId('comment-delete').click();
    expect((await stored()).items[0]).toMatchObject({ body: 'Why does teapot answer 200 and not 418?', deleted_at: null });
    expect(await firstOf(thread).getByTestId('comment-body').textContent()).toBe('Why does teapot answer 200 and not 418?');

    let question = '';
    tab.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await firstOf(thread).getByTestId('comment-delete').click();
    await expect.poll(() => firstOf(thread).getByTestId('comment-body').textContent()).toBe('This comment was deleted.');
    expect(question).toBe('Delete your comment? Its answers stay.');
    // It can no longer be edited, deleted or resolved; its answers stay and may still be answered.
    for (const id of ['comment-edit', 'comment-delete', 'comment-edited']) expect(await firstOf(thread).getByTestId(id).count()).toBe(0);
    expect(await thread.getByTestId('comment-resolve').count()).toBe(0);
    expect(await thread.getByTestId('comment-answer').count()).toBe(1);
    expect(await answersOf(thread).getByTestId('comment-body').allTextContents()).toEqual(['The fixture answers 200 on purpose.', 'Then the test is wrong: I will fix it.']);
    expect(await runComments().getByTestId('comments-open-count').textContent()).toBe('2 open threads');
    const list = await stored();
    expect(list.items[0]).toMatchObject({ id: threadId, body: '', deleted_at: expect.any(String) });
    expect(list.items).toHaveLength(4);
    expect(problems).toEqual([]);
  }, 60_000);

  it("comments on a test open from the Tests panel, apart from the run's", async () => {
    await tab.getByTestId('test-row').filter({ has: tab.getByTestId('test-row-name').getByText('items are listed', { exact: true }) }).getByTestId('test-row-comments').click();
    const panel = tab.getByTestId('test-comments');
    await expect.poll(() => panel.getByTestId('test-comments-heading').textContent()).toBe('Comments · items are listed');
    const section = panel.getByTestId('comments');
    await expect.poll(() => section.getByTestId('comments-status').textContent()).toBe('No comments yet.');
    // No "About" on a test's own comments.
    expect(await section.getByTestId('comment-new-test').count()).toBe(0);
    await section.getByTestId('comment-new-body').fill('Should assert the body too.');
    await section.getByTestId('comment-new-submit').click();
    await expect.poll(() => threads(section).getByTestId('comment-body').allTextContents()).toEqual(['Should assert the body too.']);
    expect(await threads(section).getByTestId('comment-about').count()).toBe(0);
    expect(await section.getByTestId('comments-open-count').textContent()).toBe('1 open thread');
    const onTest = await stored('test', listedId);
    expect(onTest.items).toMatchObject([{ body: 'Should assert the body too.', test_id: null, author_email: MEMBER }]);
    // The run's comments are the run's.
    expect((await stored()).items).toHaveLength(4);
    expect(await threads().count()).toBe(2);
    await panel.getByTestId('test-comments-close').click();
    expect(await panel.isHidden()).toBe(true);
    expect(problems).toEqual([]);
  }, 60_000);

  it('a viewer, opening the run from the search box, reads the comments and has nothing that writes', async () => {
    await joinAs(tab, world.server.url, world.api, VIEWER, 'viewer', 'Viewer own org');
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).waitFor();
    expect(await tab.getByTestId('org-name').textContent()).toMatch(/· viewer$/);
    await tab.getByTestId('search-kind-failures').check();
    await tab.getByTestId('search-q').fill('request answered 200 when status 418 was expected');
    await tab.getByTestId('search-submit').click();
    const failure = tab.getByTestId('search-result').filter({ has: tab.getByTestId('search-result-kind').getByText('failure', { exact: true }) });
    await expect.poll(() => failure.count()).toBe(1);
    await failure.getByTestId('search-result-open-run').click();
    await expect.poll(() => tab.getByTestId('test-run-id').textContent()).toBe(runId);

    await expect.poll(() => threads().count(), { timeout: 30_000 }).toBe(2);
    expect(await threads().nth(0).getByTestId('comment-about').textContent()).toBe('About test teapot answers');
    expect(await firstOf(threads().nth(0)).getByTestId('comment-body').textContent()).toBe('This comment was deleted.');
    expect(await answersOf(threads().nth(0)).getByTestId('comment-author').allTextContents()).toEqual([world.server.admin.email, MEMBER]);
    expect(await firstOf(threads().nth(1)).getByTestId('comment-body').textContent()).toBe(MARKUP);
    expect(await runComments().getByTestId('comments-open-count').textContent()).toBe('2 open threads');
    expect(await runView().locator('img').count()).toBe(0);
    const writes = ['comment-new-form', 'comment-new-body', 'comment-answer', 'comment-resolve', 'comment-reopen', 'comment-edit', 'comment-delete'];
    for (const id of writes) expect(await runComments().getByTestId(id).count(), id).toBe(0);
    expect(await runView().getByTestId('test-result-comment').count()).toBe(0);

    // A test's comments too: read, nothing that writes.
    await tab.getByTestId('test-row').filter({ has: tab.getByTestId('test-row-name').getByText('items are listed', { exact: true }) }).getByTestId('test-row-comments').click();
    const section = tab.getByTestId('test-comments').getByTestId('comments');
    await expect.poll(() => threads(section).getByTestId('comment-body').allTextContents()).toEqual(['Should assert the body too.']);
    for (const id of writes) expect(await section.getByTestId(id).count(), id).toBe(0);
    expect(problems).toEqual([]);
  }, 90_000);

  it("an admin deletes someone else's comment (but does not edit it)", async () => {
    await tab.getByTestId('sign-out').click();
    await tab.waitForURL((url) => url.pathname === '/sign-in');
    await signInAs(tab, world.server.url, world.server.admin.email, world.server.admin.password);
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).getByTestId('project-tests').click();
    await tab.getByTestId('test-row').filter({ has: tab.getByTestId('test-row-name').getByText('items are listed', { exact: true }) }).getByTestId('test-row-comments').click();
    const section = tab.getByTestId('test-comments').getByTestId('comments');
    await expect.poll(() => threads(section).count()).toBe(1);
    const first = firstOf(threads(section).first());
    expect(await first.getByTestId('comment-edit').count()).toBe(0);
    let question = '';
    tab.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await first.getByTestId('comment-delete').click();
    await expect.poll(() => section.getByTestId('comments-status').textContent()).toBe('No comments yet.');
    expect(question).toBe(`Delete the comment by ${MEMBER}?`);
    expect(await section.getByTestId('comments-open-count').textContent()).toBe('0 open threads');
    expect((await stored('test', listedId)).items).toEqual([]);
    expect(problems).toEqual([]);
  }, 60_000);

  it('a visual baseline has its comments under its row', async () => {
    const test = await world.api.post('/api/tests', { project_id: world.projectId, name: 'home looks right', type: 'ui' });
    expect(test.status, test.text).toBe(201);
    const image = Buffer.from(pngOf(32, 20, [0, 102, 204])).toString('base64');
    const baseline = await world.api.post('/api/visual/baselines', { test_id: test.body.id, name: 'home page', image });
    expect(baseline.status, baseline.text).toBe(201);
    const baselineId = baseline.body.id as string;

    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).getByTestId('project-baselines').click();
    const row = tab.getByTestId('baseline-row').filter({ has: tab.getByTestId('baseline-name').getByText('home page', { exact: true }) });
    const toggle = row.getByTestId('baseline-comments-toggle');
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    const section = row.getByTestId('comments');
    await expect.poll(() => section.getByTestId('comments-status').textContent()).toBe('No comments yet.');
    await section.getByTestId('comment-new-body').fill('The header moved 2px: accept the new one?');
    await section.getByTestId('comment-new-submit').click();
    await expect.poll(() => threads(section).getByTestId('comment-body').allTextContents()).toEqual(['The header moved 2px: accept the new one?']);
    expect(await threads(section).getByTestId('comment-author').allTextContents()).toEqual([world.server.admin.email]);
    expect((await stored('visual_baseline', baselineId)).items).toMatchObject([{ body: 'The header moved 2px: accept the new one?', author_email: world.server.admin.email }]);

    await toggle.click();
    expect(await row.getByTestId('baseline-comments').isHidden()).toBe(true);
    expect(problems).toEqual([]);
  }, 60_000);
});
