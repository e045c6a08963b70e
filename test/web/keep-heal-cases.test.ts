// Keep the fix on a parameterised test's rows, in Chromium over the real API and a real run:
// two parameterised tests recorded on v1 of the fixture app run against v2, where the email
// field was renamed, and each case heals it on the page. A case row offers Keep the fix,
// which keeps the fix of its test (the API merges every case's heals): the stored test
// changes and every row of the test says it was kept. A test whose other case failed is
// refused with the API's 409, said on the row as an error, and the test is left alone.
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { runEnded } from '../support/server.ts';
import { resultRowOf, runAllAsAdmin, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;

describe('Keep the fix of a parameterised test in the run view', () => {
  let world: World;
  let v2: FixtureApp;
  let tab: Page;
  let problems: string[];
  let emailsId: string;
  let breaksId: string;
  let runId: string;

  const PROJECT = 'Case shop';
  const resultOf = (name: string) => resultRowOf(tab, name);
  const shownRunId = async () => (await tab.getByTestId('test-run-id').textContent()) ?? '';

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ page: tab, problems } = world);
    v2 = await startFixtureApp({ version: 'v2' });
    emailsId = await world.createTest({
      name: 'sign-in emails',
      parameter_sets: [{ name: 'demo', values: { email: 'demo@example.com' } }, { name: 'other', values: { email: 'other@example.com' } }],
      steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#email', value: '{{email}}' }],
    });
    breaksId = await world.createTest({
      name: 'one case breaks',
      parameter_sets: [{ name: 'fine', values: { path: '/login' } }, { name: 'gone', values: { path: '/no-such-page' } }],
      steps: [{ type: 'goto', url: '{{path}}' }, { type: 'fill', selector: '#email', value: 'x@example.com' }],
    });
    // Recorded on v1 (the element's fingerprint), then the project moves to v2, where its ordinary runs heal on the page.
    const recorded = await world.api.post('/api/v1/test/run', { project_id: world.projectId, test_ids: [emailsId, breaksId] });
    expect(recorded.status, recorded.text).toBe(201);
    await runEnded(world.api, recorded.body.run.id, 90_000);
    const moved = await world.api.patch(`/api/v1/projects/${world.projectId}`, { app_url: v2.url });
    expect(moved.status, moved.text).toBe(200);
  }, 150_000);

  afterAll(async () => {
    await world?.close();
    await v2?.close();
  });

  it('offers Keep the fix on each healed case row', async () => {
    await runAllAsAdmin(world, PROJECT);
    runId = await shownRunId();
    for (const name of ['sign-in emails [demo]', 'sign-in emails [other]', 'one case breaks [fine]']) {
      await expect.poll(() => resultOf(name).getByTestId('test-result-status').textContent()).toBe('healed');
      expect(await resultOf(name).getByTestId('test-result-keep-heal').getAttribute('aria-label')).toBe(`Keep the fix: write the locators healed in every case of ${name.replace(/ \[.*\]$/, '')} into the test`);
      // What keeping it would write is shown before anyone decides: the step, before → after, how sure.
      const healed = resultOf(name).getByTestId('healed-locator');
      expect(await healed.count()).toBe(1);
      expect(await healed.textContent()).toMatch(/^Step 2 .*: #email → test_id=login-email · \d+% sure$/);
    }
    expect(await resultOf('one case breaks [gone]').getByTestId('test-result-status').textContent()).toBe('failed');
    expect(await resultOf('one case breaks [gone]').getByTestId('test-result-keep-heal').count()).toBe(0);
    expect(problems).toEqual([]);
  }, 180_000);

  it("a case row's Keep the fix writes the test's merged fix, and every row of the test says it was kept", async () => {
    const before = (await world.api.get(`/api/tests/${emailsId}`)).body;
    expect(before.steps[1].selector).toBe('#email');
    const [request] = await Promise.all([
      tab.waitForRequest((r: Request) => r.method() === 'POST' && r.url().endsWith(`/api/tests/${emailsId}/apply-heal`)),
      resultOf('sign-in emails [other]').getByTestId('test-result-keep-heal').click(),
    ]);
    expect(request.postDataJSON()).toEqual({ run_id: runId });
    const kept = `Saved as revision ${before.revision + 1}: steps.1.selector #email → test_id=login-email.`;
    for (const name of ['sign-in emails [demo]', 'sign-in emails [other]']) {
      await expect.poll(() => resultOf(name).getByTestId('test-result-keep-heal-status').textContent()).toBe(kept);
      expect(await resultOf(name).getByTestId('test-result-keep-heal').isDisabled()).toBe(true);
    }
    // The other test's row is not touched.
    expect(await resultOf('one case breaks [fine]').getByTestId('test-result-keep-heal').isDisabled()).toBe(false);
    expect(await resultOf('one case breaks [fine]').getByTestId('test-result-keep-heal-status').isHidden()).toBe(true);

    const after = (await world.api.get(`/api/tests/${emailsId}`)).body;
    expect(after.revision).toBe(before.revision + 1);
    expect(after.steps[1]).toEqual({ type: 'fill', selector: { test_id: 'login-email' }, value: '{{email}}' });
    expect((await world.api.get(`/api/tests/${emailsId}/revisions`)).body.items[0]).toMatchObject({ source: 'healed', revision: before.revision + 1 });
    expect(problems).toEqual([]);
  }, 60_000);

  it("says the API's refusal on the row when another case failed, and writes nothing", async () => {
    const before = (await world.api.get(`/api/tests/${breaksId}`)).body;
    const fine = resultOf('one case breaks [fine]');
    await fine.getByTestId('test-result-keep-heal').click();
    const status = fine.getByTestId('test-result-keep-heal-status');
    await expect.poll(() => status.textContent()).toBe(`Not saved: the test's last execution (case gone) in run ${runId} failed: its heals did not hold`);
    expect(await status.getAttribute('class')).toBe('field-error');
    expect(await status.getAttribute('role')).toBe('alert');
    // The button may be tried again (after a retry of the failed case, say).
    expect(await fine.getByTestId('test-result-keep-heal').isDisabled()).toBe(false);
    const after = (await world.api.get(`/api/tests/${breaksId}`)).body;
    expect(after.revision).toBe(before.revision);
    expect(after.steps[1].selector).toBe('#email');
    expect(problems).toEqual([]);
  }, 60_000);
});
