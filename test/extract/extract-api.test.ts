/**
 * POST /api/extract through the real local server and its browser (Chromium, the
 * generation executor act uses) on the fixture app: fields read after steps that sign in
 * (the dashboard is behind the sign-in) and after steps that filter the products table;
 * a missing field and a failed step as outcomes; the model path against a local double
 * speaking the OpenAI wire format (valid answer, answer breaking the schema); NO_MODEL
 * without a model; bad input naming the field; URLs outside the project's hosts; another
 * organization's project; the audit log; svc_extract through the MCP SDK's client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ExtractResult } from '@svc/core/contracts/extract';
import { client, signUp, startTestServer, type Client, type TestServer } from '../support/server.ts';
import { twoTenantsForFile } from '../support/two-tenants.ts';
import { startWireDouble, type WireDouble } from '../llm/support/wire-double.ts';
import { openAiCompletion } from '../llm/support/formats.ts';

const env = twoTenantsForFile('extract');

const signIn = [
  { type: 'fill', selector: { label: 'Email' }, value: 'demo@example.com' },
  { type: 'fill', selector: { label: 'Password' }, value: 's3cret!' },
  { type: 'click', selector: { role: 'button', name: 'Sign in' } },
];
const issuesOf = (res: { body: { error: { details: { issues: Array<{ path: string; message: string }> } } } }) => res.body.error.details.issues;
const schema = { type: 'object', properties: { user: { type: 'string' }, email: { type: 'string', format: 'email' } }, required: ['user', 'email'], additionalProperties: false };

describe('POST /api/extract by fields', () => {
  it('signs in with the steps first, then reads the dashboard behind it', async () => {
    const res = await env.api.post('/api/extract', { project_id: env.projectId, url: '/login', steps: signIn, fields: { welcome: { selector: '#welcome' }, email: { selector: '#user-email-display' }, logout: { selector: '#logout', attribute: 'href' } } });
    expect(res.status, res.text).toBe(200);
    const r = ExtractResult.parse(res.body);
    expect(r).toMatchObject({ status: 'passed', error: null, url: `${env.fixture.url}/dashboard`, title: 'Dashboard — Fixture Shop', performed: 5 });
    expect(r.data).toEqual({ welcome: 'Welcome, Demo User!', email: 'demo@example.com', logout: '/logout' });
    expect(r.steps.map((s) => [s.type, s.status])).toEqual([['goto', 'passed'], ['fill', 'passed'], ['fill', 'passed'], ['click', 'passed'], ['extract', 'passed']]);

    // Without the sign-in the dashboard redirects to the login page: the field is missing, named.
    const anonymous = await env.api.post('/api/v1/extract', { project_id: env.projectId, url: '/dashboard', fields: { welcome: { selector: '#welcome' } } });
    expect(anonymous.status, anonymous.text).toBe(200);
    expect(anonymous.body).toMatchObject({ status: 'failed', data: null, url: `${env.fixture.url}/login?next=%2Fdashboard` });
    expect(anonymous.body.error).toMatch(/^step 2 \(extract welcome\): extract field "welcome": "#welcome" matched 0 elements/);
  }, 60_000);

  it('reads lists after steps that change the page, and reports a failed step with the rest skipped', async () => {
    const res = await env.api.post('/api/extract', { project_id: env.projectId, url: '/table', steps: [{ type: 'fill', selector: { label: 'Filter' }, value: 'o' }, { type: 'click', selector: '#sort-price' }], fields: { names: { selector: 'td.name', all: true }, prices: { selector: 'td.price', all: true }, page: { selector: '#page-info' } } });
    expect(res.status, res.text).toBe(200);
    const data = ExtractResult.parse(res.body).data as { names: string[]; prices: string[]; page: string };
    expect(data.names.every((n) => n.toLowerCase().includes('o'))).toBe(true);
    const prices = data.prices.map(Number);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    expect(data.names[0]).toBe('Bolt');
    expect(data.page).toBe('Page 1 of 1');

    const failing = await env.api.post('/api/extract', { project_id: env.projectId, url: '/login', steps: [{ type: 'click', selector: '#no-such-button', timeout_ms: 1_000 }], fields: { title: { selector: 'h1' } } });
    expect(failing.status, failing.text).toBe(200);
    expect(failing.body).toMatchObject({ status: 'failed', data: null, performed: 1 });
    expect(failing.body.steps.map((s: { status: string }) => s.status)).toEqual(['passed', 'failed', 'skipped']);
    expect(failing.body.error).toMatch(/^step 2 \(click "?#no-such-button"?\)/);

    const log = await env.api.get('/api/audit-logs?action=browser.extract');
    expect(log.status, log.text).toBe(200);
    expect(log.body.items[0]).toMatchObject({ action: 'browser.extract', resource: `project:${env.projectId}`, metadata: { mode: 'fields' } });
  }, 60_000);

  it('answers 501 NO_MODEL for an instruction when no model is configured, before opening a browser', async () => {
    const res = await env.api.post('/api/extract', { project_id: env.projectId, url: '/dashboard', instruction: 'who is signed in', schema });
    expect(res.status, res.text).toBe(501);
    expect(res.body.error).toMatchObject({ code: 'NOT_CONFIGURED', details: { reason: 'NO_MODEL' } });
    expect(res.body.error.message).toMatch(/NO_MODEL: .*SVC_LLM_PROVIDERS/);
  });

  it('answers 400 naming the field for bad input and URLs outside the project\'s hosts', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'fields'],
      [{ fields: {} }, 'fields'],
      [{ fields: { a: { selector: 'h1' } }, instruction: 'x', schema }, 'fields'],
      [{ instruction: 'who is signed in' }, 'schema'],
      [{ instruction: 'who', schema: { type: 'array' } }, 'schema'],
      [{ fields: { a: {} } }, 'fields.a.selector'],
      [{ fields: { a: { selector: 'h1', all: 'yes' } } }, 'fields.a.all'],
      [{ fields: { '9lives': { selector: 'h1' } } }, 'fields.9lives'],
      [{ fields: { a: { selector: 'h1' } }, steps: [{ type: 'teleport' }] }, 'steps.0.type'],
      [{ fields: { a: { selector: 'h1' } }, steps: [{ type: 'request', url: 'http://169.254.169.254/' }] }, 'steps.0.type'],
      [{ fields: { a: { selector: 'h1' } }, steps: [{ type: 'extract', instruction: 'x', schema }] }, 'steps.0.instruction'],
      [{ fields: { a: { selector: 'h1' } }, url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
      [{ fields: { a: { selector: 'h1' } }, steps: [{ type: 'goto', url: '/login' }, { type: 'goto', url: 'http://example.org/' }] }, 'steps.1.url'],
      [{ fields: { a: { selector: 'h1' } }, surprise: 1 }, 'surprise'],
    ];
    for (const [body, path] of cases) {
      const res = await env.api.post('/api/extract', { project_id: env.projectId, ...body });
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(issuesOf(res).map((i) => i.path), JSON.stringify(body)).toContain(path);
    }
    const noProject = await env.api.post('/api/extract', { fields: { a: { selector: 'h1' } } });
    expect(issuesOf(noProject).map((i) => i.path)).toContain('project_id');
  });

  it("answers 404 for another organization's project and 401 without credentials", async () => {
    const theirs = await env.api.post('/api/extract', { project_id: env.strangerProjectId, url: '/table', fields: { a: { selector: 'h1' } } });
    expect(theirs.status, theirs.text).toBe(404);
    const mine = await env.stranger.post('/api/extract', { project_id: env.projectId, url: '/table', fields: { a: { selector: 'h1' } } });
    expect(mine.status, mine.text).toBe(404);
    const anonymous = await env.api.post('/api/extract', { project_id: env.projectId, fields: { a: { selector: 'h1' } } }, { token: null, org: null });
    expect(anonymous.status).toBe(401);
  });

  it('is in the OpenAPI document', async () => {
    const openapi = await env.api.get('/api/openapi.json');
    const schema = openapi.body.paths['/api/extract'].post.requestBody.content['application/json'].schema;
    const body = schema.$ref ? openapi.body.components.schemas[schema.$ref.split('/').pop()] : schema;
    expect(Object.keys(body.properties).sort()).toEqual(['fields', 'instruction', 'project_id', 'schema', 'steps', 'url']);
    expect(openapi.body.paths['/api/v1/extract']).toBeDefined();
  });

  it('svc_extract reads data through the MCP client, and names a missing field', async () => {
    const mcp = new McpClient({ name: 'svc-test-agent', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${env.server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${env.server.admin.apiKey}` } } }));
    try {
      const { tools } = await mcp.listTools();
      const tool = tools.find((t) => t.name === 'svc_extract')!;
      expect(tool.annotations).toMatchObject({ readOnlyHint: false });
      expect(Object.keys(tool.inputSchema.properties!).sort()).toEqual(['fields', 'instruction', 'project_id', 'schema', 'steps', 'url']);
      const admin = client(env.server.url, { token: env.server.admin.apiKey });
      const mine = (await admin.post('/api/v1/projects', { name: 'mcp extract', app_url: env.fixture.url })).body.id;
      const r = (await mcp.callTool({ name: 'svc_extract', arguments: { project_id: mine, url: '/table', fields: { heading: { selector: 'h1' }, first: { selector: 'td.name >> nth=0' } } } })) as CallToolResult;
      expect(r.isError, JSON.stringify(r.content).slice(0, 500)).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ status: 'passed', data: { heading: 'Products', first: 'Anchor' }, url: `${env.fixture.url}/table` });
      const missing = (await mcp.callTool({ name: 'svc_extract', arguments: { project_id: mine, url: '/table', fields: { total: { selector: '#total' } } } })) as CallToolResult;
      expect(missing.structuredContent).toMatchObject({ status: 'failed', data: null });
      expect((missing.structuredContent as { error: string }).error).toContain('extract field "total"');
      const bad = (await mcp.callTool({ name: 'svc_extract', arguments: { project_id: mine, instruction: 'x' } })) as CallToolResult;
      expect(bad.isError).toBe(true);
      expect(JSON.stringify(bad.content)).toContain('an instruction needs a JSON Schema for the answer');
    } finally {
      await mcp.close();
    }
  }, 60_000);
});

describe('POST /api/extract with a model', () => {
  let server: TestServer;
  let llm: WireDouble;
  let api: Client;
  let projectId: string;

  beforeAll(async () => {
    llm = await startWireDouble(() => ({ status: 500, body: { error: { message: 'no scripted answer' } } }));
    const llmEnv = { SVC_LLM_PROVIDERS: 'openai', SVC_OPENAI_BASE_URL: `${llm.url}/v1`, SVC_OPENAI_MODEL_CHEAP: 'extract-model', SVC_OPENAI_MODEL_MID: 'extract-model', SVC_OPENAI_MODEL_CAPABLE: 'extract-model' };
    server = await startTestServer({ runtime: { llmEnv } });
    const owner = await signUp(server.url, 'extract-model@example.com');
    api = client(server.url, { token: owner.token, org: owner.orgId });
    projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: env.fixture.url })).body.id;
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await llm?.close();
  });

  it('signs in, sends the dashboard\'s text to the model and answers its JSON once it matches the schema', async () => {
    const first = llm.requests.length;
    llm.script.push({ body: openAiCompletion(JSON.stringify({ user: 'Demo User', email: 'demo@example.com' }), { prompt: 400, completion: 20 }, 'extract-model') });
    const res = await api.post('/api/extract', { project_id: projectId, url: '/login', steps: signIn, instruction: 'who is signed in, and with which email', schema });
    expect(res.status, res.text).toBe(200);
    const r = ExtractResult.parse(res.body);
    expect(r).toMatchObject({ status: 'passed', data: { user: 'Demo User', email: 'demo@example.com' }, model: 'extract-model', url: `${env.fixture.url}/dashboard`, performed: 5 });
    expect(r.snapshot).toMatchObject({ truncated: false });
    expect(r.steps.at(-1)).toMatchObject({ type: 'extract', status: 'passed' });
    const prompt = llm.requests[first]!.body.messages.map((m: { content: string }) => m.content).join('\n');
    expect(prompt).toContain('heading "Welcome, Demo User!"');
    expect(prompt).toContain('who is signed in, and with which email');
  }, 60_000);

  it('a stored test\'s extract step asks the server\'s model in a run, and the report carries the value', async () => {
    llm.script.push({ body: openAiCompletion(JSON.stringify({ cheapest: 'Bolt' }), undefined, 'extract-model') });
    const created = await api.post('/api/tests', { project_id: projectId, name: 'cheapest by model', type: 'ui', steps: [
      { type: 'goto', url: '/table' },
      { type: 'extract', save_as: 'deal', instruction: 'the cheapest product', schema: { type: 'object', required: ['cheapest'], properties: { cheapest: { type: 'string' } } } },
      { type: 'fill', selector: { label: 'Filter' }, value: '{{deal.cheapest}}' },
      { type: 'assert', assertion: { type: 'count', selector: { test_id: 'product-row' }, equals: 1 } },
    ] });
    expect(created.status, created.text).toBe(201);
    const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [created.body.id] });
    expect(started.status, started.text).toBe(201);
    const runId: string = started.body.run.id;
    const deadline = Date.now() + 60_000;
    while (!['completed', 'failed', 'cancelled'].includes((await api.get(`/api/v1/test/status/${runId}`)).body.run.status)) {
      if (Date.now() > deadline) throw new Error('the run did not finish');
      await new Promise((r) => setTimeout(r, 200));
    }
    const report = await api.get(`/api/reports/${runId}?format=json`);
    expect(report.status, report.text).toBe(200);
    const test = report.body.tests[0];
    expect(test.status, JSON.stringify(test.error)).toBe('passed');
    expect(test.steps[1]).toMatchObject({ type: 'extract', status: 'passed', extracted: { cheapest: 'Bolt' } });
  }, 90_000);

  it('answers status failed with the validation errors when the model\'s answer breaks the schema', async () => {
    llm.script.push({ body: openAiCompletion(JSON.stringify({ user: 'Demo User', email: 'not an email', role: 'admin' }), undefined, 'extract-model') });
    const res = await api.post('/api/extract', { project_id: projectId, url: '/login', steps: signIn, instruction: 'who is signed in', schema });
    expect(res.status, res.text).toBe(200);
    const r = ExtractResult.parse(res.body);
    expect(r.status).toBe('failed');
    expect(r.data).toBeNull();
    expect(r.error).toMatch(/^step 5 \(extract with a model: who is signed in\): the model's answer does not match the schema: /);
    expect(r.error).toContain('must match format "email"');
    expect(r.validation_errors!.map((e) => e.keyword).sort()).toEqual(['additionalProperties', 'format']);
    expect(r.steps.at(-1)).toMatchObject({ type: 'extract', status: 'failed' });
    expect(r.performed).toBe(4);
  }, 60_000);
});
