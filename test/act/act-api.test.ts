/**
 * POST /api/act through the real local server: its browser (Chromium, the generation
 * executor the runs use) signs in to the fixture app with steps and with a plain-language
 * instruction read by the grammar (no model configured), a failing step is named while the
 * others are reported, the final page comes back with a real PNG, and save_as_test keeps
 * passing steps as a test that GET /api/tests lists. Also bad input naming the field, URLs
 * outside the project's hosts, another organization's project, NO_MODEL, the audit log and
 * the svc_act tool through the MCP SDK's own client (the screenshot as image content).
 */
import { describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ActResult } from '@svc/core/contracts/act';
import { client } from '../support/server.ts';
import { twoTenantsForFile } from '../support/two-tenants.ts';

const env = twoTenantsForFile('act');

const signIn = [
  { type: 'fill', selector: { label: 'Email' }, value: 'demo@example.com' },
  { type: 'fill', selector: { label: 'Password' }, value: 's3cret!' },
  { type: 'click', selector: { role: 'button', name: 'Sign in' } },
];
const issuesOf = (res: { body: { error: { details: { issues: Array<{ path: string; message: string }> } } } }) => res.body.error.details.issues;

/** A PNG decoded for real: the signature, then its size from the image data. */
function decodedPng(base64: string): PNG {
  const bytes = Buffer.from(base64, 'base64');
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return PNG.sync.read(bytes);
}

