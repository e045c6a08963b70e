// The Insights panel's failure heatmap over a real run: a parameterised test's row counts
// all its cases together, so it is named by the test — not by whichever case ran last (it
// read "items endpoint [listed]", a case that passed, beside the other case's failure).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAllAsAdmin, startPanelWorld } from './browser.ts';

describe('failure heatmap in the insights panel', () => {
  let world: Awaited<ReturnType<typeof startPanelWorld>>;
  const PROJECT = 'Heatmap shop';

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    // The failing case runs first, the passing one last.
    await world.createTest({
      name: 'items endpoint',
      type: 'api',
      steps: [{ type: 'request', url: '{{path}}' }],
      assertions: [{ type: 'status', equals: 200 }],
      parameter_sets: [
        { name: 'missing', values: { path: '/api/no-such-thing' } },
        { name: 'listed', values: { path: '/api/items' } },
      ],
    });
  });

  afterAll(async () => {
    await world?.close();
  });

  it("names a parameterised test's row by the test, its cases' failures counted together", async () => {
    const { page: tab } = world;
    await runAllAsAdmin(world, PROJECT);
    await expect.poll(() => tab.getByTestId('test-run-status').textContent()).toBe('Run completed: 2 cases, 1 passed, 1 failed, 0 skipped.');

    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).getByTestId('project-insights').click();
    const rows = tab.getByTestId('insights-heatmap-row');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.locator('th').textContent()).toBe('items endpoint');
    expect(await rows.getByTestId('insights-heatmap-cell').getAttribute('title')).toMatch(/^1 of 2 failed on /);
    expect(world.problems).toEqual([]);
  });
});
