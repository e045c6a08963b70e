/**
 * The reports of a run that failed as a whole say so, and why (found by QA): a run that
 * stopped before its tests (here: its project has no tests, "no surfaces: …") is `failed`
 * with that error on its record and in its commit status, while its Markdown and HTML
 * reports said "Nothing ran" without a reason, the JSON report had no error, and the
 * JUnit report was an empty <testsuites/>. Real HTTP against the local runtime; the JUnit
 * XML is read back by libxml2 against the Jenkins schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateXML } from 'xmllint-wasm';
import { JsonReport } from '@svc/core/reporting/json-report';
import { startTestServer, client, signUp, runEnded, type TestServer, type Client } from '../support/server.ts';

const xsd = readFileSync(join(import.meta.dirname, '..', 'reporting', 'junit.xsd'), 'utf8');

let server: TestServer;
let api: Client;
let projectId: string;

beforeAll(async () => {
  server = await startTestServer();
  const user = await signUp(server.url, 'run-error-report@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'empty <b>shop</b>', app_url: 'http://127.0.0.1:9' })).body.id;
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe('the reports of a run that failed as a whole', () => {
  it('say that it failed and why, in every format', async () => {
    const start = await api.post('/api/v1/test/run', { project_id: projectId });
    expect(start.status, start.text).toBe(201);
    const runId = start.body.run.id as string;
    const run = await runEnded(api, runId);
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/^no surfaces: /);

    const md = (await api.get(`/api/reports/${runId}?format=md`)).text;
    expect(md).toMatch(/^## ❌ Failed — /);
    expect(md).toContain('> The run failed: no surfaces: the project has no tests to run');

    const html = (await api.get(`/api/reports/${runId}?format=html`)).text;
    expect(html).toContain('<header class="run-failed">');
    expect(html).toContain('The run failed: no surfaces: the project has no tests to run');
    expect(html).toMatch(/<title>✗ /);

    const json = JSON.parse((await api.get(`/api/reports/${runId}?format=json`)).text);
    expect(() => JsonReport.parse(json)).not.toThrow();
    expect(json.run.error).toBe(run.error);

    const junit = (await api.get(`/api/reports/${runId}?format=junit`)).text;
    const valid = await validateXML({ xml: [{ fileName: 'junit.xml', contents: junit }], schema: [{ fileName: 'junit.xsd', contents: xsd }] });
    expect(valid.errors.map((e) => e.rawMessage)).toEqual([]);
    expect(junit).toContain(`<property name="svc.run_error" value="${run.error}"/>`);

    // A run that ran to its end has none of it.
    const passedProject = (await api.post('/api/v1/projects', { name: 'ok', app_url: server.url })).body.id;
    const test = await api.post('/api/tests', { project_id: passedProject, name: 'health', type: 'api', steps: [{ type: 'request', url: '/health' }], assertions: [{ type: 'status', equals: 200 }] });
    expect(test.status, test.text).toBe(201);
    const ok = await api.post('/api/v1/test/run', { project_id: passedProject });
    expect((await runEnded(api, ok.body.run.id)).status).toBe('completed');
    const okJson = JSON.parse((await api.get(`/api/reports/${ok.body.run.id}?format=json`)).text);
    expect(okJson.run).not.toHaveProperty('error');
    expect((await api.get(`/api/reports/${ok.body.run.id}?format=md`)).text).toMatch(/^## ✅ Passed — /);
  }, 120_000);
});
