// "Discover & test" over the real API: an admin opens a project's autonomous loop in the
// browser (after the API named a bad page count under its input), starts it, and the real
// loop crawls the fixture app in the server's Chromium, writes tests and runs them: the
// panel lists the pages visited, the tests written and the sign-in flow skipped for want of
// the project's secrets (with the way to the Environment panel), and the Tests panel follows
// the run to its end. The finished run's report is then downloaded as a real PDF, and a
// server without a PDF printer says so under the button. A viewer has no such button.
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinAs, signInAs, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;

describe('discover & test panel', () => {
  let world: World;
  let server: World['server'];
  let tab: Page;
  let api: World['api'];
  let problems: string[];
  let runId = '';

  const PROJECT = 'Fixture shop';
  const row = () => tab.getByTestId('project-row').filter({ hasText: PROJECT });

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ server, api, page: tab, problems } = world);
  });

  afterAll(async () => {
    await world?.close();
  });

  it("opens from the project's row at the app URL, ten pages and healing on", async () => {
    await signInAs(tab, server.url, server.admin.email, server.admin.password);
    await row().getByTestId('project-loop').click();
    await tab.getByTestId('loop').waitFor({ state: 'visible' });
    expect(await tab.getByTestId('loop-heading').textContent()).toBe(`Discover & test · ${PROJECT}`);
    expect(await tab.getByTestId('loop-start-url').inputValue()).toBe(world.fixture.url);
    expect(await tab.getByTestId('loop-max-pages').inputValue()).toBe('10');
    expect(await tab.getByTestId('loop-healing').isChecked()).toBe(true);
  });

  it("names a page count out of range under its input in the API's words, crawling nothing", async () => {
    await tab.getByTestId('loop-max-pages').fill('40');
    await tab.getByTestId('loop-submit').click();
    const error = tab.getByTestId('loop-max-pages-error');
    await error.waitFor({ state: 'visible' });
    const refused = await api.post('/api/quality/autonomous-loop', { project_id: world.projectId, max_pages: 40 });
    expect(refused.status).toBe(400);
    const issue = refused.body.error.details.issues.find((i: { path: string | string[] }) => [i.path].flat().join('.') === 'max_pages');
    expect(await error.textContent()).toBe(issue.message);
    expect(await tab.getByTestId('loop-max-pages').getAttribute('aria-invalid')).toBe('true');
    expect(await tab.getByTestId('loop-outcome').isVisible()).toBe(false);
    expect((await api.get(`/api/tests?project_id=${world.projectId}`)).body.items).toEqual([]);
  });

  it('starts the loop: says it is discovering, then lists the pages, the tests written and what was skipped', { timeout: 150_000 }, async () => {
    await tab.getByTestId('loop-max-pages').fill('4');
    await tab.getByTestId('loop-submit').click();
    // The crawl is part of the request: meanwhile the panel says so and Start cannot be clicked again.
    // Polled: the panel writes its status just after the click's handler runs, and a loaded machine read it empty once.
    await expect.poll(() => tab.getByTestId('loop-status').textContent()).toContain('Discovering');
    expect(await tab.getByTestId('loop-submit').isDisabled()).toBe(true);
    await tab.getByTestId('loop-outcome').waitFor({ state: 'visible', timeout: 120_000 });
    expect(await tab.getByTestId('loop-submit').isDisabled()).toBe(false);
    expect(await tab.getByTestId('loop-status').isVisible()).toBe(false);
    expect(await tab.getByTestId('loop-max-pages-error').isVisible()).toBe(false);

    // What the panel lists is what the loop stored: the project's tests tagged autonomous.
    const stored = (await api.get(`/api/tests?project_id=${world.projectId}&limit=100`)).body.items as Array<{ id: string; name: string; tags: string[] }>;
    const written = stored.filter((t) => t.tags.includes('autonomous'));
    expect(written.length).toBeGreaterThanOrEqual(3);
    const names = await tab.getByTestId('loop-test-name').allTextContents();
    expect([...names].sort()).toEqual(written.map((t) => t.name).sort());
    expect(new Set(await tab.getByTestId('loop-test-state').allTextContents())).toEqual(new Set(['new']));
    expect(await tab.getByTestId('loop-test-kind').allTextContents()).toContain('smoke');
    expect(await tab.getByTestId('loop-summary').textContent()).toBe(`Visited 4 pages; wrote ${written.length} tests (${written.length} new, 0 updated).`);

    // The sign-in flow waits for the project's test account, and the panel says where to set it.
    const skipped = tab.getByTestId('loop-skipped').filter({ has: tab.getByTestId('loop-skipped-name').getByText(/log ?in|sign ?in/i) });
    expect(await skipped.count()).toBe(1);
    expect(await skipped.getByTestId('loop-skipped-reason').textContent()).toMatch(/needs the project secret (USERNAME|PASSWORD)/);
    expect(await tab.getByTestId('loop-secrets-hint').isVisible()).toBe(true);
  });

  it('follows the run it started in the Tests panel, to its end', { timeout: 180_000 }, async () => {
    await tab.getByTestId('tests').waitFor({ state: 'visible' });
    expect(await tab.getByTestId('tests-heading').textContent()).toBe(`Tests · ${PROJECT}`);
    expect(await tab.getByTestId('test-run-heading').textContent()).toBe(`Run of the autonomous loop of ${PROJECT}`);
    await expect.poll(() => tab.getByTestId('test-run-id').textContent()).not.toBe('');
    runId = (await tab.getByTestId('test-run-id').textContent())!;
    await expect.poll(() => tab.getByTestId('test-run-state').textContent(), { timeout: 150_000 }).toBe('completed');
    const status = await api.get(`/api/v1/test/status/${runId}`);
    expect(status.body.run).toMatchObject({ project_id: world.projectId, trigger: 'autonomous', status: 'completed' });
    // One row per test the loop wrote, each with the outcome the API stored.
    const written = await tab.getByTestId('loop-test-name').allTextContents();
    await expect.poll(() => tab.getByTestId('test-result-row').count()).toBe(written.length);
    expect([...(await tab.getByTestId('test-result-name').allTextContents())].sort()).toEqual([...written].sort());
    expect(await tab.getByTestId('test-result-status').allTextContents()).toContain('passed');
  });

  it("downloads the finished run's report as a PDF, named as the server names it", { timeout: 90_000 }, async () => {
    const button = tab.getByTestId('test-run-pdf');
    await button.waitFor({ state: 'visible' });
    const [download] = await Promise.all([tab.waitForEvent('download', { timeout: 60_000 }), button.click()]);
    expect(download.suggestedFilename()).toBe(`svc-report-${runId}.pdf`);
    const bytes = await readFile((await download.path())!);
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(bytes.length).toBeGreaterThan(1000);
    expect(await tab.getByTestId('test-run-pdf-error').isVisible()).toBe(false);
  });

  it('says under the button when the server has no PDF printer', async () => {
    const printer = server.runtime.deps.reportPdf;
    server.runtime.deps.reportPdf = undefined;
    try {
      await tab.getByTestId('test-run-pdf').click();
      const error = tab.getByTestId('test-run-pdf-error');
      await error.waitFor({ state: 'visible' });
      const refused = await api.post('/api/reports/generate', { run_id: runId, format: 'pdf' });
      expect(refused.status).toBe(501);
      expect(await error.textContent()).toBe(`Could not make the PDF: ${refused.body.error.message}`);
      expect(await tab.getByTestId('test-run-pdf').isDisabled()).toBe(false);
    } finally {
      server.runtime.deps.reportPdf = printer;
    }
  });

  it("opens the project's Environment panel from the hint about the missing secrets", async () => {
    await tab.getByTestId('loop-open-environment').click();
    await tab.getByTestId('environment').waitFor({ state: 'visible' });
    expect(await tab.getByTestId('environment-heading').textContent()).toBe(`Environment · ${PROJECT}`);
    expect(problems).toEqual([]);
  });

  it('a viewer has no Discover & test button', async () => {
    await joinAs(tab, server.url, api, 'loop-viewer@example.com', 'viewer', 'Viewer org');
    // The browser remembers the admin's organization, where this person is a viewer.
    await row().waitFor();
    expect(await tab.getByTestId('org-name').textContent()).toMatch(/· viewer$/);
    expect(await row().getByTestId('project-tests').isVisible()).toBe(true);
    expect(await row().getByTestId('project-loop').count()).toBe(0);
    expect(await tab.getByTestId('loop').isVisible()).toBe(false);
    expect(problems).toEqual([]);
  });
});
