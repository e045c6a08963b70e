// The Quality audit panel over the real API: the server's own Chromium audits the fixture
// app's /a11y page (an image without alt, an input without a label, a button without a
// name, low contrast), and the panel shows the summary, the score, the performance numbers
// and the findings by check with their fixes; the API's refusals show under the field.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAs, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;

describe('quality audit panel', () => {
  let world: World;
  let server: World['server'];
  let fixture: World['fixture'];
  let tab: Page;
  let api: World['api'];
  let projectId: string;
  let problems: string[];

  const PROJECT = 'Juliet accessibility';
  const finding = (id: string) => tab.getByTestId('audit-finding').and(tab.locator(`[data-id="${id}"]`));
  const group = (check: string) => tab.getByTestId('audit-group').and(tab.locator(`[data-check="${check}"]`));

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ server, fixture, api, projectId, page: tab, problems } = world);
  });

  afterAll(async () => {
    await world?.close();
  });

  it("opens at the project's app URL with every check ticked", async () => {
    await signInAs(tab, server.url, server.admin.email, server.admin.password);
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).getByTestId('project-audit').click();
    await expect.poll(() => tab.getByTestId('audit-heading').textContent()).toBe(`Quality audit · ${PROJECT}`);
    expect(await tab.getByTestId('audit-url').inputValue()).toBe(fixture.url);
    for (const check of ['accessibility', 'security', 'performance', 'console']) expect(await tab.getByTestId(`audit-check-${check}`).isChecked()).toBe(true);
    expect(await tab.getByTestId('audit-fail-on').inputValue()).toBe('high');
    expect(await tab.getByTestId('audit-report').isVisible()).toBe(false);
  });

  it('audits /a11y: failed, the score, the four accessibility rules with severities and help links, performance numbers', async () => {
    await tab.getByTestId('audit-url').fill('/a11y');
    await tab.getByTestId('audit-submit').click();
    await tab.getByTestId('audit-report').waitFor({ state: 'visible', timeout: 60_000 });

    expect(await tab.getByTestId('audit-outcome').textContent()).toBe('failed');
    expect(await tab.getByTestId('audit-outcome-detail').textContent()).toBe('Findings at high or above fail the audit.');
    expect(await tab.getByTestId('audit-page').textContent()).toMatch(new RegExp(`^${fixture.url}/a11y · HTTP 200 · \\d+ ms$`));
    expect(await tab.getByTestId('audit-score').textContent()).toBe('10 / 100');

    // Accessibility: the rules the page breaks, as the API names them.
    const a11y = group('accessibility');
    expect(await a11y.getByTestId('audit-group-heading').textContent()).toBe('Accessibility · 4 findings');
    expect((await a11y.getByTestId('audit-finding-id').allTextContents()).sort()).toEqual(['button-name', 'color-contrast', 'image-alt', 'label']);
    expect(await finding('image-alt').getByTestId('audit-finding-severity').textContent()).toBe('critical');
    expect(await finding('color-contrast').getByTestId('audit-finding-severity').textContent()).toBe('high');
    expect(await finding('image-alt').getByTestId('audit-finding-targets').textContent()).toBe('Concerns: #no-alt');
    expect(await finding('image-alt').getByTestId('audit-finding-title').textContent()).toMatch(/\S/);
    const help = finding('image-alt').getByTestId('audit-finding-link');
    expect(await help.getAttribute('href')).toMatch(/^https:\/\/dequeuniversity\.com\/rules\/axe\/.*image-alt/);
    expect(await help.getAttribute('target')).toBe('_blank');
    expect(await help.getAttribute('rel')).toBe('noopener noreferrer');

    // The counts per severity add up to the findings listed.
    const counts = await tab.getByTestId('audit-count').evaluateAll((items) => items.map((i) => [(i as HTMLElement).dataset.severity, Number(i.querySelector('strong')?.textContent)]));
    expect(counts.map(([severity]) => severity)).toEqual(['critical', 'high', 'medium', 'low', 'info']);
    expect(counts.reduce((sum, [, n]) => sum + Number(n), 0)).toBe(await tab.getByTestId('audit-finding').count());
    expect(Object.fromEntries(counts).critical).toBe(3);

    // Security: no headers on the fixture page; its fix is advice, not a link.
    expect(await finding('missing-csp').getByTestId('audit-finding-fix').textContent()).toMatch(/^Fix: Send Content-Security-Policy/);
    // Performance, as measured.
    expect(await tab.getByTestId('audit-lcp').textContent()).toMatch(/^(\d+ ms|—)$/);
    expect(Number(await tab.getByTestId('audit-requests').textContent())).toBeGreaterThan(0);
    expect(await group('console').getByTestId('audit-group-heading').textContent()).toMatch(/^Console · \d+ findings?$/);
    expect(problems).toEqual([]);
  }, 90_000);

  it('audits only the checks ticked: the clean page passes accessibility alone, score 100', async () => {
    for (const check of ['security', 'performance', 'console']) await tab.getByTestId(`audit-check-${check}`).uncheck();
    await tab.getByTestId('audit-url').fill(`${fixture.url}/a11y/clean`);
    await tab.getByTestId('audit-submit').click();
    await expect.poll(() => tab.getByTestId('audit-page').textContent(), { timeout: 60_000 }).toMatch(/\/a11y\/clean /);
    expect(await tab.getByTestId('audit-outcome').textContent()).toBe('passed');
    expect(await tab.getByTestId('audit-score').textContent()).toBe('100 / 100');
    expect(await tab.getByTestId('audit-group').evaluateAll((groups) => groups.map((g) => (g as HTMLElement).dataset.check))).toEqual(['accessibility']);
    expect(await tab.getByTestId('audit-lcp').count()).toBe(0);
  }, 90_000);

  it('a URL outside the allowed hosts: the API says so under the URL field, and no report is shown', async () => {
    await tab.getByTestId('audit-url').fill('http://169.254.169.254/');
    await tab.getByTestId('audit-submit').click();
    const error = tab.getByTestId('audit-url-error');
    await error.waitFor({ state: 'visible' });
    const refused = await api.post('/api/quality/audit', { project_id: projectId, url: 'http://169.254.169.254/', checks: ['accessibility'] });
    expect(refused.status).toBe(400);
    expect(await error.textContent()).toBe(refused.body.error.details.issues[0].message);
    expect(await error.textContent()).toMatch(/outside the allowed hosts/);
    expect(await tab.getByTestId('audit-url').getAttribute('aria-invalid')).toBe('true');
    expect(await tab.getByTestId('audit-url').inputValue()).toBe('http://169.254.169.254/');
    expect(await tab.getByTestId('audit-report').isVisible()).toBe(false);
  });

  it('no check ticked: said under the checks', async () => {
    await tab.getByTestId('audit-url').fill('/a11y');
    await tab.getByTestId('audit-check-accessibility').uncheck();
    await tab.getByTestId('audit-submit').click();
    await expect.poll(() => tab.getByTestId('audit-checks-error').textContent()).toBe('Choose at least one check.');
    expect(await tab.getByTestId('audit-url-error').isVisible()).toBe(false);
    expect(await tab.getByTestId('audit-check-accessibility').getAttribute('aria-invalid')).toBe('true');
    await tab.getByTestId('audit-close').click();
    await tab.getByTestId('audit').waitFor({ state: 'hidden' });
    expect(problems).toEqual([]);
  });
});
