// A failed UI test's downloads in the run view, over the real API and a real run: the row
// of the failed test offers its Playwright trace and its failure screenshot, each fetched
// with the session's headers and saved as a file — a zip with the trace inside, a PNG. A
// passing test's row offers neither.
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultRowOf, runAllAsAdmin, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;

describe('run view downloads', () => {
  let world: World;
  let tab: Page;
  let problems: string[];
  let failingId: string;

  const PROJECT = 'Gift shop';
  const resultOf = (name: string) => resultRowOf(tab, name);

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ page: tab, problems } = world);
    const create = world.createTest;
    // The title never reads this: the test fails on its assertion, in Chromium, with a trace.
    failingId = await create({ name: 'home has the sale title', steps: [{ type: 'goto', url: '/' }], assertions: [{ type: 'title', equals: 'Winter sale' }] });
    await create({ name: 'home opens', steps: [{ type: 'goto', url: '/' }], assertions: [{ type: 'url', contains: '/' }] });
  });

  afterAll(async () => {
    await world?.close();
  });

  it("a failed UI test's row downloads its trace and its failure screenshot; a passing one offers neither", async () => {
    await runAllAsAdmin(world, PROJECT);
    await expect.poll(() => resultOf('home has the sale title').getByTestId('test-result-status').textContent()).toBe('failed');
    expect(await resultOf('home opens').getByTestId('test-result-status').textContent()).toBe('passed');
    expect(await resultOf('home opens').getByTestId('test-result-trace').count()).toBe(0);

    const failed = resultOf('home has the sale title');
    const [trace] = await Promise.all([tab.waitForEvent('download'), failed.getByTestId('test-result-trace').click()]);
    expect(trace.suggestedFilename()).toBe(`${failingId}-trace.zip`);
    const zip = await readFile((await trace.path())!);
    expect(zip.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
    expect(zip.toString('latin1')).toContain('trace.trace');

    const [shot] = await Promise.all([tab.waitForEvent('download'), failed.getByTestId('test-result-screenshot').click()]);
    expect(shot.suggestedFilename()).toBe(`${failingId}-failure.png`);
    const png = await readFile((await shot.path())!);
    expect([...png.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect(await failed.getByTestId('test-result-download-status').isVisible()).toBe(false);
    expect(problems).toEqual([]);
  }, 120_000);
});
