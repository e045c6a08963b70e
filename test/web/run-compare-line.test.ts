// The run view against the previous run, over the real API and real runs in Chromium: a
// first run (through the API) passes one test and fails another; then the first is broken
// and the second fixed, and Run all in the dashboard says "vs previous run: 1 new failure,
// 1 fixed", with the new failure's row marked "new" and the fixed one's not. The
// project's first run has no previous one, so its view shows no such line.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultRowOf, signInAs, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;

describe('run view vs previous run', () => {
  let world: World;
  let tab: Page;
  let problems: string[];
  let breaksId: string;
  let fixedId: string;

  const PROJECT = 'Book shop';
  const resultOf = (name: string) => resultRowOf(tab, name);
  /** Runs all tests from the dashboard and waits for that run (not the one shown before) to finish. */
  const runAll = async (cases = 2) => {
    const before = await tab.getByTestId('test-run-id').textContent().catch(() => '');
    await tab.getByTestId('tests-run-all').click();
    await expect.poll(() => tab.getByTestId('test-run-id').textContent()).not.toMatch(new RegExp(`^(${before || '-'})?$`));
    await expect.poll(() => tab.getByTestId('test-run-state').textContent(), { timeout: 60_000, interval: 200 }).toMatch(/^(completed|failed|cancelled)$/);
    await expect.poll(() => tab.getByTestId('test-run-status').textContent()).toMatch(new RegExp(`^Run \\w+: ${cases} cases`));
  };

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ page: tab, problems } = world);
    const create = async (body: Record<string, unknown>) => {
      const created = await world.api.post('/api/tests', { project_id: world.projectId, type: 'api', assertions: [{ type: 'status', equals: 200 }], ...body });
      expect(created.status, created.text).toBe(201);
      return created.body.id as string;
    };
    breaksId = await create({ name: 'books are listed', steps: [{ type: 'request', url: '/api/items' }] });
    // The fixture app has no such path: a 404, so this one fails until its path is fixed.
    fixedId = await create({ name: 'book search answers', steps: [{ type: 'request', url: '/api/no-such-search' }] });
  });

  afterAll(async () => {
    await world?.close();
  });

  it('the first run has no previous run to compare with', async () => {
    await signInAs(tab, world.server.url, world.server.admin.email, world.server.admin.password);
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).getByTestId('project-tests').click();
    await runAll();
    expect(await resultOf('book search answers').getByTestId('test-result-status').textContent()).toBe('failed');
    expect(await tab.getByTestId('test-run-compare').isVisible()).toBe(false);
    expect(await tab.getByTestId('test-result-new').count()).toBe(0);
  }, 90_000);

  it('a later run says how many cases newly failed and got fixed, and marks the new failure', async () => {
    const broke = await world.api.patch(`/api/tests/${breaksId}`, { steps: [{ type: 'request', url: '/api/items' }], assertions: [{ type: 'status', equals: 201 }] });
    expect(broke.status, broke.text).toBe(200);
    const fixed = await world.api.patch(`/api/tests/${fixedId}`, { steps: [{ type: 'request', url: '/api/items' }] });
    expect(fixed.status, fixed.text).toBe(200);
    await runAll();
    await expect.poll(() => tab.getByTestId('test-run-compare').textContent()).toBe('vs previous run: 1 new failure, 1 fixed');
    expect(await tab.getByTestId('test-run-compare').isVisible()).toBe(true);
    expect(await resultOf('books are listed').getByTestId('test-result-status').textContent()).toBe('failed');
    expect(await resultOf('books are listed').getByTestId('test-result-new').textContent()).toBe('new');
    expect(await resultOf('book search answers').getByTestId('test-result-status').textContent()).toBe('passed');
    expect(await resultOf('book search answers').getByTestId('test-result-new').count()).toBe(0);
    expect(problems).toEqual([]);
  }, 90_000);

  it('counts the tests the previous run did not have, and how many of them fail', async () => {
    const created = await world.api.post('/api/tests', { project_id: world.projectId, type: 'api', name: 'book covers load', steps: [{ type: 'request', url: '/api/no-such-covers' }], assertions: [{ type: 'status', equals: 200 }] });
    expect(created.status, created.text).toBe(201);
    await runAll(3);
    // The new test's failure is not a "new failure" (it never passed), but the line says it fails.
    await expect.poll(() => tab.getByTestId('test-run-compare').textContent()).toBe('vs previous run: 0 new failures, 0 fixed, 1 new test, 1 failing');
    expect(await resultOf('book covers load').getByTestId('test-result-status').textContent()).toBe('failed');
    expect(problems).toEqual([]);
  }, 90_000);
});
