// The run view's Heal action, over the real API, a real run and the healer consumer: a
// project whose runs do not heal (config healing_enabled false) runs a test recorded on v1
// of the fixture app against v2, where its field was renamed; the failed row offers Heal
// (only a locator failure does), which asks POST /api/heal with the failed step and the run
// shown, then follows the heal run the healer starts: the field is healed on the page and
// the row reads healed; Keep the fix then writes the healed locator into the test. An
// assertion failure offers no Heal.
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { runEnded } from '../support/server.ts';
import { resultRowOf, runAllAsAdmin, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;

describe('Heal in the run view', () => {
  let world: World;
  let v2: FixtureApp;
  let tab: Page;
  let problems: string[];
  let emailId: string;

  const PROJECT = 'Sign-in shop';
  const resultOf = (name: string) => resultRowOf(tab, name);
  const shownRunId = async () => (await tab.getByTestId('test-run-id').textContent()) ?? '';

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ page: tab, problems } = world);
    v2 = await startFixtureApp({ version: 'v2' });
    emailId = await world.createTest({ name: 'fill the email field', steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#email', value: 'demo@example.com' }] });
    await world.createTest({ name: 'login has the sale title', steps: [{ type: 'goto', url: '/login' }], assertions: [{ type: 'title', equals: 'Winter sale' }] });
    // Recorded on v1 (the element's fingerprint), then the project moves to v2 with healing off for its runs.
    const recorded = await world.api.post('/api/v1/test/run', { project_id: world.projectId, test_ids: [emailId] });
    expect(recorded.status, recorded.text).toBe(201);
    expect((await runEnded(world.api, recorded.body.run.id, 90_000)).status).toBe('completed');
    const moved = await world.api.patch(`/api/v1/projects/${world.projectId}`, { app_url: v2.url, config: { healing_enabled: false } });
    expect(moved.status, moved.text).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await world?.close();
    await v2?.close();
  });

  it('offers Heal on a broken locator only, and follows the heal run to a healed row', async () => {
    await runAllAsAdmin(world, PROJECT);
    const failedRunId = await shownRunId();
    const email = resultOf('fill the email field');
    await expect.poll(() => email.getByTestId('test-result-status').textContent()).toBe('failed');
    expect(await resultOf('login has the sale title').getByTestId('test-result-status').textContent()).toBe('failed');
    expect(await resultOf('login has the sale title').getByTestId('test-result-heal').count()).toBe(0);
    expect(await email.getByTestId('test-result-heal').getAttribute('aria-label')).toBe('Heal fill the email field: its step 2');

    const [request] = await Promise.all([
      tab.waitForRequest((r: Request) => r.method() === 'POST' && r.url().endsWith('/api/heal')),
      email.getByTestId('test-result-heal').click(),
    ]);
    expect(request.postDataJSON()).toMatchObject({ test_id: emailId, step_index: 1, run_id: failedRunId, error_message: expect.stringContaining('#email') });
    await expect.poll(() => tab.getByTestId('test-run-heading').textContent()).toBe('Run of healing fill the email field');
    await expect.poll(shownRunId, { timeout: 30_000 }).toMatch(/^[0-9a-f-]{36}$/);
    await expect.poll(shownRunId).not.toBe(failedRunId);
    await expect.poll(() => tab.getByTestId('test-run-state').textContent(), { timeout: 90_000, interval: 200 }).toBe('completed');
    await expect.poll(() => resultOf('fill the email field').getByTestId('test-result-status').textContent()).toBe('healed');

    const healRun = (await world.api.get(`/api/v1/test/status/${await shownRunId()}`)).body.run;
    expect(healRun).toMatchObject({ trigger: 'heal', thread_id: expect.stringMatching(/^heal-/), passed_tests: 1 });
    expect(problems).toEqual([]);
  }, 180_000);

  it('Keep the fix writes the healed locator into the test, as a new revision', async () => {
    const before = (await world.api.get(`/api/tests/${emailId}`)).body;
    const healed = resultOf('fill the email field');
    await healed.getByTestId('test-result-keep-heal').click();
    await expect.poll(() => healed.getByTestId('test-result-keep-heal-status').textContent()).toBe(`Saved as revision ${before.revision + 1}: steps.1.selector #email → test_id=login-email.`);
    expect(await healed.getByTestId('test-result-keep-heal').isDisabled()).toBe(true);
    const after = (await world.api.get(`/api/tests/${emailId}`)).body;
    expect(after.steps[1].selector).toEqual({ test_id: 'login-email' });
    expect((await world.api.get(`/api/tests/${emailId}/revisions`)).body.items[0]).toMatchObject({ source: 'healed', revision: before.revision + 1 });
    expect(problems).toEqual([]);
  }, 60_000);
});
