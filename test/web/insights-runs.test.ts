// The Insights panel's latest runs over real runs of a real server, in Chromium: a run whose
// only failure is a quarantined test's says passed (not red), with the failure counted and
// noted as quarantined; the same failure after the test is released says failed. The badge
// used to say "completed" for both, which told nothing of failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAs, startPanelWorld } from './browser.ts';

describe('latest runs in the insights panel', () => {
  let world: Awaited<ReturnType<typeof startPanelWorld>>;
  const PROJECT = 'Quarantine shop';
  let quarantinedRun: string;
  let releasedRun: string;
  let failing: string;
  let passing: string;

  const runToEnd = async (testIds: string[]) => {
    const started = await world.api.post('/api/v1/test/run', { project_id: world.projectId, test_ids: testIds, healing_enabled: false });
    expect(started.status, started.text).toBe(201);
    const runId = started.body.run.id as string;
    await expect.poll(async () => (await world.api.get(`/api/v1/test/status/${runId}`)).body.run.status, { timeout: 60_000, interval: 100 }).toBe('completed');
    return runId;
  };

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    const create = (name: string, url: string) => world.createTest({ name, type: 'api', steps: [{ type: 'request', url }], assertions: [{ type: 'status', equals: 200 }] });
    // The fixture app answers 404 here: the test fails by design.
    failing = await create('legacy endpoint answers', '/api/no-such-thing');
    passing = await create('items answer', '/api/items');
  });

  afterAll(async () => {
    await world?.close();
  });

  it('runs the two tests with the failing one quarantined, then again with it released', async () => {
    const quarantined = await world.api.post(`/api/tests/${failing}/quarantine`, { reason: 'the endpoint is being removed' });
    expect(quarantined.status, quarantined.text).toBe(200);
    quarantinedRun = await runToEnd([failing, passing]);
    expect((await world.api.delete(`/api/tests/${failing}/quarantine`)).status).toBe(200);
    releasedRun = await runToEnd([failing, passing]);
  }, 150_000);

  it('says passed for a run whose only failure was quarantined, noting it, and failed once the test is released', async () => {
    const { page: tab } = world;
    await signInAs(tab, world.server.url, world.server.admin.email, world.server.admin.password);
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).getByTestId('project-insights').click();
    const rows = tab.getByTestId('insights-run');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.runId))).toEqual([releasedRun, quarantinedRun]);

    const [released, quarantined] = [rows.nth(0), rows.nth(1)];
    const cells = (row: typeof released) => row.locator('td').allTextContents();
    // When, trigger, status, passed, failed, duration.
    expect((await cells(quarantined)).slice(1, 5)).toEqual(['api', 'passed', '1', '1 (1 quarantined)']);
    expect(await quarantined.getByTestId('insights-run-status').getAttribute('class')).not.toContain('run-status-failed');
    expect(await quarantined.getByTestId('insights-run-quarantined').getAttribute('title')).toBe('1 quarantined test failed: quarantined failures do not fail the run');
    expect(await quarantined.getByTestId('insights-run-open').getAttribute('aria-label')).toMatch(/: open this api run \(passed\)$/);

    expect((await cells(released)).slice(1, 5)).toEqual(['api', 'failed', '1', '1']);
    expect(await released.getByTestId('insights-run-status').getAttribute('class')).toContain('run-status-failed');
    expect(await released.getByTestId('insights-run-quarantined').count()).toBe(0);
    expect(world.problems).toEqual([]);
  });
});
