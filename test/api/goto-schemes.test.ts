/**
 * A UI test's goto opens web pages only (found by QA). The server's Chromium runs on svc's
 * own machine: a goto to file:///… (or view-source:file:///…) opened the server's files,
 * and a failing assertion, the failure's HTML snapshot and the trace carried them back —
 * a member of any organization read the data folder's first-admin.json (another
 * organization's admin password and API key), its secret key and its table (every
 * tenant's data). Now such a goto fails as a configuration failure naming the URL, before
 * the browser is asked; http(s) gotos work as before. Real HTTP, real Chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, client, signUp, runEnded, type TestServer, type Client } from '../support/server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

let server: TestServer;
let fixture: FixtureApp;
let api: Client;
let projectId: string;

beforeAll(async () => {
  fixture = await startFixtureApp();
  server = await startTestServer();
  // An organization of its own, not the installation's first: what it reads is not its own.
  const user = await signUp(server.url, 'goto-schemes@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: fixture.url })).body.id;
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await fixture?.close();
});

describe('goto URL schemes', () => {
  it("a goto to a file: or view-source: URL fails as configuration and reads nothing of the server's files; an http goto runs", async () => {
    const firstAdmin = `file://${server.dataDir}/first-admin.json`;
    const make = async (name: string, url: string) => {
      const res = await api.post('/api/tests', {
        project_id: projectId, name, type: 'ui', timeout_ms: 20_000,
        steps: [{ type: 'goto', url }],
        // Fails whatever the page says: its message and snapshot would show the page's text.
        assertions: [{ type: 'text', selector: 'body', contains: 'NOT-ON-ANY-PAGE' }],
      });
      expect(res.status, res.text).toBe(201);
      return res.body.id as string;
    };
    const fileTest = await make('file', firstAdmin);
    const sourceTest = await make('view-source', `view-source:${firstAdmin}`);
    const webTest = await make('web', '/');

    const start = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [fileTest, sourceTest, webTest] });
    expect(start.status, start.text).toBe(201);
    const runId = start.body.run.id as string;
    await runEnded(api, runId, 120_000);
    const results = await api.get(`/api/v1/tests/${runId}/results`);
    expect(results.status).toBe(200);
    const byTest = new Map<string, { status: string; error_message: string | null }>(results.body.items.map((r: { test_id: string }) => [r.test_id, r]));

    for (const [id, url] of [[fileTest, firstAdmin], [sourceTest, `view-source:${firstAdmin}`]]) {
      const result = byTest.get(id)!;
      expect(result.status).toBe('failed');
      expect(result.error_message).toContain(`goto: ${JSON.stringify(url)}: svc opens http and https URLs only`);
    }
    // The web page opened and its assertion ran: the page's text is in the message.
    expect(byTest.get(webTest)!.error_message).toContain('NOT-ON-ANY-PAGE');
    expect(byTest.get(webTest)!.error_message).not.toContain('svc opens http and https URLs only');

    // Nothing of the file is anywhere the run answers with: results, report, artifacts.
    const adminKey = server.admin.apiKey;
    const report = await api.get(`/api/reports/${runId}`);
    expect(report.status).toBe(200);
    const seen = [results.text, report.text];
    const artifacts = await api.get(`/api/runs/${runId}/artifacts`);
    expect(artifacts.status).toBe(200);
    for (const a of artifacts.body.items as Array<{ url: string; name: string }>) {
      if (a.name.endsWith('.html')) seen.push((await api.get(a.url)).text);
    }
    for (const text of seen) {
      expect(text).not.toContain(adminKey);
      expect(text).not.toContain(server.admin.password);
    }
  }, 180_000);
});
