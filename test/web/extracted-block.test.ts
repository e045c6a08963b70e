// What extract steps read, in the run view, over the real API and a real run in Chromium:
// a passing UI test's row shows an "Extracted" block — its step and {{save_as}}, one line
// per field, a field named like a credential masked, a long list cut — and a failing test
// still shows what it read before it failed; a test without an extract step has no block.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultRowOf, runAllAsAdmin, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;

describe('extracted values in the run view', () => {
  let world: World;
  let tab: Page;
  let problems: string[];

  const PROJECT = 'Hardware shop';
  const resultOf = (name: string) => resultRowOf(tab, name);
  const fieldsOf = (name: string) => resultOf(name).getByTestId('extracted-field').evaluateAll((rows) => rows.map((r) => [r.querySelector('dt')?.textContent, r.querySelector('dd')?.textContent]));

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ page: tab, problems } = world);
    const create = world.createTest;
    const read = { type: 'extract', save_as: 'catalogue', fields: { first: { selector: '#products tbody tr:first-child td.name' }, rows: { selector: { test_id: 'product-row' }, all: true }, session_token: { selector: '#page-info' } } };
    await create({ name: 'catalogue is read', steps: [{ type: 'goto', url: '/table' }, read], assertions: [{ type: 'text', selector: 'h1', equals: 'Products' }] });
    await create({ name: 'catalogue then a missing page', steps: [{ type: 'goto', url: '/table' }, { type: 'extract', fields: { pages: { selector: '#page-info' } } }, { type: 'click', selector: '#no-such-button', timeout_ms: 1_500 }] });
    await create({ name: 'home opens', steps: [{ type: 'goto', url: '/' }], assertions: [{ type: 'url', contains: '/' }] });
  });

  afterAll(async () => {
    await world?.close();
  });

  it('shows each extract step\'s fields under the test\'s row, masked and cut, also for a test that failed later', async () => {
    await runAllAsAdmin(world, PROJECT);
    await expect.poll(() => resultOf('catalogue is read').getByTestId('test-result-status').textContent()).toBe('passed');

    const block = resultOf('catalogue is read').getByTestId('test-result-extracted');
    expect(await block.isVisible()).toBe(true);
    expect(await block.getByTestId('extracted-step-name').textContent()).toBe('Step 2 · {{catalogue}}');
    const fields = await fieldsOf('catalogue is read');
    expect(fields.map(([name]) => name)).toEqual(['first', 'rows', 'session_token']);
    expect(fields[0][1]).toBe('Anchor');
    // Ten rows as JSON are longer than a line: cut at 200 characters.
    expect(fields[1][1]).toMatch(/^\["Anchor\\tHardware\\t12\.50","Bolt\\tHardware\\t0\.25",.*…$/);
    expect(fields[1][1]!.length).toBe(201);
    expect(fields[2][1]).toBe('***');

    expect(await resultOf('catalogue then a missing page').getByTestId('test-result-status').textContent()).toBe('failed');
    expect(await resultOf('catalogue then a missing page').getByTestId('extracted-step-name').textContent()).toBe('Step 2');
    expect(await fieldsOf('catalogue then a missing page')).toEqual([['pages', 'Page 1 of 2']]);
    expect(await resultOf('home opens').getByTestId('test-result-extracted').count()).toBe(0);
    expect(problems).toEqual([]);
  }, 150_000);
});
