// A visual change reviewed and accepted in the run view, in Chromium over the real API and
// real runs: a UI test's visual assertion records its baseline on the first run; the page
// then changes (the fixture's box turns red) and Run all fails the test with the baseline,
// this run's screenshot and the difference shown side by side; Accept as baseline makes the
// screenshot the baseline, and the next run passes against it.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEnded } from '../support/server.ts';
import { resultRowOf, runAllAsAdmin, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;

describe('a visual change in the run view', () => {
  let world: World;
  let tab: Page;
  let problems: string[];
  let testId: string;

  const PROJECT = 'Card shop';
  const NAME = 'order card looks right';
  const runOnce = async () => {
    const run = await world.api.post('/api/v1/test/run', { project_id: world.projectId, test_ids: [testId] });
    expect(run.status, run.text).toBe(201);
    await runEnded(world.api, run.body.run.id, 90_000);
    return (await world.api.get(`/api/v1/tests/${run.body.run.id}/results`)).body.items[0] as { status: string; metadata: { visual: Array<{ status: string; proposed_hash?: string }> } };
  };
  const baselines = async () => (await world.api.get(`/api/visual/baselines?test_id=${testId}`)).body.items as Array<{ name: string; screenshot_hash: string }>;
  const decoded = (testid: string) => resultRowOf(tab, NAME).getByTestId(testid).locator('img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0);

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ page: tab, problems } = world);
    testId = await world.createTest({ name: NAME, steps: [{ type: 'goto', url: '/visual' }], assertions: [{ type: 'visual', baseline: 'order card', selector: '#card' }] });
    expect((await runOnce()).metadata.visual[0].status).toBe('created');
    const changed = await world.api.patch(`/api/tests/${testId}`, { steps: [{ type: 'goto', url: '/visual?box=red' }] });
    expect(changed.status, changed.text).toBe(200);
  }, 150_000);

  afterAll(async () => {
    await world?.close();
  });

  it('shows the baseline, the screenshot and the difference of a failed comparison', async () => {
    await runAllAsAdmin(world, PROJECT);
    const row = resultRowOf(tab, NAME);
    expect(await row.getByTestId('test-result-status').textContent()).toBe('failed');
    expect(await row.getByTestId('visual-change-title').textContent()).toMatch(/^Visual change · order card: [\d,]+ pixels differ \([\d.]+% of the image\)$/);
    for (const image of ['visual-change-baseline', 'visual-change-actual', 'visual-change-diff']) await expect.poll(() => decoded(image), { timeout: 10_000 }).toBe(true);
    expect(await row.getByTestId('visual-change-actual').getByRole('img').getAttribute('alt')).toBe('order card in this run');
    expect(problems).toEqual([]);
  }, 120_000);

  it('Accept as baseline makes this run\'s screenshot the baseline, and the next run passes', async () => {
    const before = (await baselines())[0]!.screenshot_hash;
    const row = resultRowOf(tab, NAME);
    await row.getByTestId('visual-change-accept').click();
    await expect.poll(() => row.getByTestId('visual-change-accept-status').textContent()).toBe('Accepted: the next run compares order card with this screenshot.');
    const after = (await baselines())[0]!.screenshot_hash;
    expect(after).not.toBe(before);
    const next = await runOnce();
    expect(next.status).toBe('passed');
    expect(next.metadata.visual[0].status).toBe('matched');
    expect(problems).toEqual([]);
  }, 120_000);
});
