// The Tests panel over the real API: a project whose app is the fixture app, three API tests
// (one parameterised, with a set that fails by design, one whose name is markup), listed in
// the browser, run all and one at a time through the run graph, a failed case retried on its
// own, the run's HTML report downloaded, a test deleted after a confirm; and a viewer who
// sees the tests and statuses but nothing that would run or delete one.
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/server.ts';
import { joinAs, signInAs, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;
interface StoredResult {
  test_id: string;
  status: string;
  error_message: string | null;
  parameter_set?: { index: number; name: string };
  metadata: { name: string };
}

describe('tests panel', () => {
  let world: World;
  let server: World['server'];
  let tab: Page;
  let api: World['api'];
  let projectId: string;
  let listedId: string;
  let byPathId: string;
  let markupId: string;
  /** The run Run all started. */
  let runAllId: string;
  let problems: string[];

  const PROJECT = 'Hotel bookings';
  const MARKUP = '<b>bold</b> name stays text';
  const rows = () => tab.getByTestId('test-row');
  const rowOf = (name: string) => rows().filter({ has: tab.getByTestId('test-row-name').getByText(name, { exact: true }) });
  const results = () => tab.getByTestId('test-result-row');
  const resultOf = (name: string) => results().filter({ has: tab.getByTestId('test-result-name').getByText(name, { exact: true }) });
  const resultNames = () => tab.getByTestId('test-result-name').allTextContents();
  const shownRunId = async () => (await tab.getByTestId('test-run-id').textContent()) ?? '';

  async function openTestsOf(name: string) {
    await tab.getByTestId('project-row').filter({ hasText: name }).getByTestId('project-tests').click();
    await expect.poll(() => tab.getByTestId('tests-heading').textContent()).toBe(`Tests · ${name}`);
  }

  /** Waits until the run view shows a finished run other than `before`; returns its id. */
  async function finishedRun(before = ''): Promise<string> {
    await expect.poll(shownRunId, { timeout: 15_000 }).toMatch(/^[0-9a-f-]{36}$/);
    await expect.poll(shownRunId).not.toBe(before);
    await expect.poll(() => tab.getByTestId('test-run-state').textContent(), { timeout: 60_000, interval: 200 }).toMatch(/^(completed|failed|cancelled)$/);
    await tab.getByTestId('test-run-report').waitFor({ state: 'visible' });
    return shownRunId();
  }

  async function storedResults(runId: string): Promise<StoredResult[]> {
    const res = await api.get(`/api/v1/tests/${runId}/results`);
    expect(res.status, res.text).toBe(200);
    return res.body.items;
  }

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ server, api, projectId, page: tab, problems } = world);

    const create = async (body: Record<string, unknown>) => {
      const created = await api.post('/api/tests', { project_id: projectId, type: 'api', assertions: [{ type: 'status', equals: 200 }], ...body });
      expect(created.status, created.text).toBe(201);
      return created.body.id as string;
    };
    listedId = await create({ name: 'items are listed', priority: 'high', tags: ['smoke', 'items'], steps: [{ type: 'request', url: '/api/items' }] });
    // The second set asks for a path the fixture app does not have: a 404, so that case fails.
    byPathId = await create({
      name: 'items by path',
      steps: [{ type: 'request', url: '{{path}}' }],
      parameter_sets: [
        { name: 'list', values: { path: '/api/items' } },
        { name: 'missing', values: { path: '/api/no-such-thing' } },
      ],
    });
    markupId = await create({ name: MARKUP, priority: 'low', steps: [{ type: 'request', url: '/api/items' }] });
  });

  afterAll(async () => {
    await world?.close();
  });

  it("lists the project's tests, newest first: kind, priority, tags, parameter sets, never run yet", async () => {
    await signInAs(tab, server.url, server.admin.email, server.admin.password);
    await openTestsOf(PROJECT);
    await expect.poll(() => tab.getByTestId('test-row-name').allTextContents()).toEqual([MARKUP, 'items by path', 'items are listed']);
    expect(await rowOf('items are listed').getByTestId('test-row-detail').textContent()).toBe('api · high priority · tags smoke, items');
    expect(await rowOf('items by path').getByTestId('test-row-detail').textContent()).toBe('api · medium priority');
    expect(await rowOf('items by path').getByTestId('test-row-sets').textContent()).toBe('2 parameter sets');
    expect(await rowOf('items are listed').getByTestId('test-row-sets').count()).toBe(0);
    expect(await tab.getByTestId('test-row-status').allTextContents()).toEqual(['not run yet', 'not run yet', 'not run yet']);
    // A name is text, never markup.
    expect(await tab.getByTestId('tests-list').locator('b').count()).toBe(0);
    expect(await rows().count()).toBe(3);
    expect(await tab.getByTestId('tests-run-all').isVisible()).toBe(true);
    expect(await tab.getByTestId('test-run').isVisible()).toBe(false);
  });

  it('Run all runs every test for real: a row per case, the failing case with its error, and the latest statuses', async () => {
    await tab.getByTestId('tests-run-all').click();
    await expect.poll(() => tab.getByTestId('test-run-heading').textContent()).toBe('Run of all tests');
    runAllId = await finishedRun();
    expect(await tab.getByTestId('test-run-state').textContent()).toBe('completed');
    // Started by a person in the dashboard: a manual run (an API client's default is api).
    expect((await api.get(`/api/v1/test/status/${runAllId}`)).body.run.trigger).toBe('manual');

    // The cases are the ones the server stored for this run, in name order.
    const stored = await storedResults(runAllId);
    expect(stored.map((r) => r.metadata.name).sort()).toEqual([MARKUP, 'items are listed', 'items by path [list]', 'items by path [missing]'].sort());
    await expect.poll(resultNames).toEqual([MARKUP, 'items are listed', 'items by path [list]', 'items by path [missing]']);
    expect(await tab.getByTestId('test-run-status').textContent()).toBe('Run completed: 4 cases, 3 passed, 1 failed, 0 skipped.');

    const missing = stored.find((r) => r.metadata.name === 'items by path [missing]')!;
    expect(missing).toMatchObject({ test_id: byPathId, status: 'failed', parameter_set: { index: 2, name: 'missing' } });
    expect(missing.error_message).toMatch(/404/);
    expect(await resultOf('items by path [missing]').getByTestId('test-result-status').textContent()).toBe('failed');
    expect(await resultOf('items by path [missing]').getByTestId('test-result-error').textContent()).toBe(missing.error_message);
    for (const name of [MARKUP, 'items are listed', 'items by path [list]']) {
      expect(await resultOf(name).getByTestId('test-result-status').textContent()).toBe('passed');
      expect(await resultOf(name).getByTestId('test-result-error').count()).toBe(0);
      expect(await resultOf(name).getByTestId('test-result-retry').count()).toBe(0);
    }
    expect(await results().getByTestId('test-result-retry').count()).toBe(1);

    // The list was read again: each test's latest outcome, the parameterised one failed by its case.
    await expect.poll(() => rowOf('items by path').getByTestId('test-row-status').textContent()).toBe('failed');
    expect(await rowOf('items are listed').getByTestId('test-row-status').textContent()).toBe('passed');
    expect(await rowOf(MARKUP).getByTestId('test-row-status').textContent()).toBe('passed');
    expect(await tab.getByTestId('test-run-results').locator('b').count()).toBe(0);
  }, 90_000);

  it("downloads the run's HTML report, which names every case and the failure", async () => {
    const [download] = await Promise.all([tab.waitForEvent('download'), tab.getByTestId('test-run-report').click()]);
    expect(download.suggestedFilename()).toBe(`svc-report-${runAllId}.html`);
    const html = await readFile((await download.path())!, 'utf8');
    expect(html).toMatch(/<title>✗ [^<]* — svc report<\/title>/);
    for (const name of ['items are listed', 'items by path [list]', 'items by path [missing]', '&lt;b&gt;bold&lt;/b&gt; name stays text']) expect(html).toContain(name);
    // The report of this run: the API's JSON report of it has the same cases and totals.
    const json = (await api.get(`/api/reports/${runAllId}?format=json`)).body;
    expect(JSON.stringify(json)).toContain(runAllId);
    expect(html).toContain(runAllId);
  });

  it('Retry of the failed case starts a run of just that case, as a retry of the run shown', async () => {
    const [request] = await Promise.all([
      tab.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/retry')),
      resultOf('items by path [missing]').getByTestId('test-result-retry').click(),
    ]);
    // run_id: the retried run keeps that run's source (branch, commit, pull request) — this one has none.
    expect(request.postDataJSON()).toEqual({ parameter_set: 2, run_id: runAllId });
    await expect.poll(() => tab.getByTestId('test-run-heading').textContent()).toBe('Run of items by path [missing]');
    const retryId = await finishedRun(runAllId);
    await expect.poll(resultNames).toEqual(['items by path [missing]']);
    expect(await tab.getByTestId('test-run-status').textContent()).toBe('Run completed: 1 case, 0 passed, 1 failed, 0 skipped.');

    const run = (await api.get(`/api/v1/test/status/${retryId}`)).body.run;
    expect(run.trigger).toBe('retry');
    const stored = await storedResults(retryId);
    expect(stored.map((r) => [r.test_id, r.parameter_set, r.status])).toEqual([[byPathId, { index: 2, name: 'missing' }, 'failed']]);
  }, 90_000);

  it("Run on one test's row runs only that test", async () => {
    const before = await shownRunId();
    await rowOf('items are listed').getByTestId('test-row-run').click();
    await expect.poll(() => tab.getByTestId('test-run-heading').textContent()).toBe('Run of items are listed');
    const runId = await finishedRun(before);
    await expect.poll(resultNames).toEqual(['items are listed']);
    expect(await resultOf('items are listed').getByTestId('test-result-status').textContent()).toBe('passed');
    expect((await storedResults(runId)).map((r) => [r.test_id, r.status])).toEqual([[listedId, 'passed']]);
  }, 90_000);

  it('a running run says how many of its cases are done', async () => {
    const slow = await api.post('/api/tests', { project_id: projectId, name: 'slow answer', type: 'api', steps: [{ type: 'request', url: '/slow?ms=4000' }], assertions: [{ type: 'status', equals: 200 }] });
    expect(slow.status, slow.text).toBe(201);
    await tab.getByTestId('tests-close').click();
    await openTestsOf(PROJECT);
    const before = await shownRunId();
    await rowOf('slow answer').getByTestId('test-row-run').click();
    await expect.poll(() => tab.getByTestId('test-run-status').textContent(), { timeout: 15_000, interval: 100 }).toBe('Run running: 0 of 1 case done — 0 passed, 0 failed, 0 skipped so far.');
    await finishedRun(before);
    expect((await api.delete(`/api/tests/${slow.body.id}`)).status).toBe(204);
    await tab.getByTestId('tests-close').click();
    await openTestsOf(PROJECT);
  }, 90_000);

  it('deletes a test only once the confirm is accepted', async () => {
    const markupRow = rowOf(MARKUP);
    tab.once('dialog', (dialog) => void dialog.dismiss());
    await markupRow.getByTestId('test-delete').click();
    expect(await markupRow.count()).toBe(1);
    expect((await api.get(`/api/tests/${markupId}`)).status).toBe(200);

    let question = '';
    tab.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await markupRow.getByTestId('test-delete').click();
    await expect.poll(() => tab.getByTestId('test-row-name').allTextContents()).toEqual(['items by path', 'items are listed']);
    expect(question).toBe(`Delete the test “${MARKUP}”? Its past results stay with their runs.`);
    expect((await api.get(`/api/tests/${markupId}`)).status).toBe(404);
    expect(problems).toEqual([]);
  });

  it('a viewer sees the tests and their latest outcomes, but nothing that runs, retries, deletes or audits', async () => {
    const viewer = await joinAs(tab, server.url, api, 'tests-viewer@example.com', 'viewer', 'Viewer own org');
    // The browser remembers the admin's organization, where this person is a viewer.
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).waitFor();
    expect(await tab.getByTestId('org-name').textContent()).toMatch(/· viewer$/);
    expect(await tab.getByTestId('project-audit').count()).toBe(0);

    await openTestsOf(PROJECT);
    await expect.poll(() => tab.getByTestId('test-row-name').allTextContents()).toEqual(['items by path', 'items are listed']);
    expect(await rowOf('items by path').getByTestId('test-row-status').textContent()).toBe('failed');
    expect(await rowOf('items are listed').getByTestId('test-row-status').textContent()).toBe('passed');
    expect(await tab.getByTestId('tests-run-all').isVisible()).toBe(false);
    expect(await tab.getByTestId('tests-new').isVisible()).toBe(false);
    expect(await rows().getByTestId('test-row-run').count()).toBe(0);
    expect(await rows().getByTestId('test-delete').count()).toBe(0);
    // The API refuses a viewer's run as the panel does.
    const viewerApi = client(server.url, { token: viewer.token, org: server.admin.organizationId });
    expect((await viewerApi.post('/api/v1/test/run', { project_id: projectId, test_ids: [listedId] })).status).toBe(403);
    expect(problems).toEqual([]);
  });
});
