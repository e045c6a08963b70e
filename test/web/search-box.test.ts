// The dashboard's search box over the real API (GET /api/quality/semantic-search): tests made
// through the API (a login-like one and unrelated ones) and a real run against the fixture
// app where one API test fails. In Chromium: "sign in with email" ranks the login test
// first, with its kind, score and project; a failure query shows that failure, and its
// "Open run" follows that run in the project's Tests panel; a query over 500 characters shows
// the API's own message under the field; a query about nothing stored says nothing was
// found; an empty query is said under the field without asking the API; an answer ranked
// by words only says so, with the reason. A viewer has the search box too.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinAs, signInAs, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;

describe('search box', () => {
  let world: World;
  let server: World['server'];
  let tab: Page;
  let api: World['api'];
  let problems: string[];
  let runId = '';
  const testIds: Record<string, string> = {};

  const PROJECT = 'Search shop';

  const tests = [
    {
      name: 'user logs in', description: "Sign in with the demo account's email and password, land on the dashboard", type: 'ui', tags: ['auth'],
      steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#email', value: 'demo@example.com' }, { type: 'fill', selector: '#password', value: 's3cret!' }, { type: 'click', selector: '#login-submit' }],
      assertions: [{ type: 'url', contains: '/dashboard' }],
    },
    { name: 'items list', type: 'api', tags: ['api'], steps: [{ type: 'request', url: '/api/items' }], assertions: [{ type: 'status', equals: 200 }] },
    { name: 'item created teapot', description: 'Creating an item answers 418', type: 'api', steps: [{ type: 'request', url: '/api/items' }], assertions: [{ type: 'status', equals: 418 }] },
  ];

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ server, api, page: tab, problems } = world);
    for (const t of tests) {
      const created = await api.post('/api/tests', { project_id: world.projectId, ...t });
      expect(created.status, created.text).toBe(201);
      testIds[t.name] = created.body.id;
    }
    // A real run where the teapot test fails (the fixture answers 200).
    const started = await api.post('/api/v1/test/run', { project_id: world.projectId, test_ids: [testIds['items list'], testIds['item created teapot']] });
    expect(started.status, started.text).toBe(201);
    runId = started.body.run.id;
    for (const deadline = Date.now() + 90_000; ; await new Promise((r) => setTimeout(r, 200))) {
      const status = await api.get(`/api/v1/test/status/${runId}`);
      if (['completed', 'failed', 'cancelled'].includes(status.body.run.status)) break;
      if (Date.now() > deadline) throw new Error(`run ${runId} still ${status.body.run.status}`);
    }
    const results = await api.get(`/api/v1/tests/${runId}/results`);
    const items = (results.body.items ?? results.body.results) as Array<{ test_id: string; status: string }>;
    expect(items.filter((r) => r.status === 'failed').map((r) => r.test_id)).toEqual([testIds['item created teapot']]);
  }, 180_000);

  afterAll(async () => {
    await world?.close();
  });

  const results = () => tab.getByTestId('search-result');

  it('ranks the login test first for "sign in with email", with kind, score and project', async () => {
    await signInAs(tab, server.url, server.admin.email, server.admin.password);
    await tab.getByTestId('search-kind-tests').check();
    await tab.getByTestId('search-q').fill('sign in with email');
    await tab.getByTestId('search-q').press('Enter');
    await expect.poll(() => results().count()).toBeGreaterThan(0);
    const answer = await api.get(`/api/quality/semantic-search?q=${encodeURIComponent('sign in with email')}&kinds=tests`);
    expect(answer.status, answer.text).toBe(200);
    const first = results().first();
    expect(await first.getByTestId('search-result-title').textContent()).toBe('user logs in');
    expect(await first.getByTestId('search-result-kind').textContent()).toBe('test');
    expect(await first.getByTestId('search-result-project').textContent()).toBe(PROJECT);
    expect(await first.getByTestId('search-result-score').textContent()).toBe(`${Math.round(answer.body.results[0].score * 100)}%`);
    expect(await first.getByTestId('search-result-snippet').textContent()).toContain('Sign in');
    expect(await first.getAttribute('aria-label')).toMatch(/^test: user logs in, Search shop, score \d+%$/);
    expect(await results().count()).toBe(answer.body.results.length);
    expect(await tab.getByTestId('search-fallback').isVisible()).toBe(false);
    // The results are a list the page names.
    expect(await tab.getByRole('list', { name: 'Search results' }).getByRole('listitem').count()).toBe(answer.body.results.length);
    // A test result opens the project's Tests panel.
    await first.getByTestId('search-result-open-tests').click();
    await tab.getByTestId('tests').waitFor({ state: 'visible' });
    expect(await tab.getByTestId('tests-heading').textContent()).toBe(`Tests · ${PROJECT}`);
  });

  it('a failure query shows the failure, and "Open run" follows that run in the Tests panel', { timeout: 60_000 }, async () => {
    await tab.getByTestId('search-kind-tests').uncheck();
    await tab.getByTestId('search-kind-failures').check();
    // The project opened is offered as the scope.
    expect(await tab.getByTestId('search-scope').inputValue()).toBe(world.projectId);
    await tab.getByTestId('search-q').fill('request answered 200 when status 418 was expected');
    await tab.getByTestId('search-submit').click();
    const failure = results().filter({ has: tab.getByTestId('search-result-kind').getByText('failure', { exact: true }) });
    await expect.poll(() => failure.count()).toBe(1);
    expect(await failure.getByTestId('search-result-title').textContent()).toBe('item created teapot');
    expect(await failure.getByTestId('search-result-snippet').textContent()).toMatch(/418/);
    await tab.getByTestId('tests-close').click();
    await failure.getByTestId('search-result-open-run').click();
    await tab.getByTestId('tests').waitFor({ state: 'visible' });
    expect(await tab.getByTestId('tests-heading').textContent()).toBe(`Tests · ${PROJECT}`);
    await expect.poll(() => tab.getByTestId('test-run-id').textContent()).toBe(runId);
    expect(await tab.getByTestId('test-run-heading').textContent()).toBe('Run of item created teapot');
    await expect.poll(() => tab.getByTestId('test-result-row').count()).toBe(2);
    expect([...(await tab.getByTestId('test-result-status').allTextContents())].sort()).toEqual(['failed', 'passed']);
  });

  it('says a failed assertion is an assertion, not a step the test does not have', async () => {
    // failed_step of an assertion's failure is steps.length + its index: the teapot test has one step.
    await tab.getByTestId('search-kind-tests').uncheck();
    await tab.getByTestId('search-kind-failures').check();
    await tab.getByTestId('search-q').fill('equals');
    await tab.getByTestId('search-submit').click();
    const failure = results().filter({ has: tab.getByTestId('search-result-title').getByText('item created teapot', { exact: true }) });
    // The previous query's answer (the same failure, another passage) stays on screen until
    // this one arrives, so wait for this query's passage rather than for the row.
    await expect.poll(() => failure.getByTestId('search-result-snippet').textContent())
      .toContain('failed assertion 1: status equals 418. failure kind: assertion');
    expect(await failure.count()).toBe(1);
    expect(await failure.getByTestId('search-result-snippet').textContent()).not.toContain('failed step');
  });

  it("shows the API's message under the field for a query over 500 characters", async () => {
    const long = 'login '.repeat(90);
    await tab.getByTestId('search-q').fill(long);
    await tab.getByTestId('search-q').press('Enter');
    const error = tab.getByTestId('search-q-error');
    await error.waitFor({ state: 'visible' });
    const refused = await api.get(`/api/quality/semantic-search?q=${encodeURIComponent(long.trim())}`);
    expect(refused.status).toBe(400);
    const issue = refused.body.error.details.issues.find((i: { path: string | string[] }) => [i.path].flat().join('.') === 'q');
    expect(await error.textContent()).toBe(issue.message);
    expect(await tab.getByTestId('search-q').getAttribute('aria-invalid')).toBe('true');
    expect(await results().count()).toBe(0);
  });

  it('says so when nothing is found, and clears the field error', async () => {
    await tab.getByTestId('search-kind-failures').uncheck();
    await tab.getByTestId('search-q').fill('zebra quartz xylophone');
    await tab.getByTestId('search-q').press('Enter');
    await expect.poll(() => tab.getByTestId('search-status').textContent()).toBe(`Nothing found in ${PROJECT} for “zebra quartz xylophone”.`);
    expect(await tab.getByTestId('search-q-error').isVisible()).toBe(false);
    expect(await tab.getByTestId('search-q').getAttribute('aria-invalid')).toBeNull();
    expect(problems).toEqual([]);
  });

  it('an empty query is said under the field and sends no request; the placeholder reads as a search', async () => {
    // An example query next to the account area read like a sign-in prompt: the box says what it searches.
    expect(await tab.getByTestId('search-q').getAttribute('placeholder')).toBe('Search tests, failures, heals…');
    const sent: string[] = [];
    const onRequest = (request: { url: () => string }) => {
      if (new URL(request.url()).pathname === '/api/quality/semantic-search') sent.push(request.url());
    };
    tab.on('request', onRequest);
    try {
      // The last search's answer is on the page; an empty query clears it.
      expect(await tab.getByTestId('search-status').textContent()).toMatch(/^Nothing found/);
      await tab.getByTestId('search-q').fill('   ');
      await tab.getByTestId('search-q').press('Enter');
      const error = tab.getByTestId('search-q-error');
      await expect.poll(() => error.textContent()).toBe('Type what to search for.');
      expect(await error.isVisible()).toBe(true);
      expect(await tab.getByTestId('search-q').getAttribute('aria-invalid')).toBe('true');
      expect(await tab.getByTestId('search-q').evaluate((node) => node === document.activeElement)).toBe(true);
      expect(await tab.getByTestId('search-status').isVisible()).toBe(false);
      expect(await results().count()).toBe(0);
      await tab.getByTestId('search-submit').click();
      await expect.poll(() => error.textContent()).toBe('Type what to search for.');
      // A search that does happen is seen by the listener: nothing was sent for the empty ones.
      await tab.getByTestId('search-q').fill('zebra quartz xylophone');
      await tab.getByTestId('search-q').press('Enter');
      await expect.poll(() => tab.getByTestId('search-status').textContent()).toMatch(/^Nothing found/);
      expect(sent).toHaveLength(1);
      expect(new URL(sent[0]).searchParams.get('q')).toBe('zebra quartz xylophone');
      expect(await error.isVisible()).toBe(false);
    } finally {
      tab.off('request', onRequest);
    }
    expect(problems).toEqual([]);
  });

  it('says "ranked by words only" with the reason when the embedder fell back', async () => {
    // The real answer, with the embedder marked as failed (a failing provider is covered in
    // test/api/semantic-search.test.ts; here only what the page shows of it).
    const reason = 'embedder openai:text-embedding-3-small failed: fetch failed';
    await tab.route('**/api/quality/semantic-search?*', async (route) => {
      const response = await route.fetch();
      const body = await response.json();
      await route.fulfill({ response, json: { ...body, embedder: { provider: 'openai', model: 'openai:text-embedding-3-small', fallback: true, reason } } });
    });
    try {
      await tab.getByTestId('search-q').fill('sign in with email');
      await tab.getByTestId('search-q').press('Enter');
      const fallback = tab.getByTestId('search-fallback');
      await fallback.waitFor({ state: 'visible' });
      expect(await fallback.textContent()).toBe(`Ranked by words only: ${reason}`);
      expect(await results().first().getByTestId('search-result-title').textContent()).toBe('user logs in');
    } finally {
      await tab.unroute('**/api/quality/semantic-search?*');
    }
    await tab.getByTestId('search-q').press('Enter');
    await expect.poll(() => tab.getByTestId('search-fallback').isVisible()).toBe(false);
  });

  it('a viewer searches too, in every project', async () => {
    await joinAs(tab, server.url, api, 'search-viewer@example.com', 'viewer', 'Viewer org');
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).waitFor();
    expect(await tab.getByTestId('org-name').textContent()).toMatch(/· viewer$/);
    expect(await tab.getByTestId('search-scope').inputValue()).toBe('');
    await tab.getByTestId('search-q').fill('sign in with email');
    await tab.getByTestId('search-q').press('Enter');
    await expect.poll(() => results().count()).toBeGreaterThan(0);
    expect(await results().first().getByTestId('search-result-title').textContent()).toBe('user logs in');
    expect(problems).toEqual([]);
  });
});
