// Heal and a trailing assertion's broken locator, over the real API and a real run:
// a test whose check (not a step) reads #email, recorded on v1 of the
// fixture app, runs on v2 (the field renamed) in a project whose runs do not heal. POST
// /api/heal names a step, not a trailing assertion, so the row offers no Heal. The button
// used to be offered, saying "its step 2" (the test has one step) and sending that as
// step_index, which the API refuses: "Could not start the run: … the test has 1 steps",
// the run's results gone and the view left saying "starting".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { runEnded } from '../support/server.ts';
import { resultRowOf, runAllAsAdmin, startPanelWorld } from './browser.ts';

describe('Heal and a trailing assertion in the run view', () => {
  let world: Awaited<ReturnType<typeof startPanelWorld>>;
  let v2: FixtureApp;
  let testId: string;
  const PROJECT = 'Check shop';
  const NAME = 'the email field is shown';

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    v2 = await startFixtureApp({ version: 'v2' });
    testId = await world.createTest({ name: NAME, steps: [{ type: 'goto', url: '/login' }], assertions: [{ type: 'visible', selector: '#email' }] });
    const recorded = await world.api.post('/api/v1/test/run', { project_id: world.projectId, test_ids: [testId] });
    expect(recorded.status, recorded.text).toBe(201);
    expect((await runEnded(world.api, recorded.body.run.id, 90_000)).status).toBe('completed');
    const moved = await world.api.patch(`/api/v1/projects/${world.projectId}`, { app_url: v2.url, config: { healing_enabled: false } });
    expect(moved.status, moved.text).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await world?.close();
    await v2?.close();
  });

  it("offers no Heal for a broken locator in a trailing assertion, which the API cannot name as a step", async () => {
    const { page: tab } = world;
    await runAllAsAdmin(world, PROJECT);
    const row = resultRowOf(tab, NAME);
    await expect.poll(() => row.getByTestId('test-result-status').textContent()).toBe('failed');
    expect(await row.getByTestId('test-result-error').textContent()).toMatch(/^assertion 1 \(.*#email/);
    // The row still offers what a failure has: Retry, its trace and screenshot.
    await expect.poll(() => row.getByTestId('test-result-retry').count()).toBe(1);
    expect(await row.getByTestId('test-result-heal').count()).toBe(0);
    // What the button sent is refused by the API: a step index past the test's steps.
    const refused = await world.api.post('/api/heal', { test_id: testId, step_index: 1 });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.text).toContain('the test has 1 steps');
    expect(world.problems).toEqual([]);
  }, 180_000);
});
