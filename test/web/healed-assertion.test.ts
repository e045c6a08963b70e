// The run view's Healed block lists a trailing assertion's healed locator (QA: a test whose
// only heal was its `visible` assertion read "healed" with nothing listed, so there was
// nothing to review before Keep the fix). In Chromium over the real API and a real run: a
// test recorded on v1 of the fixture app runs on v2, where #email became test_id=login-email.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { runEnded } from '../support/server.ts';
import { resultRowOf, runAllAsAdmin, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;

describe("a healed assertion's locator in the run view", () => {
  let world: World;
  let v2: FixtureApp;
  let tab: Page;
  let problems: string[];
  let testId: string;
  const PROJECT = 'Assertion shop';

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ page: tab, problems } = world);
    v2 = await startFixtureApp({ version: 'v2' });
    testId = await world.createTest({ name: 'the email field is shown', steps: [{ type: 'goto', url: '/login' }], assertions: [{ type: 'visible', selector: '#email' }] });
    const recorded = await world.api.post('/api/v1/test/run', { project_id: world.projectId, test_ids: [testId] });
    expect(recorded.status, recorded.text).toBe(201);
    await runEnded(world.api, recorded.body.run.id, 90_000);
    const moved = await world.api.patch(`/api/v1/projects/${world.projectId}`, { app_url: v2.url });
    expect(moved.status, moved.text).toBe(200);
  }, 150_000);

  afterAll(async () => {
    await world?.close();
    await v2?.close();
  });

  it('is shown as the assertion, before → after, and Keep the fix writes it', async () => {
    await runAllAsAdmin(world, PROJECT);
    const row = resultRowOf(tab, 'the email field is shown');
    await expect.poll(() => row.getByTestId('test-result-status').textContent()).toBe('healed');
    const healed = row.getByTestId('healed-locator');
    expect(await healed.count()).toBe(1);
    expect(await healed.textContent()).toMatch(/^Assertion 1 \(expect #email visible\): #email → test_id=login-email · \d+% sure$/);
    await row.getByTestId('test-result-keep-heal').click();
    await expect.poll(() => row.getByTestId('test-result-keep-heal-status').textContent()).toMatch(/^Saved as revision \d+: assertions\.0\.selector #email → test_id=login-email\.$/);
    expect((await world.api.get(`/api/tests/${testId}`)).body.assertions[0].selector).toEqual({ test_id: 'login-email' });
    expect(problems).toEqual([]);
  }, 180_000);
});
