// Editing a test in the dashboard with revisions, over the real API in real Chromium: the
// editor sends If-Match with the revision it loaded, so a change someone made meanwhile is
// a 412 that says who and when and keeps the edit in the editor; reloading and saving again
// writes the next revision; History lists the revisions, Changes shows the lines one
// changed, and Restore brings one back. A
// viewer sees the history but can neither edit nor restore.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinAs, signInAs, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;

describe('test editor and history', () => {
  let world: World;
  let server: World['server'];
  let tab: Page;
  let api: World['api'];
  let testId: string;
  let problems: string[];

  const PROJECT = 'Revision shop';
  const rowOf = (name: string) => tab.getByTestId('test-row').filter({ has: tab.getByTestId('test-row-name').getByText(name, { exact: true }) });
  const historyTexts = () => tab.getByTestId('test-history-text').allTextContents();

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ server, api, page: tab, problems } = world);
    const created = await api.post('/api/tests', { project_id: world.projectId, name: 'items are listed', type: 'api', steps: [{ type: 'request', url: '/api/items' }], tags: ['smoke'] });
    expect(created.status, created.text).toBe(201);
    testId = created.body.id;
  }, 120_000);

  afterAll(async () => {
    await world?.close();
  });

  it("a save against a revision someone changed since is refused with who and when, and the edit stays in the editor", async () => {
    await signInAs(tab, server.url, server.admin.email, server.admin.password);
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).getByTestId('project-tests').click();
    await rowOf('items are listed').getByTestId('test-row-edit').click();
    await expect.poll(() => tab.getByTestId('test-editor-heading').textContent()).toBe('Edit test · items are listed (revision 1)');
    expect(await tab.getByTestId('test-editor-tags').inputValue()).toBe('smoke');
    expect(JSON.parse(await tab.getByTestId('test-editor-steps').inputValue())).toEqual([{ type: 'request', method: 'GET', url: '/api/items' }]);

    await tab.getByTestId('test-editor-name').fill('items are listed, my edit');
    // The test changes after the editor loaded it (here: the same person, from another client).
    const theirs = await api.patch(`/api/tests/${testId}`, { name: 'items are listed, their edit' });
    expect(theirs.status, theirs.text).toBe(200);

    await tab.getByTestId('test-editor-save').click();
    const error = tab.getByTestId('test-editor-error');
    await expect.poll(() => error.textContent()).toContain("changed by you (in another tab or window) at");
    expect(await error.textContent()).toContain('(now revision 2) since you opened it — reload to see it; your edit is kept in the editor.');
    expect(await tab.getByTestId('test-editor-name').inputValue()).toBe('items are listed, my edit');
    expect((await api.get(`/api/tests/${testId}`)).body).toMatchObject({ name: 'items are listed, their edit', revision: 2 });

    // A broken steps list is said under the steps, and nothing is sent.
    const steps = await tab.getByTestId('test-editor-steps').inputValue();
    await tab.getByTestId('test-editor-steps').fill('[{ "type": ');
    await tab.getByTestId('test-editor-save').click();
    await expect.poll(() => tab.getByTestId('test-editor-steps-error').textContent()).toMatch(/^Not valid JSON: a list of steps/);
    expect(await tab.getByTestId('test-editor-steps').getAttribute('aria-invalid')).toBe('true');
    expect((await api.get(`/api/tests/${testId}`)).body.revision).toBe(2);
    await tab.getByTestId('test-editor-steps').fill(steps);

    await tab.getByTestId('test-editor-reload').click();
    await expect.poll(() => tab.getByTestId('test-editor-name').inputValue()).toBe('items are listed, their edit');
    expect(await tab.getByTestId('test-editor-heading').textContent()).toBe('Edit test · items are listed, their edit (revision 2)');
    await tab.getByTestId('test-editor-name').fill('items are listed, merged');
    await tab.getByTestId('test-editor-priority').selectOption('high');
    await tab.getByTestId('test-editor-save').click();
    await expect.poll(() => tab.getByTestId('test-editor-status').textContent()).toBe('Saved as revision 3.');
    expect(await error.isVisible()).toBe(false);
    expect((await api.get(`/api/tests/${testId}`)).body).toMatchObject({ name: 'items are listed, merged', priority: 'high', revision: 3 });
    await rowOf('items are listed, merged').waitFor();
    expect(problems).toEqual([]);
  });

  it('History lists who changed what and when; Restore brings revision 1 back as a new revision', async () => {
    await rowOf('items are listed, merged').getByTestId('test-row-history').click();
    await expect.poll(historyTexts).toHaveLength(3);
    const texts = await historyTexts();
    expect(texts[0]).toMatch(new RegExp(`^Revision 3 · edited · ${server.admin.email} · .+ · name, priority$`));
    expect(texts[1]).toMatch(new RegExp(`^Revision 2 · edited · ${server.admin.email} · .+ · name$`));
    expect(texts[2]).toMatch(/^Revision 1 · created · .+ · name, description, type, steps, assertions, priority, tags, timeout_ms, parameters, parameter_sets$/);
    // The newest is what the test is: nothing to restore there.
    expect(await tab.getByTestId('test-history-row').first().getByTestId('test-history-restore').count()).toBe(0);
    // Changes: the lines revision 3 changed against revision 2, folded; revision 1 has nothing before it.
    const newestRow = tab.getByTestId('test-history-row').first();
    await newestRow.getByTestId('test-history-changes').click();
    const diff = newestRow.getByTestId('test-history-diff');
    await expect.poll(() => diff.getByTestId('diff-add').allTextContents()).toEqual(['+   "name": "items are listed, merged",\n', '+   "priority": "high",\n']);
    expect(await diff.getByTestId('diff-del').allTextContents()).toEqual(['-   "name": "items are listed, their edit",\n', '-   "priority": "medium",\n']);
    expect(await diff.getByTestId('diff-skip').count()).toBeGreaterThan(0);
    await newestRow.getByTestId('test-history-changes').click();
    expect(await diff.count()).toBe(0);
    expect(await tab.getByTestId('test-history-row').filter({ hasText: 'Revision 1 ·' }).getByTestId('test-history-changes').count()).toBe(0);

    await tab.getByTestId('test-history-row').filter({ hasText: 'Revision 1 ·' }).getByTestId('test-history-restore').click();
    await expect.poll(() => tab.getByTestId('test-history-status').textContent()).toBe('Restored revision 1 as revision 4.');
    await expect.poll(historyTexts).toHaveLength(4);
    expect((await historyTexts())[0]).toMatch(/^Revision 4 · restored revision 1 · .+ · name, priority$/);
    expect((await api.get(`/api/tests/${testId}`)).body).toMatchObject({ name: 'items are listed', priority: 'medium', revision: 4 });
    await rowOf('items are listed').waitFor();

    // A restore from a list that is out of date is refused, and the list is read again.
    expect((await api.patch(`/api/tests/${testId}`, { tags: ['changed'] })).status).toBe(200);
    await tab.getByTestId('test-history-row').filter({ hasText: 'Revision 2 ·' }).getByTestId('test-history-restore').click();
    await expect.poll(() => tab.getByTestId('test-history-status').textContent()).toMatch(/^Not restored: the test changed since this list was read/);
    await expect.poll(historyTexts).toHaveLength(5);
    expect((await api.get(`/api/tests/${testId}`)).body).toMatchObject({ name: 'items are listed', revision: 5 });
    expect(problems).toEqual([]);
  });

  it('a viewer reads the history but has no Edit and no Restore', async () => {
    await joinAs(tab, server.url, api, 'revisions-viewer@example.com', 'viewer', 'Revision viewer org');
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).getByTestId('project-tests').click();
    await rowOf('items are listed').waitFor();
    expect(await rowOf('items are listed').getByTestId('test-row-edit').count()).toBe(0);
    await rowOf('items are listed').getByTestId('test-row-history').click();
    await expect.poll(historyTexts).toHaveLength(5);
    expect(await tab.getByTestId('test-history-restore').count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
