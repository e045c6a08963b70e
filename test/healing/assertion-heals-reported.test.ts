/**
 * A heal of a trailing assertion's locator is reported like a step's (docs/healing.md
 * "What is healed"). QA found a test whose only heal was its `visible` assertion (#email →
 * test_id=login-email, fixture v1 → v2) counted as healed while every report's healed
 * selectors — JSON, Markdown, HTML, JUnit — and the result's assertion listed nothing: the
 * change a person is asked to review before merging was not shown anywhere.
 *
 * Real local runtime over HTTP, real Chromium, the fixture app.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { client, runEnded, signUp, type Client } from '../support/server.ts';

let v1: FixtureApp;
let v2: FixtureApp;
let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let api: Client;

beforeAll(async () => {
  v1 = await startFixtureApp({ version: 'v1' });
  v2 = await startFixtureApp({ version: 'v2' });
  server = await startRunGraphServer();
  const user = await signUp(server.url, 'assertion-heals@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await v1?.close();
  await v2?.close();
});

describe('a healed assertion locator', () => {
  it('is listed in the result and in every report, as the assertion it is', async () => {
    const projectId: string = (await api.post('/api/v1/projects', { name: 'shop', app_url: v1.url })).body.id;
    const created = await api.post('/api/tests', { project_id: projectId, name: 'the email field is shown', type: 'ui', steps: [{ type: 'goto', url: '/login' }], assertions: [{ type: 'visible', selector: '#email' }] });
    expect(created.status, created.text).toBe(201);
    const testId: string = created.body.id;
    const first = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [testId] });
    expect((await runEnded(api, first.body.run.id, 120_000)).passed_tests).toBe(1);

    const healedRun = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [testId], app_url: v2.url });
    const run = await runEnded(api, healedRun.body.run.id, 180_000);
    const [result] = (await api.get(`/api/v1/tests/${run.id}/results`)).body.items;
    expect(result.status).toBe('healed');
    expect(result.metadata.assertion_results).toEqual([expect.objectContaining({ index: 0, status: 'passed', healed: { original: '#email', healed: 'test_id=login-email', confidence: expect.any(Number) } })]);

    const json = (await api.get(`/api/reports/${run.id}?format=json`)).body;
    expect(json.tests[0].healed_selectors).toEqual([expect.objectContaining({ step: 1, assertion: 0, original: '#email', healed: 'test_id=login-email' })]);
    expect(json.tests[0].assertions.results[0].healed).toMatchObject({ original: '#email', healed: 'test_id=login-email' });
    const md = (await api.get(`/api/reports/${run.id}?format=md`)).text;
    expect(md).toContain('Healed selectors (1)');
    expect(md).toMatch(/\| the email field is shown \| assertion 1 \| `#email` \| `test_id=login-email` \|/);
    const html = (await api.get(`/api/reports/${run.id}?format=html`)).text;
    expect(html).toMatch(/<td>assertion 1<\/td><td><code class="before">#email<\/code><\/td><td><code class="after">test_id=login-email<\/code>/);
    const junit = (await api.get(`/api/reports/${run.id}?format=junit`)).text;
    expect(junit).toContain('name="svc.healed.assertion.1"');
    expect(junit).toContain('assertion 1: #email → test_id=login-email');
  }, 300_000);
});
