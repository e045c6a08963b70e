// Following a run through a moment without network: the browser goes offline while a real
// run goes on on the server, then comes back. A missed status answer costs a poll: the view
// says it is asking again and then shows the run's end (one miss used to stop the view for
// good, the run shown "running" under "Could not follow the run").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAs, startPanelWorld } from './browser.ts';

describe('run view through a dropped connection', () => {
  let world: Awaited<ReturnType<typeof startPanelWorld>>;
  const PROJECT = 'Flaky wifi shop';

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    await world.createTest({ name: 'slow answer', type: 'api', steps: [{ type: 'request', url: '/slow?ms=4000' }], assertions: [{ type: 'status', equals: 200 }] });
  });

  afterAll(async () => {
    await world?.close();
  });

  it('keeps following the run after missed answers and shows how it ended', async () => {
    const { page: tab, server } = world;
    await signInAs(tab, server.url, server.admin.email, server.admin.password);
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).getByTestId('project-tests').click();
    const row = tab.getByTestId('test-row').filter({ has: tab.getByTestId('test-row-name').getByText('slow answer', { exact: true }) });
    await row.getByTestId('test-row-run').click();
    await expect.poll(() => tab.getByTestId('test-run-state').textContent(), { timeout: 15_000, interval: 100 }).toBe('running');

    await tab.context().setOffline(true);
    await expect.poll(() => tab.getByTestId('test-run-status').textContent(), { timeout: 15_000, interval: 100 }).toMatch(/^No answer from the server \(Could not reach the server\..*\): still following the run, asking again\.$/);
    expect(await tab.getByTestId('test-run-error').textContent()).toBe('');
    await tab.context().setOffline(false);

    await expect.poll(() => tab.getByTestId('test-run-status').textContent(), { timeout: 60_000, interval: 200 }).toBe('Run completed: 1 case, 1 passed, 0 failed, 0 skipped.');
    expect(await tab.getByTestId('test-run-state').textContent()).toBe('completed');
    expect(await tab.getByTestId('test-run-error').textContent()).toBe('');
    expect(await tab.getByTestId('test-result-status').allTextContents()).toEqual(['passed']);
    expect(world.problems).toEqual([]);
  });
});
