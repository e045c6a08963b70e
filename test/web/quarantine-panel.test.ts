// Quarantine from the Tests panel over the real API and a real run: a member quarantines a
// test that fails by design (asked why in the browser's prompt), its row says so, Run all
// executes it and shows its failure as quarantined without turning the run red, and Release
// puts it back. Cancelling the prompt changes nothing.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultRowOf, signInAs, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;

describe('quarantine in the tests panel', () => {
  let world: World;
  let tab: Page;
  let problems: string[];
  let failingId: string;

  const PROJECT = 'Book shop';
  const rowOf = (name: string) => tab.getByTestId('test-row').filter({ has: tab.getByTestId('test-row-name').getByText(name, { exact: true }) });
  const resultOf = (name: string) => resultRowOf(tab, name);

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ page: tab, problems } = world);
    const create = async (name: string, url: string) => {
      const created = await world.api.post('/api/tests', { project_id: world.projectId, name, type: 'api', steps: [{ type: 'request', url }], assertions: [{ type: 'status', equals: 200 }] });
      expect(created.status, created.text).toBe(201);
      return created.body.id as string;
    };
    failingId = await create('legacy endpoint answers', '/api/no-such-thing');
    await create('items answer', '/api/items');
  });

  afterAll(async () => {
    await world?.close();
  });

  it('quarantines after asking why; cancelling the question changes nothing', async () => {
    await signInAs(tab, world.server.url, world.server.admin.email, world.server.admin.password);
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).getByTestId('project-tests').click();
    await expect.poll(() => rowOf('legacy endpoint answers').count()).toBe(1);

    tab.once('dialog', (d) => void d.dismiss());
    await rowOf('legacy endpoint answers').getByTestId('test-row-quarantine').click();
    expect((await world.api.get(`/api/tests/${failingId}`)).body.quarantine).toBeNull();

    tab.once('dialog', (d) => void d.accept('the endpoint is being removed'));
    await rowOf('legacy endpoint answers').getByTestId('test-row-quarantine').click();
    await expect.poll(() => rowOf('legacy endpoint answers').getByTestId('test-row-quarantined').count()).toBe(1);
    expect(await rowOf('legacy endpoint answers').getByTestId('test-row-quarantine-reason').textContent()).toBe('Quarantined: the endpoint is being removed — its failures do not fail runs');
    expect((await world.api.get(`/api/tests/${failingId}`)).body.quarantine.reason).toBe('the endpoint is being removed');
    expect(await rowOf('items answer').getByTestId('test-row-quarantined').count()).toBe(0);
  });

  it('Run all: the quarantined failure is shown as such and the run is not red', async () => {
    await tab.getByTestId('tests-run-all').click();
    await expect.poll(() => tab.getByTestId('test-run-state').textContent(), { timeout: 60_000, interval: 200 }).toBe('completed');
    await expect.poll(() => tab.getByTestId('test-run-status').textContent()).toBe('Run completed: 2 cases, 1 passed, 1 failed (1 quarantined), 0 skipped.');
    expect(await resultOf('legacy endpoint answers').getByTestId('test-result-status').textContent()).toBe('failed');
    expect(await resultOf('legacy endpoint answers').getByTestId('test-result-quarantined').count()).toBe(1);
    expect(await tab.getByTestId('test-run-state').getAttribute('class')).not.toContain('badge-failed');
  });

  it('Release puts it back', async () => {
    await rowOf('legacy endpoint answers').getByTestId('test-row-release').click();
    await expect.poll(() => rowOf('legacy endpoint answers').getByTestId('test-row-quarantined').count()).toBe(0);
    expect((await world.api.get(`/api/tests/${failingId}`)).body.quarantine).toBeNull();
    expect(problems).toEqual([]);
  });
});
