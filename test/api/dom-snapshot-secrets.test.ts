/**
 * A failed UI test's page HTML (failure.html, and the live stream's dom_snapshot event) is
 * masked as its results, reports and trace are (found by QA): a project secret the page
 * showed — here the app echoes a query parameter into its title, heading and an
 * attribute — came back in plain text from GET /api/runs/{id}/artifacts/…/failure.html
 * and from the run's event stream, while the assertion's message said ***. Real HTTP,
 * real Chromium, a project secret set through the environment API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEnded, type TestServer, type Client } from '../support/server.ts';
import { escapeHtml, secretPageProject, type SecretPageProject } from '../support/secret-page-project.ts';

// Characters HTML escapes: the serialised page spells the secret as …&lt;"value&gt; in
// text and …<&quot;value> in an attribute.
const SECRET = 'Zq9-s3cret<"value>';
const esc = escapeHtml;

let fixture: SecretPageProject;
let server: TestServer;
let api: Client;
let token: string;
let projectId: string;

beforeAll(async () => {
  // An app that shows what it is given: in the title, a heading and an attribute.
  fixture = await secretPageProject({
    email: 'dom-secrets@example.com', secretName: 'API_KEY', secret: SECRET,
    page: (req, res) => {
      const x = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('x') ?? '';
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(`<!doctype html><html><head><title>key ${esc(x)}</title></head><body><h1>Your key: ${esc(x)}</h1><input id="key" value="${esc(x)}"></body></html>`);
    },
  });
  ({ server, api, token, projectId } = fixture);
}, 60_000);

afterAll(async () => {
  await fixture?.stop();
});

describe("a failed UI test's page HTML", () => {
  it('masks a secret the page showed, in failure.html and in the dom_snapshot event', async () => {
    const test = await api.post('/api/tests', {
      project_id: projectId, name: 'key page', type: 'ui', timeout_ms: 20_000,
      steps: [{ type: 'goto', url: '/?x={{secrets.API_KEY}}' }],
      assertions: [{ type: 'text', selector: 'h1', contains: 'not on the page' }],
    });
    expect(test.status, test.text).toBe(201);
    const start = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [test.body.id] });
    expect(start.status, start.text).toBe(201);
    const runId = start.body.run.id as string;
    await runEnded(api, runId, 120_000);

    const results = await api.get(`/api/v1/tests/${runId}/results`);
    expect(results.body.items[0]).toMatchObject({ status: 'failed', error_message: expect.stringContaining('received "Your key: ***"') });

    const artifacts = await api.get(`/api/runs/${runId}/artifacts`);
    expect(artifacts.status).toBe(200);
    const snapshot = (artifacts.body.items as Array<{ kind: string; url: string }>).find((a) => a.kind === 'dom_snapshot');
    expect(snapshot, artifacts.text).toBeDefined();
    const html = await api.get(snapshot!.url);
    expect(html.status).toBe(200);
    // The page is there (what a person reads to see why the test failed), the secret is not.
    expect(html.text).toContain('Your key: ***');
    expect(html.text).toContain('<title>key ***</title>');
    expect(html.text).toContain('value="***"');
    expect(html.text).not.toContain('Zq9-s3cret');

    const stream = await fetch(`${server.url}/stream/${encodeURIComponent(start.body.run.thread_id)}`, { headers: { authorization: `Bearer ${token}` } });
    expect(stream.status).toBe(200);
    const events = await stream.text();
    expect(events).toContain('event: dom_snapshot');
    expect(events).toContain('Your key: ***');
    expect(events).not.toContain('Zq9-s3cret');
  }, 180_000);
});
