/**
 * A failed UI test's failed requests are masked as the rest of its result is (found by QA):
 * a page that sent a project secret in a request URL that failed (a beacon to a host that
 * is down) had the secret in plain text in the results API, in every report format and in
 * the live stream's state_update, while the step's own description said ***. Real HTTP,
 * real Chromium, a project secret set through the environment API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runEnded, type TestServer, type Client } from '../support/server.ts';
import { secretPageProject, type SecretPageProject } from '../support/secret-page-project.ts';

const SECRET = 'Zq9-failed-req-s3cret';

let fixture: SecretPageProject;
let server: TestServer;
let api: Client;
let token: string;
let projectId: string;
let deadPort: number;

beforeAll(async () => {
  // A port nothing listens on: requests to it fail with ERR_CONNECTION_REFUSED.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  deadPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  // An app that sends what it is given to a collector that is down.
  fixture = await secretPageProject({
    email: 'failed-req-secrets@example.com', secretName: 'TOKEN', secret: SECRET,
    page: (_req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(`<!doctype html><html><head><title>beacon</title></head><body><h1>Beacon</h1><script>
        const k = new URL(location.href).searchParams.get('k');
        fetch('http://127.0.0.1:${deadPort}/collect?k=' + encodeURIComponent(k)).catch(() => { document.title = 'sent'; });
      </script></body></html>`);
    },
  });
  ({ server, api, token, projectId } = fixture);
}, 60_000);

afterAll(async () => {
  await fixture?.stop();
});

describe("a failed UI test's failed requests", () => {
  it('mask a secret in the request URL: results, every report format and the stream', async () => {
    const test = await api.post('/api/tests', {
      project_id: projectId, name: 'beacon page', type: 'ui', timeout_ms: 20_000,
      // The title turns 'sent' once the beacon failed; then the heading check fails the test.
      steps: [{ type: 'goto', url: '/?k={{secrets.TOKEN}}' }],
      assertions: [{ type: 'title', equals: 'sent' }, { type: 'text', selector: 'h1', contains: 'not on the page' }],
    });
    expect(test.status, test.text).toBe(201);
    const start = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [test.body.id] });
    expect(start.status, start.text).toBe(201);
    const runId = start.body.run.id as string;
    await runEnded(api, runId, 120_000);

    const results = await api.get(`/api/v1/tests/${runId}/results`);
    const result = results.body.items[0];
    expect(result.status, results.text).toBe('failed');
    expect(result.metadata.failed_requests, results.text).toEqual([{ method: 'GET', url: `http://127.0.0.1:${deadPort}/collect?k=***`, failure: 'net::ERR_CONNECTION_REFUSED' }]);
    expect(results.text).not.toContain(SECRET);

    for (const format of ['json', 'html', 'md', 'junit']) {
      const report = await api.get(`/api/reports/${runId}?format=${format}`);
      expect(report.status, `${format}: ${report.text}`).toBe(200);
      expect(report.text, format).toContain(`/collect?k=***`);
      expect(report.text, format).not.toContain(SECRET);
    }

    const stream = await fetch(`${server.url}/stream/${encodeURIComponent(start.body.run.thread_id)}`, { headers: { authorization: `Bearer ${token}` } });
    expect(stream.status).toBe(200);
    const events = await stream.text();
    expect(events).toContain('event: complete');
    expect(events).not.toContain(SECRET);
  }, 180_000);
});
