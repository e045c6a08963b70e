// The insights panel's "Untested code" section end to end: a real Chromium over the real
// local runtime. One API test of the project runs against the fixture app, its codebase is
// analysed by the knowledge worker (an async upload), and the section lists the routes no
// passing test reaches, with where they are declared.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAs, startPanelWorld } from './browser.ts';

const PROJECT = 'Foxtrot code';
const EMPTY_PROJECT = 'Golf without code';

const APP_JS = "const app = require('express')();\napp.get('/api/items', h);\napp.post('/api/items', h);\napp.get('/admin', h);\n";

describe('insights panel: untested code', () => {
  let world: Awaited<ReturnType<typeof startPanelWorld>>;
  let tab: Page;
  let ingestionId: string;

  /** Opens the panel of a project from its row. */
  async function openInsightsOf(name: string) {
    await tab.getByTestId('project-row').filter({ hasText: name }).getByTestId('project-insights').click();
    await expect.poll(() => tab.getByTestId('insights-heading').textContent()).toBe(`Insights · ${name}`);
  }

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    tab = world.page;
    expect((await world.api.post('/api/v1/projects', { name: EMPTY_PROJECT })).status).toBe(201);
  });

  afterAll(async () => {
    await world?.close();
  });

  it('runs an API test once and has the codebase analysed in the background', async () => {
    const { api, projectId } = world;
    // One API test, run once: it reaches GET /api/items and passes.
    const testId = await world.createTest({
      name: 'items are listed',
      type: 'api',
      steps: [{ type: 'request', url: '/api/items' }],
      assertions: [{ type: 'status', equals: 200 }],
    });
    const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [testId] });
    expect(started.status, started.text).toBe(201);
    const runId: string = started.body.run.id;
    await expect
      .poll(async () => (await api.get(`/api/v1/test/status/${runId}`)).body.run.status, { timeout: 30_000, interval: 100 })
      .toMatch(/^(completed|failed|cancelled)$/);
    const results = await api.get(`/api/v1/tests/${runId}/results`);
    expect(results.body.items.map((r: { status: string }) => r.status)).toEqual(['passed']);

    // The codebase, analysed in the background by the knowledge worker.
    const queued = await api.post('/api/analyze', { project_id: projectId, files: [{ path: 'app.js', content: APP_JS }], async: true, commit_sha: 'abc1234def5678' });
    expect(queued.status, queued.text).toBe(202);
    ingestionId = queued.body.id;
    await expect.poll(async () => (await api.get(`/api/analyze/${ingestionId}`)).body.status, { timeout: 15_000, interval: 50 }).toBe('analyzed');
  }, 60_000);

  it('lists the routes no test ran, where they are declared, and says 1 of 3 have a test', async () => {
    const code = (await world.api.get(`/api/coverage/map?project_id=${world.projectId}`)).body.code;
    expect(code.ingestion_id).toBe(ingestionId);
    expect(code.summary).toMatchObject({ surfaces: 3, covered: 1, uncovered: 2 });

    await signInAs(tab, world.server.url, world.server.admin.email, world.server.admin.password);
    await openInsightsOf(PROJECT);
    const section = tab.getByTestId('insights-code-section');
    await expect.poll(() => section.getByTestId('insights-code-row').count()).toBe(2);

    const summary = (await tab.getByTestId('insights-code-summary').textContent())!;
    expect(summary).toMatch(/^1 of 3 routes and pages in the code has a test that ran \(33%\) · analysed .+ at commit abc1234$/);
    expect(await tab.getByTestId('insights-code-commit').getAttribute('title')).toBe('abc1234def5678');
    expect(await section.locator('time').getAttribute('datetime')).toBe(code.analysed_at);

    const rows = await section.getByTestId('insights-code-row').evaluateAll((trs) =>
      trs.map((tr) => ({
        surface: tr.querySelector('[data-testid="insights-code-surface"]')!.textContent,
        where: tr.querySelector('[data-testid="insights-code-where"]')!.textContent,
        state: tr.querySelector('[data-testid="insights-code-state"]')!.textContent,
        tests: tr.querySelector('[data-testid="insights-code-tests"]')!.textContent,
      })),
    );
    expect(rows).toEqual([
      { surface: 'POST /api/items', where: 'app.js:3', state: 'uncovered', tests: '–' },
      { surface: 'GET /admin', where: 'app.js:4', state: 'uncovered', tests: '–' },
    ]);
    expect(await section.getByTestId('insights-code-surface').allTextContents()).not.toContain('GET /api/items');
    expect(await section.getByTestId('insights-code-more').count()).toBe(0);
    expect(await tab.getByTestId('insights-code-status').isHidden()).toBe(true);
    expect(world.problems).toEqual([]);
  });

  it('says how to send a codebase when the project has none analysed', async () => {
    await openInsightsOf(EMPTY_PROJECT);
    await expect
      .poll(() => tab.getByTestId('insights-code-status').textContent())
      .toBe('No codebase analysed yet: send one with POST /api/analyze and "async": true (or the svc_analyze tool with async) to see which of its routes and pages no test reaches.');
    expect(await tab.getByTestId('insights-code-row').count()).toBe(0);
    expect(await tab.getByTestId('insights-code-summary').count()).toBe(0);
    expect(world.problems).toEqual([]);
  });
});