describe('POST /api/act', () => {
  it('signs in with steps and lands on the dashboard: outcomes, final url and title, a real PNG of the page', async () => {
    const res = await env.api.post('/api/act', { project_id: env.projectId, url: '/login', steps: [...signIn, { type: 'assert', assertion: { type: 'visible', selector: '#welcome' } }] });
    expect(res.status, res.text).toBe(200);
    const r = ActResult.parse(res.body);
    expect(r).toMatchObject({ status: 'passed', start_url: `${env.fixture.url}/login`, url: `${env.fixture.url}/dashboard`, title: 'Dashboard — Fixture Shop', error: null, performed: 5, saved_test: null });
    expect(r.outcomes.map((o) => [o.type, o.status])).toEqual([['goto', 'passed'], ['fill', 'passed'], ['fill', 'passed'], ['click', 'passed'], ['assert', 'passed']]);
    expect(r.outcomes[3].description).toContain('Sign in');
    // The steps as performed, starting at the goto the call added: pass them again to continue.
    expect(r.steps[0]).toEqual({ type: 'goto', url: `${env.fixture.url}/login` });
    expect(r.steps.slice(1, 4)).toEqual(signIn);
    const png = decodedPng(r.screenshot!.base64);
    expect([png.width, png.height]).toEqual([r.screenshot!.width, r.screenshot!.height]);
    expect(png.width).toBeGreaterThan(300);
    expect(r.screenshot!.bytes).toBe(Buffer.from(r.screenshot!.base64, 'base64').length);
  });

  it('answers what an extract step among the steps read, with its outcome (a field named like a credential masked)', async () => {
    const extract = { type: 'extract', save_as: 'me', fields: { welcome: { selector: '#welcome' }, email: { selector: '#user-email-display' }, session_link: { selector: '#logout', attribute: 'href' } } };
    const res = await env.api.post('/api/act', { project_id: env.projectId, url: '/login', screenshot: false, steps: [...signIn, extract, { type: 'assert', assertion: { type: 'text', selector: '#welcome', equals: '{{me.welcome}}' } }] });
    expect(res.status, res.text).toBe(200);
    const r = ActResult.parse(res.body);
    expect(r.status, r.error ?? '').toBe('passed');
    expect(r.outcomes[4]).toMatchObject({ type: 'extract', status: 'passed', extracted: { welcome: 'Welcome, Demo User!', email: 'demo@example.com', session_link: '***' } });
    // Only extract steps carry a value; the steps come back as given.
    expect(r.outcomes.filter((o) => 'extracted' in o).map((o) => o.index)).toEqual([4]);
    expect(r.steps[4]).toEqual(extract);
  });

  it('continues statelessly: the earlier steps passed again with one more, and screenshot: false leaves the picture out', async () => {
    const first = await env.api.post('/api/v1/act', { project_id: env.projectId, url: '/login', steps: signIn, screenshot: false });
    expect(first.status, first.text).toBe(200);
    expect(first.body.screenshot).toBeNull();
    // No url: the first step is the goto, so none is added.
    const next = await env.api.post('/api/act', { project_id: env.projectId, steps: [...first.body.steps, { type: 'click', selector: '#logout' }], screenshot: false });
    expect(next.status, next.text).toBe(200);
    expect(next.body).toMatchObject({ status: 'passed', url: `${env.fixture.url}/login`, performed: 5 });
    expect(next.body.steps).toHaveLength(5);
  });

  it('a malformed selector in a given step is a 400 naming its field; an instruction naming an element with >> or a quote runs', async () => {
    const given = await env.api.post('/api/act', { project_id: env.projectId, url: '/login', steps: [{ type: 'click', selector: '#go[' }] });
    expect(given.status).toBe(400);
    expect(given.body.error.details.issues[0]).toEqual({ path: 'steps.0.selector', message: 'not a valid selector: "[" at character 4 is never closed (a missing "]")' });
    // A name with >> and a quote in it is written as a selector Playwright parses: the step runs
    // and says what it looked for, rather than a refusal of the instruction.
    const fromInstruction = await env.api.post('/api/act', { project_id: env.projectId, url: '/login', instruction: 'click "it\'s a >> b"' });
    expect(fromInstruction.status, fromInstruction.text).toBe(200);
    expect(fromInstruction.body.status).toBe('failed');
    expect(fromInstruction.body.error).toMatch(/^step 2 \(click internal:role=button.*matched 0 elements$/s);
  });

  it('names the failing step, reports the ones before and after it, and still shows where the browser was', async () => {
    const res = await env.api.post('/api/act', { project_id: env.projectId, url: '/login', steps: [signIn[0], { type: 'click', selector: '#no-such-button', timeout_ms: 2_000 }, signIn[2]] });
    expect(res.status, res.text).toBe(200);
    const r = ActResult.parse(res.body);
    expect(r.status).toBe('failed');
    expect(r.outcomes.map((o) => o.status)).toEqual(['passed', 'passed', 'failed', 'skipped']);
    expect(r.outcomes[2].error).toMatch(/^step 3 \(click "?#no-such-button"?\)/);
    expect(r.error).toMatch(/^step 3 \(click "?#no-such-button"?\)/);
    expect(r.performed).toBe(2);
    expect(r.url).toBe(`${env.fixture.url}/login`);
    expect(decodedPng(r.screenshot!.base64).width).toBeGreaterThan(0);
  });

  it('turns an instruction in plain language into steps with the grammar (no model) and performs them after the given steps', async () => {
    const instruction = 'open the login page\nfill "Email" with "demo@example.com"\nfill "Password" with "s3cret!"\nclick "Sign in"\nI should see "Welcome, Demo User!"';
    const res = await env.api.post('/api/act', { project_id: env.projectId, instruction });
    expect(res.status, res.text).toBe(200);
    const r = ActResult.parse(res.body);
    expect(r.status, r.error ?? '').toBe('passed');
    expect(r.url).toBe(`${env.fixture.url}/dashboard`);
    expect(r.instruction!.understood.map((u) => [u.line, u.source])).toEqual([[1, 'grammar'], [2, 'grammar'], [3, 'grammar'], [4, 'grammar'], [5, 'grammar']]);
    // The grammar's first sentence opens a page, so that is where the browser starts.
    expect(r.steps[0]).toMatchObject({ type: 'goto' });
    expect(r.steps.map((s) => s.type)).toEqual(['goto', 'fill', 'fill', 'click', 'assert']);

    // Given steps first, then the instruction's: sign-in fields by steps, the rest in words.
    const both = await env.api.post('/api/act', { project_id: env.projectId, url: '/login', steps: signIn.slice(0, 2), instruction: 'click "Sign in"\nI should see "Welcome, Demo User!"', screenshot: false });
    expect(both.status, both.text).toBe(200);
    expect(both.body).toMatchObject({ status: 'passed', url: `${env.fixture.url}/dashboard`, performed: 5 });
    expect(both.body.steps.map((s: { type: string }) => s.type)).toEqual(['goto', 'fill', 'fill', 'click', 'assert']);

    const unread = await env.api.post('/api/act', { project_id: env.projectId, instruction: 'open the login page\nmake the dashboard look nicer please' });
    expect(unread.status, unread.text).toBe(501);
    expect(unread.body.error).toMatchObject({ code: 'NOT_CONFIGURED', details: { reason: 'NO_MODEL' } });
    expect(unread.body.error.message).toContain('line 2 "make the dashboard look nicer please"');
  });

  it('save_as_test keeps the passing steps as a test that GET /api/tests lists; failed actions are a 409 and save nothing', async () => {
    const res = await env.api.post('/api/act', { project_id: env.projectId, url: '/login', steps: signIn, screenshot: false, save_as_test: { name: 'sign in via act', tags: ['smoke'], priority: 'high' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.saved_test).toEqual({ id: expect.any(String), name: 'sign in via act' });
    const listed = await env.api.get(`/api/tests?project_id=${env.projectId}`);
    expect(listed.status).toBe(200);
    const saved = listed.body.items.find((t: { id: string }) => t.id === res.body.saved_test.id);
    expect(saved).toMatchObject({ name: 'sign in via act', type: 'ui', priority: 'high', tags: ['smoke'], steps: res.body.steps });

    const failing = await env.api.post('/api/act', { project_id: env.projectId, url: '/login', steps: [{ type: 'click', selector: '#missing', timeout_ms: 1_000 }], save_as_test: { name: 'never saved' } });
    expect(failing.status, failing.text).toBe(409);
    expect(failing.body.error.message).toMatch(/not saved as a test: the actions failed — step 2 \(click/);
    expect(failing.body.error.details.result).toMatchObject({ status: 'failed', performed: 1 });
    const after = await env.api.get(`/api/tests?project_id=${env.projectId}`);
    expect(after.body.items.map((t: { name: string }) => t.name)).not.toContain('never saved');

    const log = await env.api.get('/api/audit-logs?action=browser.act');
    expect(log.status, log.text).toBe(200);
    expect(log.body.items[0]).toMatchObject({ action: 'browser.act', resource: `project:${env.projectId}` });
    expect(log.body.items.some((e: { metadata: { saved_test?: string } }) => e.metadata.saved_test === res.body.saved_test.id)).toBe(true);
  });

  it("an instruction saved as a test keeps readable locators (the grammar's unions resolved to what they matched), and the stored test passes a run", async () => {
    const instruction = 'open the login page\nfill "Email" with "demo@example.com"\nfill "Password" with "s3cret!"\nclick "Sign in"';
    const res = await env.api.post('/api/act', { project_id: env.projectId, instruction, screenshot: false, save_as_test: { name: 'sign in in words' } });
    expect(res.status, res.text).toBe(200);
    // The answer's steps are the steps as they ran: the grammar's unions.
    expect(JSON.stringify(res.body.steps)).toContain('internal:or=');
    const saved = (await env.api.get(`/api/tests/${res.body.saved_test.id}`)).body;
    // The fixture's sign-in form has test ids: the healer's first preference (role and name, label … otherwise).
    expect(saved.steps.slice(1)).toEqual([
      { type: 'fill', selector: { test_id: 'login-email' }, value: 'demo@example.com' },
      { type: 'fill', selector: { test_id: 'login-password' }, value: 's3cret!' },
      { type: 'click', selector: { test_id: 'login-submit' } },
    ]);

    const started = await env.api.post('/api/v1/test/run', { project_id: env.projectId, test_ids: [saved.id] });
    expect(started.status, started.text).toBe(201);
    const deadline = Date.now() + 60_000;
    let run;
    while (!['completed', 'failed', 'cancelled'].includes((run = (await env.api.get(`/api/v1/test/status/${started.body.run.id}`)).body.run).status)) {
      if (Date.now() > deadline) throw new Error('the run did not finish');
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(run).toMatchObject({ status: 'completed', passed_tests: 1, failed_tests: 0 });
  }, 120_000);

  it('answers 400 naming the field for bad input and URLs outside the project\'s hosts', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'steps'],
      [{ steps: [] }, 'steps'],
      [{ steps: [{ type: 'teleport' }] }, 'steps.0.type'],
      [{ steps: [{ type: 'click' }] }, 'steps.0.selector'],
      [{ instruction: '   ' }, 'instruction'],
      [{ steps: signIn, screenshot: 'yes' }, 'screenshot'],
      [{ steps: signIn, save_as_test: { name: '' } }, 'save_as_test.name'],
      [{ steps: [{ type: 'request', url: 'http://169.254.169.254/' }] }, 'steps.0.type'],
      [{ steps: signIn, url: 'ftp://example.com/' }, 'url'],
      [{ steps: signIn, url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
      [{ steps: [signIn[0], { type: 'goto', url: 'http://example.org/' }] }, 'steps.1.url'],
      [{ steps: [{ type: 'goto', url: '//evil.example/' }] }, 'steps.0.url'],
      [{ steps: [{ type: 'goto', url: '{{TARGET}}/admin' }] }, 'steps.0.url'],
      [{ steps: [{ type: 'goto', url: 'http://{{HOST}}/' }] }, 'steps.0.url'],
      [{ steps: signIn, surprise: 1 }, 'surprise'],
    ];
    for (const [body, path] of cases) {
      const res = await env.api.post('/api/act', { project_id: env.projectId, ...body });
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(issuesOf(res).map((i) => i.path), JSON.stringify(body)).toContain(path);
    }
    const outside = await env.api.post('/api/act', { project_id: env.projectId, url: 'http://169.254.169.254/', steps: signIn });
    expect(issuesOf(outside)[0].message).toMatch(/outside the allowed hosts/);
    const noProject = await env.api.post('/api/act', { steps: signIn });
    expect(issuesOf(noProject).map((i) => i.path)).toEqual(['project_id']);
  });

  it("answers 404 for another organization's project and 401 without credentials", async () => {
    const theirs = await env.api.post('/api/act', { project_id: env.strangerProjectId, url: '/login', steps: signIn });
    expect(theirs.status, theirs.text).toBe(404);
    const anonymous = await env.api.post('/api/act', { project_id: env.projectId, steps: signIn }, { token: null, org: null });
    expect(anonymous.status).toBe(401);
  });

  it('is in the OpenAPI document', async () => {
    const openapi = await env.api.get('/api/openapi.json');
    const op = openapi.body.paths['/api/act'].post;
    const schema = op.requestBody.content['application/json'].schema;
    const body = schema.$ref ? openapi.body.components.schemas[schema.$ref.split('/').pop()] : schema;
    expect(Object.keys(body.properties).sort()).toEqual(['instruction', 'project_id', 'save_as_test', 'screenshot', 'steps', 'url']);
    expect(openapi.body.paths['/api/v1/act']).toBeDefined();
  });

  it('svc_act drives the browser through the MCP client: the outcome as JSON, the final page as an image', async () => {
    const mcp = new McpClient({ name: 'svc-test-agent', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${env.server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${env.server.admin.apiKey}` } } }));
    try {
      const { tools } = await mcp.listTools();
      expect(tools.find((t) => t.name === 'svc_act')!.annotations).toMatchObject({ readOnlyHint: false });
      const admin = client(env.server.url, { token: env.server.admin.apiKey });
      const mine = (await admin.post('/api/v1/projects', { name: 'mcp act', app_url: env.fixture.url })).body.id;
      const r = (await mcp.callTool({ name: 'svc_act', arguments: { project_id: mine, url: '/login', steps: signIn } })) as CallToolResult;
      expect(r.isError, JSON.stringify(r.content).slice(0, 500)).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ status: 'passed', url: `${env.fixture.url}/dashboard`, screenshot: { mime_type: 'image/png', base64: '(sent as the image content of this result)' } });
      const image = r.content.find((c) => c.type === 'image') as { data: string; mimeType: string };
      expect(image.mimeType).toBe('image/png');
      expect(decodedPng(image.data).width).toBe((r.structuredContent as { screenshot: { width: number } }).screenshot.width);
      const bad = (await mcp.callTool({ name: 'svc_act', arguments: { project_id: mine } })) as CallToolResult;
      expect(bad.isError).toBe(true);
      expect(JSON.stringify(bad.content)).toContain('give steps, instruction or both');
    } finally {
      await mcp.close();
    }
  });
});
