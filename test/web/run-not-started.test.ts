// A run the dashboard could not start says so in its state, not only under it: Run all of a
// project with no tests yet is refused before any run exists, and the run view's badge read
// "starting" for good beside "Could not start the run: …".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAs, startPanelWorld } from './browser.ts';

describe('a run that could not start', () => {
  let world: Awaited<ReturnType<typeof startPanelWorld>>;
  const PROJECT = 'Empty shop';

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
  });

  afterAll(async () => {
    await world?.close();
  });

  it('reads "not started" with the reason, and no run id', async () => {
    const { page: tab, server } = world;
    await signInAs(tab, server.url, server.admin.email, server.admin.password);
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).getByTestId('project-tests').click();
    await tab.getByTestId('tests-run-all').click();
    await expect.poll(() => tab.getByTestId('test-run-error').textContent()).toBe('Could not start the run: the project has no tests yet.');
    expect(await tab.getByTestId('test-run-state').textContent()).toBe('not started');
    expect(await tab.getByTestId('test-run-state').getAttribute('class')).toContain('badge-failed');
    expect(await tab.getByTestId('test-run-id').textContent()).toBe('');
    expect(await tab.getByTestId('test-run-report').isVisible()).toBe(false);
    expect(world.problems).toEqual([]);
  });
});
