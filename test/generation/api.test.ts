import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

/**
 * The generation endpoints on the real local runtime: every generated test is executed
 * once in real Chromium against the fixture app, saved to tests only when it passed.
 */
let server: TestServer;
let app: FixtureApp;
let api: Client;
let other: Client;
let projectId: string;
let auth: { token: string; orgId: string };

/** Fixed ports when asked for (SVC_TEST_APP_PORT, SVC_TEST_SERVER_PORT); any free one otherwise. */
const portFrom = (name: string) => Number(process.env[name]) || undefined;

beforeAll(async () => {
  app = await startFixtureApp({ port: portFrom('SVC_TEST_APP_PORT') });
  server = await startTestServer({ port: portFrom('SVC_TEST_SERVER_PORT') });
  const me = await signUp(server.url, 'gen@example.com');
  auth = me;
  api = client(server.url, { token: me.token, org: me.orgId });
  const them = await signUp(server.url, 'other-gen@example.com');
  other = client(server.url, { token: them.token, org: them.orgId });
  const p = await api.post('/api/v1/projects', { name: 'shop', app_url: app.url });
  expect(p.status).toBe(201);
  projectId = p.body.id;
});
afterAll(async () => {
  await server?.stop();
  await app?.close();
});

const LOGIN = `Scenario: sign in
Given I am on the login page
When I fill "Email" with "demo@example.com"
And I fill "Password" with "s3cret!"
And I click "Sign in"
Then I should be redirected to "/dashboard"
And I should see heading "Welcome"`;

