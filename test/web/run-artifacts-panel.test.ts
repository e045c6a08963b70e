// A failed UI test's artifacts in the run view, over the real API and a real run: the row
// of the failed test offers its Playwright trace, its failure screenshot and its page's HTML, each fetched
// with the session's headers and saved as a file — a zip with the trace inside, a PNG —
// and opens the trace in the Playwright trace viewer the server hosts. A passing test's row
// offers none of them.
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
    expect(await resultOf('home opens').getByTestId('test-result-view-trace').count()).toBe(0);

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
    const [dom] = await Promise.all([tab.waitForEvent('download'), failed.getByTestId('test-result-dom').click()]);
    expect(dom.suggestedFilename()).toBe(`${failingId}-failure.html`);
    expect(await readFile((await dom.path())!, 'utf8')).toMatch(/^<!DOCTYPE html>/i);
    expect(await resultOf('home opens').getByTestId('test-result-dom').count()).toBe(0);
    expect(await failed.getByTestId('test-result-download-status').isVisible()).toBe(false);
    expect(problems).toEqual([]);
  }, 120_000);

  it("View trace opens the failed test's trace in the trace viewer this server hosts: its actions and the page's DOM snapshot", async () => {
    const failed = resultOf('home has the sale title');
    const [viewer] = await Promise.all([tab.waitForEvent('popup'), failed.getByTestId('test-result-view-trace').click()]);
    const viewerErrors: string[] = [];
    viewer.on('console', (m) => {
      if (m.type() === 'error') viewerErrors.push(m.text());
    });
    expect(new URL(viewer.url()).pathname).toBe('/trace-viewer/');
    // The test's navigation is in the action list, and its snapshot (rendered by the
    // viewer's service worker from the trace) holds the fixture app's page.
    await expect.poll(() => viewer.getByText('Navigate', { exact: true }).count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await viewer.getByText('Navigate', { exact: true }).first().click();
    const snapshot = viewer.frameLocator('iframe.snapshot-visible[name=snapshot]');
    await expect.poll(() => snapshot.locator('h1').textContent({ timeout: 1000 }).catch(() => ''), { timeout: 30_000 }).toBe('Fixture Shop');
    // Only the viewer's inline file:// notice is refused by the CSP: the trace itself loaded.
    expect(viewerErrors.filter((e) => !e.includes('inline script'))).toEqual([]);
    await viewer.close();
    const [dom] = await Promise.all([tab.waitForEvent('download'), failed.getByTestId('test-result-dom').click()]);
    expect(dom.suggestedFilename()).toBe(`${failingId}-failure.html`);
    expect(await readFile((await dom.path())!, 'utf8')).toMatch(/^<!DOCTYPE html>/i);
    expect(await resultOf('home opens').getByTestId('test-result-dom').count()).toBe(0);
    expect(await failed.getByTestId('test-result-download-status').isVisible()).toBe(false);
    expect(problems).toEqual([]);
  }, 120_000);
});
