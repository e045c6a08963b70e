/**
 * An accessibility check's findings are masked as the rest of a result is (found by QA):
 * axe reports each violating element's opening HTML, and a page that put a project secret
 * the test sent into an attribute (an image without alt text, its URL carrying the token)
 * had the secret in plain text in the results API and the JSON and HTML reports, while
 * the step's own description said ***. Real HTTP, real Chromium, axe-core in the page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEnded, type Client } from '../support/server.ts';
import { escapeHtml, secretPageProject, type SecretPageProject } from '../support/secret-page-project.ts';

const SECRET = 'Zq9-a11y-s3cret';
const esc = escapeHtml;

let fixture: SecretPageProject;
let api: Client;
let projectId: string;

beforeAll(async () => {
  // An app that puts what it is given into an image URL; the image has no alt text.
  fixture = await secretPageProject({
    email: 'a11y-secrets@example.com', secretName: 'TOKEN', secret: SECRET,
    page: (req, res) => {
      const k = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('k') ?? '';
      if (!(req.url ?? '/').startsWith('/?')) {
        res.statusCode = 404;
        return res.end();
      }
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(`<!doctype html><html lang="en"><head><title>pixel</title></head><body><main><h1>Pixel</h1><img src="/pixel.png?k=${esc(k)}" data-key="${esc(k)}" width="10" height="10"></main></body></html>`);
    },
  });
  ({ api, projectId } = fixture);
}, 60_000);

afterAll(async () => {
  await fixture?.stop();
});

describe("an accessibility check's findings", () => {
  it("mask a secret in a violating element's HTML: results, JSON, HTML, Markdown and JUnit reports", async () => {
    const test = await api.post('/api/tests', {
      project_id: projectId, name: 'pixel page', type: 'ui', timeout_ms: 30_000,
      steps: [{ type: 'goto', url: '/?k={{secrets.TOKEN}}' }],
      assertions: [{ type: 'accessibility' }],
    });
    expect(test.status, test.text).toBe(201);
    const start = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [test.body.id] });
    expect(start.status, start.text).toBe(201);
    const runId = start.body.run.id as string;
    await runEnded(api, runId, 120_000);

    const results = await api.get(`/api/v1/tests/${runId}/results`);
    const result = results.body.items[0];
    expect(result.status, results.text).toBe('failed');
    const violation = result.metadata.accessibility[0].violations.find((v: { id: string }) => v.id === 'image-alt');
    expect(violation, results.text).toBeDefined();
    expect(violation.nodes[0].html).toContain('k=***');
    expect(results.text).not.toContain(SECRET);

    for (const format of ['json', 'html', 'md', 'junit']) {
      const report = await api.get(`/api/reports/${runId}?format=${format}`);
      expect(report.status, `${format}: ${report.text}`).toBe(200);
      expect(report.text, format).toContain('image-alt');
      expect(report.text, format).not.toContain(SECRET);
    }
  }, 180_000);
});