describe('POST /api/nlp/create-test and /api/nlp/create-from-story', () => {
  it('a story that passes is executed once, kept with its confidence and created as a passing test', async () => {
    const r = await api.post('/api/nlp/create-from-story', { project_id: projectId, story: `As a shopper\nI want to sign in\nso that I see my orders\n${LOGIN}` });
    expect(r.status, r.text).toBe(201);
    expect(r.body.execution.status).toBe('passed');
    expect(r.body.test.description).toBe('As a shopper, I want to sign in, so that I see my orders.');
    expect(r.body.test.name).toBe('sign in');
    expect(r.body.generated_test).toMatchObject({ project_id: projectId, source: 'story', execution_status: 'passed', test_id: r.body.created_test.id });
    expect(r.body.generated_test.confidence_score).toBeGreaterThan(0.8);
    // Saved with the readable locators of what the grammar's unions matched (a second run passed with them); `test` is as generated.
    const code = JSON.parse(r.body.generated_test.code);
    expect(code.steps.filter((s: { selector?: unknown }) => s.selector)).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'click', selector: { test_id: 'login-submit' } })]));
    expect(JSON.stringify(code.steps)).not.toContain('internal:or=');
    expect(JSON.stringify(r.body.test.steps)).toContain('internal:or=');
    expect(r.body.created_test.steps).toEqual(code.steps);
    const stored = await api.get(`/api/tests/${r.body.created_test.id}`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ name: 'sign in', status: 'passed', type: 'ui' });
  });

  it('a Scenario Outline becomes one parameterised test: each example row is a set, each run before it is kept', async () => {
    const outline = `Scenario Outline: search the catalogue
Given I am on "/table"
Then I should see "<product>"
And I should see heading "<heading>"

Examples:
  | product | heading  |
  | Anchor  | Products |
  | Drill   | Products |`;
    const r = await api.post('/api/nlp/create-from-story', { project_id: projectId, story: outline });
    expect(r.status, r.text).toBe(201);
    expect(r.body.execution.status, JSON.stringify(r.body.execution)).toBe('passed');
    expect(r.body.test.parameter_sets).toEqual([{ values: { product: 'Anchor', heading: 'Products' } }, { values: { product: 'Drill', heading: 'Products' } }]);
    expect(JSON.stringify(r.body.test.steps)).toContain('{{product}}');
    const stored = await api.get(`/api/tests/${r.body.created_test.id}`);
    expect(stored.body.parameter_sets).toHaveLength(2);

    // A row the page does not satisfy fails the check-run, naming its set.
    const bad = await api.post('/api/nlp/create-from-story', { project_id: projectId, story: `${outline}
  | Nothing like it | Products |` });
    expect(bad.status, bad.text).toBe(201);
    expect(bad.body.execution).toMatchObject({ status: 'failed', parameter_set: 'product=Nothing like it, heading=Products' });
    expect(bad.body.execution.error).toMatch(/^parameter set product=Nothing like it, heading=Products: /);
    expect(bad.body.created_test).toBeNull();
  });

  it('a test that fails its one run is kept as not passing and not created', async () => {
    const r = await api.post('/api/nlp/create-test', { project_id: projectId, text: 'go to "/login"\nexpect heading "Nothing like this"' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.execution.status).toBe('failed');
    expect(r.body.execution.error).toMatch(/heading/);
    expect(r.body.created_test).toBeNull();
    expect(r.body.generated_test).toMatchObject({ execution_status: 'failed', test_id: null });
    expect(r.body.generated_test.confidence_score).toBeLessThan(0.35);
  });

  it('a test that checks nothing gets a low confidence and a no-assertions warning, even when it passes (a goto to a 404 page scored 1; found by QA)', async () => {
    const r = await api.post('/api/nlp/create-test', { project_id: projectId, text: 'go to "/this-does-not-exist"' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.execution.status).toBe('passed');
    expect(r.body.generated_test.confidence_score).toBe(0.3);
    expect(r.body.warnings).toEqual([{ rule: 'no-assertions', message: expect.stringMatching(/^the test checks nothing, so its pass says only that its steps ran/) }]);
    // With a check, no warning and a high confidence.
    const checked = await api.post('/api/nlp/create-test', { project_id: projectId, text: 'go to "/login"\nexpect heading "Sign in"' });
    expect(checked.body.execution.status).toBe('passed');
    expect(checked.body.warnings).toEqual([]);
    expect(checked.body.generated_test.confidence_score).toBeGreaterThan(0.9);
  });

  it('a visual check in plain language passes its one run (recorded for that run only) and leaves no baseline behind', async () => {
    const r = await api.post('/api/nlp/create-test', { project_id: projectId, text: 'go to "/visual"\nthe page matches the baseline "visual page"' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.execution.status).toBe('passed');
    expect(r.body.test.steps[1]).toEqual({ type: 'assert', assertion: { type: 'visual', baseline: 'visual page' } });
    const baselines = await api.get(`/api/visual/baselines?project_id=${projectId}`);
    expect(baselines.body.items).toEqual([]);
  });

  it('API sentences run against the base URL given in the request', async () => {
    const r = await api.post('/api/nlp/create-test', { project_id: projectId, base_url: app.url, text: 'POST /api/items with {"name": "lamp", "price": 3} and bearer token "fixture-token" returns 201\nexpect response field "name" to be "lamp"' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.test.type).toBe('api');
    expect(r.body.execution.status).toBe('passed');
    expect(r.body.created_test.type).toBe('api');
  });

  it('lines the grammar cannot read: 400 listing each line and the closest sentence; allow_partial generates from the rest', async () => {
    const r = await api.post('/api/nlp/create-test', { project_id: projectId, text: 'go to "/login"\nfeel the vibe of the page\nclick "Sign in"' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('VALIDATION_FAILED');
    // The headline names the field, as every validation error does.
    expect(r.body.error.message).toMatch(/^Invalid request: text: line 2: not understood: "feel the vibe of the page"/);
    // This server has no model: the answer says so, rather than leaving the grammar as the only reader a caller knows of.
    expect(r.body.error.message).toMatch(/\. No language model is configured \(SVC_LLM_PROVIDERS\) to rewrite free-form lines into these sentences$/);
    expect(r.body.error.details.not_understood).toEqual([expect.objectContaining({ line: 2, closest: expect.any(String) })]);
    const partial = await api.post('/api/nlp/create-test', { project_id: projectId, execute: false, allow_partial: true, text: 'go to "/login"\nfeel the vibe of the page\nexpect heading "Sign in"' });
    expect(partial.status).toBe(201);
    expect(partial.body.not_understood).toHaveLength(1);
    expect(partial.body.execution).toEqual({ status: 'not_executed', error: 'execution was not requested (execute: false)' });
  });

  it('an empty quoted value that names an element, text, page or request is not understood (found by QA: `expect text ""` passed on any page, `click ""` clicked any button, `GET ""` was a 500); an empty value to type or expect still works', async () => {
    for (const line of ['expect text ""', 'click ""', 'expect title ""', 'go to ""', 'GET "" returns 200']) {
      const r = await api.post('/api/nlp/create-test', { project_id: projectId, text: `go to "/login"\n${line}` });
      expect(r.status, `${line}: ${r.text}`).toBe(400);
      expect(r.body.error.details.not_understood, line).toEqual([expect.objectContaining({ line: 2, text: line })]);
    }
    const story = await api.post('/api/nlp/create-from-story', { project_id: projectId, story: 'Given I am on "/login"\nThen I should see ""' });
    expect(story.status, story.text).toBe(400);
    const cleared = await api.post('/api/nlp/create-test', { project_id: projectId, text: 'go to "/login"\nfill "Email" with "x"\nfill "Email" with ""\nexpect "Email" to have value ""' });
    expect(cleared.status, cleared.text).toBe(201);
    expect(cleared.body.execution.status, JSON.stringify(cleared.body.execution)).toBe('passed');
  });

  it('a fixed wait longer than the generated test\'s one-minute budget raises its timeout, so the test can pass (found by QA: "wait 90 seconds" timed out every time)', async () => {
    let r = await api.post('/api/nlp/create-test', { project_id: projectId, execute: false, text: 'go to "/login"\nwait 90 seconds\nexpect heading "Sign in"' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.test.timeout_ms).toBe(150_000);
    expect(JSON.parse(r.body.generated_test.code).timeout_ms).toBe(150_000);
    const script = "await page.goto('/login');\nawait page.waitForTimeout(120000);\nawait expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();";
    r = await api.post('/api/recording/convert', { project_id: projectId, execute: false, recording: script });
    expect(r.status, r.text).toBe(201);
    expect(r.body.test.timeout_ms).toBe(180_000);
    // The one-minute budget is for the other steps: a wrong guess still fails fast. Without waits it is the budget alone.
    r = await api.post('/api/nlp/create-test', { project_id: projectId, execute: false, text: 'go to "/login"\nwait 2 seconds' });
    expect(r.body.test.timeout_ms).toBe(62_000);
    r = await api.post('/api/nlp/create-test', { project_id: projectId, execute: false, text: 'go to "/login"' });
    expect(r.body.test.timeout_ms).toBe(60_000);
  });

  it('bad bodies name the field; another tenant\'s project is a 404', async () => {
    let r = await api.post('/api/nlp/create-test', { project_id: projectId });
    expect(r.status).toBe(400);
    expect(r.body.error.details.issues[0].path).toBe('text');
    r = await api.post('/api/nlp/create-from-story', { project_id: projectId });
    expect(r.status).toBe(400);
    expect(r.body.error.details.issues[0].path).toBe('story');
    r = await other.post('/api/nlp/create-test', { project_id: projectId, text: 'go to "/login"' });
    expect(r.status).toBe(404);
    // A label longer than a test may hold is the caller's to shorten: a 400 saying where, not a 500 (found by QA).
    const before = (await api.get(`/api/generated-tests?project_id=${projectId}`)).body.items.length;
    r = await api.post('/api/nlp/create-test', { project_id: projectId, execute: false, text: `click "${'a'.repeat(3_000)}"` });
    expect(r.status).toBe(400);
    expect(r.body.error.details.issues[0]).toEqual({ path: expect.stringMatching(/^test\.steps\.0\./), message: expect.stringMatching(/^at most \d+ characters \(got \d+\): the input gives a value longer than a test may hold; shorten it$/) });
    expect((await api.get(`/api/generated-tests?project_id=${projectId}`)).body.items.length).toBe(before);
    // A metadata address is refused at the edge, naming the field, and nothing is kept (it was stored, then refused at execution).
    r = await api.post('/api/nlp/create-test', { project_id: projectId, base_url: 'http://169.254.169.254/', text: 'go to "/login"' });
    expect([r.status, r.body.error.details.issues[0].path]).toEqual([400, 'base_url']);
    r = await api.post('/api/generate', { project_id: projectId, intent: 'smoke', url: 'http://169.254.169.254/latest/' });
    expect([r.status, r.body.error.details.issues[0].path]).toEqual([400, 'url']);
    expect((await api.get(`/api/generated-tests?project_id=${projectId}`)).body.items.length).toBe(before);
  });

  it('generated tests are listed per project and readable by id; other tenants see nothing', async () => {
    const list = await api.get(`/api/generated-tests?project_id=${projectId}&limit=100`);
    expect(list.status).toBe(200);
    expect(list.body.items.length).toBeGreaterThanOrEqual(3);
    const statuses = new Set(list.body.items.map((g: { execution_status: string }) => g.execution_status));
    expect(statuses).toEqual(new Set(['passed', 'failed', 'not_executed']));
    const one = await api.get(`/api/generated-tests/${list.body.items[0].id}`);
    expect(one.body).toEqual(list.body.items[0]);
    expect((await other.get(`/api/generated-tests/${list.body.items[0].id}`)).status).toBe(404);
    expect((await other.get(`/api/generated-tests?project_id=${projectId}`)).status).toBe(404);
  });

  it('no base URL anywhere: the test comes back unexecuted with a clear reason', async () => {
    const p = await api.post('/api/v1/projects', { name: 'no url' });
    const r = await api.post('/api/nlp/create-test', { project_id: p.body.id, text: 'go to "/login"\nexpect heading "Sign in"' });
    expect(r.status).toBe(201);
    expect(r.body.execution).toEqual({ status: 'not_executed', error: "the test uses relative URLs and there is no base URL: give base_url or set the project's app_url" });
    expect(r.body.created_test).toBeNull();
    expect(r.body.generated_test.execution_status).toBe('not_executed');
  });
});

describe('POST /api/recording/convert', () => {
  const recording = {
    title: 'recorded sign in',
    steps: [
      { type: 'navigate', url: 'https://prod.example.com/login' },
      { type: 'change', value: 'demo@example.com', selectors: [['aria/Email'], ['#email']] },
      { type: 'change', value: 's3cret!', selectors: [['#password']] },
      { type: 'click', selectors: [['aria/Sign in[role="button"]'], ['#login-submit']] },
      { type: 'waitForElement', selectors: [['#welcome']] },
      { type: 'waitForExpression', expression: '1' },
    ],
  };

  it('JSON body: converted, skipped steps listed, executed and created', async () => {
    const r = await api.post('/api/recording/convert', { project_id: projectId, recording });
    expect(r.status, r.text).toBe(201);
    expect(r.body.format).toBe('chrome-recorder');
    expect(r.body.skipped).toEqual([{ at: 5, what: 'waitForExpression', reason: expect.stringMatching(/expressions are not supported/) }]);
    expect(r.body.execution.status).toBe('passed');
    expect(r.body.created_test.name).toBe('recorded sign in');
  });

  it('multipart upload of a Playwright script', async () => {
    const form = new FormData();
    form.set('project_id', projectId);
    form.set('execute', 'false');
    form.set('file', new Blob([`test('t', async ({ page }) => {\n  await page.goto('/login');\n  await page.getByRole('button', { name: 'Sign in' }).click();\n});`], { type: 'text/plain' }), 'recording.spec.ts');
    const res = await fetch(`${server.url}/api/recording/convert`, { method: 'POST', body: form, headers: { authorization: `Bearer ${auth.token}`, 'x-organization-id': auth.orgId } });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body.format).toBe('playwright');
    expect(body.test.steps).toEqual([{ type: 'goto', url: '/login' }, { type: 'click', selector: { role: 'button', name: 'Sign in' } }]);
    expect(body.execution.status).toBe('not_executed');
  });

  it('multipart: an execute that is neither true nor false is a 400 naming execute, not a run (found by QA: "no" and "0" ran the test)', async () => {
    for (const execute of ['no', '0', 'yes']) {
      const form = new FormData();
      form.set('project_id', projectId);
      form.set('execute', execute);
      form.set('file', new Blob([`await page.goto('/login');`], { type: 'text/plain' }), 'recording.spec.ts');
      const res = await fetch(`${server.url}/api/recording/convert`, { method: 'POST', body: form, headers: { authorization: `Bearer ${auth.token}`, 'x-organization-id': auth.orgId } });
      const body = await res.json();
      expect(res.status, `${execute}: ${JSON.stringify(body)}`).toBe(400);
      expect(body.error.details.issues[0].path).toBe('execute');
    }
  });

  it('unknown format → 400 naming recording; over 50 MB → 413', async () => {
    let r = await api.post('/api/recording/convert', { project_id: projectId, recording: { some: 'thing' } });
    expect(r.status).toBe(400);
    expect(r.body.error.details.issues[0].path).toBe('recording');
    expect(r.body.error.message).toMatch(/unknown recording format/);
    r = await api.post('/api/recording/convert', { project_id: projectId, recording: 'x'.repeat(50 * 1024 * 1024 + 100 * 1024) });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('POST /api/test/from-event', () => {
  it('an error that comes back in the console: the regression test fails (reproduced) and is not created', async () => {
    const r = await api.post('/api/test/from-event', {
      project_id: projectId,
      event: {
        message: 'Error: fixture: widget failed to render',
        url: `${app.url}/console?port=1`,
        user_agent: 'Mozilla/5.0 Chrome/120',
        breadcrumbs: [{ category: 'navigation', data: { from: `${app.url}/`, to: `${app.url}/console?port=1` } }, { category: 'fetch', data: { method: 'GET', url: 'http://127.0.0.1:1/unreachable', status_code: 0 } }],
      },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.test.steps[0]).toEqual({ type: 'goto', url: '/' });
    expect(r.body.test.assertions).toEqual([{ type: 'no_console_error', contains: 'fixture: widget failed to render', name: 'the production error does not happen again', quiet_ms: 1000, timeout_ms: 5000 }]);
    expect(r.body.execution.status).toBe('failed');
    expect(r.body.execution.error).toBe('assertion 1 (the production error does not happen again: expect no console error containing "fixture: widget failed to render"): no_console_error: expected no console error or uncaught exception containing "fixture: widget failed to render", saw 1: "fixture: widget failed to render"');
    expect(r.body.reproduced).toBe(true);
    expect(r.body.created_test).toBeNull();
  });

  it('an error that no longer happens: the regression test passes and is created', async () => {
    const r = await api.post('/api/test/from-event', {
      project_id: projectId,
      event: {
        message: 'TypeError: cannot read properties of undefined (reading "price")',
        url: `${app.url}/table`,
        breadcrumbs: [{ category: 'ui.click', message: 'nav a[href="/table"]' }, { category: 'navigation', data: { from: '/', to: '/table' } }, { category: 'xhr', data: { method: 'GET', url: `${app.url}/api/items`, status_code: 503 } }],
      },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.failing_request).toEqual({ method: 'GET', url: `${app.url}/api/items`, status: 503 });
    expect(r.body.execution.status, JSON.stringify(r.body.execution)).toBe('passed');
    expect(r.body.reproduced).toBe(false);
    expect(r.body.created_test.tags).toContain('production-error');
  });

  it('an error thrown after a fetch, after load: the test\'s console check waits for the page to settle and fails with it (found by QA: the run ended first and the test was saved as passing)', async () => {
    const r = await api.post('/api/test/from-event', {
      project_id: projectId,
      event: { message: 'Uncaught Boom failed 500', url: `${app.url}/late-error`, breadcrumbs: [{ category: 'fetch', data: { method: 'GET', url: `${app.url}/api/items`, status_code: 200 } }] },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.execution.status, JSON.stringify(r.body.execution)).toBe('failed');
    expect(r.body.execution.error).toMatch(/^assertion 1 \(the production error does not happen again: expect no console error containing "Boom failed 500"\): no_console_error: .*saw 1: "Uncaught Boom failed 500"$/);
    expect(r.body.warnings).toEqual([]);
    expect(r.body.execution.console_errors).toContain('Uncaught Boom failed 500');
    expect(r.body.reproduced).toBe(true);
    expect(r.body.created_test).toBeNull();
  });

  it('a console error that no longer happens (no failed request): the console check passes, so the test is a regression test and is created', async () => {
    const r = await api.post('/api/test/from-event', {
      project_id: projectId,
      event: { message: 'TypeError: cannot read properties of undefined (reading "rows")', url: `${app.url}/table`, breadcrumbs: [{ category: 'ui.click', data: { text: 'Next' } }] },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.test.steps.map((s: { type: string }) => s.type)).toEqual(['goto', 'click', 'assert']);
    expect(r.body.test.assertions).toEqual([expect.objectContaining({ type: 'no_console_error', contains: 'cannot read properties of undefined (reading "rows")' })]);
    expect(r.body.execution.status, JSON.stringify(r.body.execution)).toBe('passed');
    expect(r.body.reproduced).toBe(false);
    expect(r.body.warnings).toEqual([]);
    expect(r.body.reproduction_note).toBeUndefined();
    expect(r.body.created_test.assertions).toEqual(r.body.test.assertions);
    expect(r.body.generated_test.confidence_score).toBeGreaterThan(0.8);
  });

  it('a replay that passes but has no check that would catch the error (a message no console shows): not reproduced, low confidence, said why, not created (found by QA: saved as passing, 0.875)', async () => {
    const r = await api.post('/api/test/from-event', {
      project_id: projectId,
      event: { message: 'Script error.', url: `${app.url}/table`, breadcrumbs: [{ category: 'ui.click', data: { text: 'Next' } }] },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.test.steps.map((s: { type: string }) => s.type)).toEqual(['goto', 'click', 'assert']);
    expect(r.body.test.assertions).toEqual([]);
    expect(r.body.execution.status, JSON.stringify(r.body.execution)).toBe('passed');
    expect(r.body.reproduced).toBe(false);
    expect(r.body.created_test).toBeNull();
    expect(r.body.generated_test).toMatchObject({ execution_status: 'passed', test_id: null });
    expect(r.body.generated_test.confidence_score).toBeLessThanOrEqual(0.3);
    expect(r.body.warnings).toEqual([{ rule: 'cannot-catch-the-error', message: expect.stringMatching(/^the test has no check that fails when the error happens \(its message "Script error\." is not the error's own text.*it would pass while the error still happens/) }]);
    expect(r.body.reproduction_note).toMatch(/^not reproduced: the error did not show up in the console \(waited for the page to settle: .*\), and the test has no check that would catch it \(its message is not one a console shows\), so it was not saved as a passing regression test$/);
  });

  it('a request that still fails reproduces; a replay that breaks earlier does not count as reproduced', async () => {
    let r = await api.post('/api/test/from-event', { project_id: projectId, event: { message: 'Error: item not found', url: `${app.url}/table`, breadcrumbs: [{ category: 'fetch', data: { method: 'GET', url: `${app.url}/api/items/999`, status_code: 404 } }] } });
    expect(r.status, r.text).toBe(201);
    expect(r.body.execution.status).toBe('failed');
    expect(r.body.execution.failed_step).toBe(r.body.test.steps.length - 1);
    expect(r.body.reproduced).toBe(true);
    r = await api.post('/api/test/from-event', { project_id: projectId, event: { message: 'Error: x', url: `${app.url}/table`, breadcrumbs: [{ category: 'ui.click', message: '#gone-button' }, { category: 'fetch', data: { method: 'GET', url: `${app.url}/api/items/999`, status_code: 404 } }] } });
    expect(r.body.execution.status).toBe('failed');
    expect(r.body.execution.failure_kind).toBe('locator');
    expect(r.body.reproduced).toBe(false);
    // Production had a 500; the replay gets a 404: it failed, but not as in production (found by QA: a 401 for a replay without credentials counted).
    r = await api.post('/api/test/from-event', { project_id: projectId, event: { message: 'Error: checkout failed', url: `${app.url}/table`, breadcrumbs: [{ category: 'fetch', data: { method: 'GET', url: `${app.url}/api/items/999`, status_code: 500 } }] } });
    expect(r.body.execution.status).toBe('failed');
    expect(r.body.reproduced).toBe(false);
    expect(r.body.reproduction_note).toBe('not reproduced: production answered 500, the replay got 404 (the replayed request has no body or credentials)');
  });

  it('an event without a url, or with one that is not an http(s) URL or path, is a 400 naming event.url', async () => {
    let r = await api.post('/api/test/from-event', { project_id: projectId, event: { message: 'boom' } });
    expect(r.status).toBe(400);
    expect(r.body.error.details.issues.map((i: { path: string }) => i.path)).toContain('event.url');
    r = await api.post('/api/test/from-event', { project_id: projectId, event: { message: 'boom', url: 'not a url' } });
    expect(r.status).toBe(400);
    expect(r.body.error.details.issues).toEqual([{ path: 'event.url', message: 'give the page the error happened on as an http(s) URL or a path starting with /' }]);
  });

  it('breadcrumbs whose target is blank are skipped, not a 500 or a click on any button (found by QA); a blank data.selector gives way to the message', async () => {
    const r = await api.post('/api/test/from-event', {
      project_id: projectId,
      event: {
        message: 'TypeError: boom',
        url: '/login',
        breadcrumbs: [
          { category: 'ui.click', message: '   ' },
          { category: 'ui.click', data: { text: '  ' } },
          { category: 'ui.input', message: ' ', data: { value: 'x' } },
          { category: 'ui.input', data: { label: ' ', value: 'x' } },
          { category: 'ui.input', data: { selector: '', value: 'demo@example.com' }, message: '#email' },
        ],
      },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.skipped.map((s: { at: number }) => s.at)).toEqual([0, 1, 2, 3]);
    expect(r.body.test.steps.slice(0, 2)).toEqual([{ type: 'goto', url: '/login' }, { type: 'fill', selector: { css: '#email' }, value: 'demo@example.com' }]);
    expect(r.body.execution.status, JSON.stringify(r.body.execution)).toBe('passed');
    const stored = await api.get(`/api/tests/${r.body.created_test.id}`);
    expect(stored.status).toBe(200);
  });
});

describe('POST /api/generate, /api/generate/batch, /api/test/review', () => {
  it('a smoke test for a page, and an intent in plain language', async () => {
    let r = await api.post('/api/generate', { project_id: projectId, url: '/table' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.test.tags).toContain('smoke');
    expect(r.body.execution.status).toBe('passed');
    // A URL on the project's app origin becomes a path (the review had an absolute-url finding on it; found by QA).
    r = await api.post('/api/generate', { project_id: projectId, url: `${app.url}/login` });
    expect(r.status, r.text).toBe(201);
    expect(r.body.test.steps[0]).toEqual({ type: 'goto', url: '/login' });
    expect(r.body.review.findings).toEqual([]);
    expect(r.body.execution.status, JSON.stringify(r.body.execution)).toBe('passed');
    // The smoke test fails on an error page (it passed: a 404 page has a title and text) and on a page a guard redirects away from.
    r = await api.post('/api/generate', { project_id: projectId, url: '/no-such-page' });
    expect(r.body.execution.status).toBe('failed');
    expect(r.body.execution.error).toMatch(/expected status in \[200, .*got 404/);
    expect(r.body.created_test).toBeNull();
    r = await api.post('/api/generate', { project_id: projectId, url: '/dashboard' });
    expect(r.body.execution.status).toBe('failed');
    expect(r.body.execution.failed_step).toBe(1);
    expect(r.body.execution.error).toMatch(/^step 2 \(expect url matches .*login\?next=/s);
    r = await api.post('/api/generate', { project_id: projectId, url: '/table', intent: 'fill "Filter" with "lamp"\nexpect text "Lamp"' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.test.steps[0]).toEqual({ type: 'goto', url: '/table' });
    expect(r.body.review.findings).toEqual([]);
    // A free-form intent: refused naming the line and the closest sentence, and where free-form text is read (with a model).
    r = await api.post('/api/generate', { project_id: projectId, url: '/login', intent: 'a user signs in with a wrong password and sees an error' });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/^Invalid request: intent: line 1: not understood: "a user signs in with a wrong password and sees an error" .*closest supported sentence: .*\. The intent is read by svc's sentence grammar, one action per line; free-form lines: POST \/api\/nlp\/create-test rewrites them with a language model \(none is configured: SVC_LLM_PROVIDERS\)$/);
  });

  it('a url that is no web page (javascript:, file:, ftp:, a host without a scheme) is a 400 naming url, not a smoke test kept as generated (found by QA)', async () => {
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'ftp://files.example.com/a', 'localhost:3000/login']) {
      const r = await api.post('/api/generate', { project_id: projectId, url });
      expect(r.status, `${url}: ${r.text}`).toBe(400);
      expect(r.body.error.details.issues[0].path, url).toBe('url');
    }
    const listed = await api.get(`/api/generated-tests?project_id=${projectId}&limit=100`);
    expect(listed.body.items.map((g: { name: string }) => g.name).filter((n: string) => /javascript|file:|ftp:|localhost:3000/.test(n))).toEqual([]);
  });

  it('a batch of discovered flows: each executed once, counted', async () => {
    const flows = [
      { name: 'Sign in', flow_type: 'authentication', url: '/login', steps: [{ type: 'fill', selector: { label: 'Email', exact: true }, value: 'demo@example.com' }, { type: 'fill', selector: { label: 'Password', exact: true }, value: 's3cret!' }, { type: 'click', selector: { role: 'button', name: 'Sign in', exact: true } }, { type: 'assert', assertion: { type: 'url', contains: '/dashboard' } }] },
      { name: 'Broken flow', flow_type: 'navigation', steps: [{ type: 'goto', url: '/hover' }, { type: 'click', selector: '#not-there', timeout_ms: 1500 }] },
    ];
    const r = await api.post('/api/generate/batch', { project_id: projectId, flows });
    expect(r.status, r.text).toBe(201);
    expect([r.body.passed, r.body.failed, r.body.not_executed]).toEqual([1, 1, 0]);
    expect(r.body.results[0].test.steps[0]).toEqual({ type: 'goto', url: '/login' });
    expect(r.body.results[0].test.priority).toBe('critical');
    expect(r.body.results[1].review.findings.map((f: { rule: string }) => f.rule)).toContain('no-assertions');
    const bad = await api.post('/api/generate/batch', { project_id: projectId, flows: [{ name: 'x', steps: [{ type: 'teleport' }] }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].path).toMatch(/^flows\.0\.steps\.0/);
  });

  it('review: findings for an inline test and a stored one; another tenant cannot review ours', async () => {
    let r = await api.post('/api/test/review', { test: { type: 'ui', steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#password', value: 'hunter2' }, { type: 'wait-for', ms: 2000 }] } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.findings.map((f: { rule: string }) => f.rule).sort()).toEqual(['fixed-wait', 'hard-coded-credential', 'no-assertions']);
    for (const f of r.body.findings) expect(f).toMatchObject({ rule: expect.any(String), severity: expect.stringMatching(/^(high|medium|low)$/), message: expect.any(String), suggestion: expect.any(String) });
    expect(r.body.findings.find((f: { rule: string }) => f.rule === 'fixed-wait').step).toBe(2);
    const created = await api.post('/api/tests', { project_id: projectId, name: 'stored', type: 'ui', steps: [{ type: 'goto', url: '/' }, { type: 'assert', assertion: { type: 'visible', selector: { role: 'heading', name: 'Fixture Shop' } } }] });
    r = await api.post('/api/test/review', { test_id: created.body.id });
    expect(r.body).toEqual({ score: 100, findings: [] });
    r = await other.post('/api/test/review', { test_id: created.body.id });
    expect(r.status).toBe(404);
    r = await api.post('/api/test/review', {});
    expect(r.status).toBe(400);
  });
});
