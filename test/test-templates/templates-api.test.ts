/**
 * Custom test templates over HTTP on the real local runtime: people write them (API keys
 * and agent tokens are refused, the spec's "agent gateway: read-only"), anyone may read,
 * and a test made from one runs against the fixture app. Also names unique per
 * organization, placeholders checked against the parameters, values checked at use,
 * another organization's 404, and the MCP tools through the SDK's own client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { client, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let fixture: FixtureApp;
let person: Client;
let key: Client;
let apiKey: string;
let projectId: string;

const endpointTemplate = {
  name: 'Endpoint answers',
  description: 'A GET endpoint answers 200 with JSON',
  type: 'api',
  parameters: [{ name: 'path', description: 'the endpoint, from the app root' }, { name: 'expect', default: 'json' }],
  steps: [{ type: 'request', method: 'GET', url: '{{template.path}}' }],
  assertions: [{ type: 'status', equals: 200 }, { type: 'header', header: 'content-type', contains: '{{template.expect}}' }],
  priority: 'high',
  tags: ['smoke'],
};

beforeAll(async () => {
  fixture = await startFixtureApp();
  server = await startRunGraphServer();
  const owner = await signUp(server.url, 'templates@example.com');
  person = client(server.url, { token: owner.token, org: owner.orgId });
  projectId = (await person.post('/api/v1/projects', { name: 'shop', app_url: fixture.url })).body.id;
  apiKey = (await person.post('/api/api-keys', { name: 'ci', permissions: ['read', 'write'] })).body.key;
  key = client(server.url, { token: apiKey });
});
afterAll(async () => {
  await server?.stop();
  await fixture?.close();
});

describe('custom test templates', () => {
  let templateId: string;

  it('a person creates one; names are unique regardless of case; placeholders must be declared', async () => {
    const created = await person.post('/api/test-templates', endpointTemplate);
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ name: 'Endpoint answers', type: 'api', priority: 'high', tags: ['smoke'], created_by: expect.stringMatching(/^user:/) });
    templateId = created.body.id;
    expect((await person.post('/api/test-templates', { ...endpointTemplate, name: 'endpoint ANSWERS' })).status).toBe(409);

    const undeclared = await person.post('/api/test-templates', { ...endpointTemplate, name: 'other', parameters: [] });
    expect(undeclared.status).toBe(400);
    expect(undeclared.body.error.details.issues).toEqual(expect.arrayContaining([{ path: 'steps.0.url', message: '{{template.path}} is not a declared parameter' }]));
    const twice = await person.post('/api/test-templates', { ...endpointTemplate, name: 'twice', parameters: [{ name: 'path' }, { name: 'path' }, { name: 'expect' }] });
    expect(twice.body.error.details.issues).toEqual([{ path: 'parameters.1.name', message: 'parameter path is declared twice' }]);
    // A change that drops a parameter still in use is refused too.
    const dropped = await person.patch(`/api/test-templates/${templateId}`, { parameters: [{ name: 'expect' }] });
    expect(dropped.status).toBe(400);
    expect(dropped.body.error.details.issues[0]).toEqual({ path: 'steps.0.url', message: '{{template.path}} is not a declared parameter' });
  });

  it('API keys read but do not write', async () => {
    const listed = await key.get('/api/test-templates');
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((t: { name: string }) => t.name)).toEqual(['Endpoint answers']);
    const write = await key.post('/api/test-templates', { ...endpointTemplate, name: 'by a key' });
    expect(write.status).toBe(403);
    expect(write.body.error.message).toMatch(/dashboard users only, not to API keys/);
    expect((await key.patch(`/api/test-templates/${templateId}`, { priority: 'low' })).status).toBe(403);
    expect((await key.delete(`/api/test-templates/${templateId}`)).status).toBe(403);
  });

  it('makes a test from the template that passes against the app', async () => {
    const made = await key.post(`/api/test-templates/${templateId}/tests`, { project_id: projectId, name: 'items endpoint', values: { path: '/api/items' }, tags: ['generated'] });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({
      name: 'items endpoint', type: 'api', priority: 'high', tags: ['smoke', 'generated'], description: 'A GET endpoint answers 200 with JSON',
      steps: [{ type: 'request', method: 'GET', url: '/api/items' }],
    });
    expect(made.body.assertions[1]).toMatchObject({ contains: 'json' }); // the default
    const started = await person.post('/api/v1/test/run', { project_id: projectId, test_ids: [made.body.id] });
    expect(started.status, started.text).toBe(201);
    const runId = started.body.run.id as string;
    await expect.poll(async () => (await person.get(`/api/v1/test/status/${runId}`)).body.run.status, { timeout: 60_000, interval: 200 }).toBe('completed');
    const results = await person.get(`/api/v1/tests/${runId}/results`);
    expect(results.body.items.map((r: { status: string }) => r.status)).toEqual(['passed']);
  });

  it('values are checked: unknown, missing, and ones that make an invalid test, each naming the field', async () => {
    const unknown = await person.post(`/api/test-templates/${templateId}/tests`, { project_id: projectId, values: { path: '/x', colour: 'red' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.issues).toEqual([{ path: 'values.colour', message: expect.stringContaining('the template has no parameter colour (it has: path, expect)') }]);
    const missing = await person.post(`/api/test-templates/${templateId}/tests`, { project_id: projectId, values: {} });
    expect(missing.body.error.details.issues).toEqual([{ path: 'values.path', message: 'required: the parameter has no default (the endpoint, from the app root)' }]);
    const empty = await person.post(`/api/test-templates/${templateId}/tests`, { project_id: projectId, values: { path: '' } });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details.issues.map((i: { path: string }) => i.path)).toContain('steps.0.url');
  });

  it("another organization sees nothing of it, nor may use it", async () => {
    const other = await signUp(server.url, 'templates-other@example.com');
    const them = client(server.url, { token: other.token, org: other.orgId });
    expect((await them.get('/api/test-templates')).body.items).toEqual([]);
    expect((await them.get(`/api/test-templates/${templateId}`)).status).toBe(404);
    const theirProject = (await them.post('/api/v1/projects', { name: 'theirs' })).body.id;
    expect((await them.post(`/api/test-templates/${templateId}/tests`, { project_id: theirProject, values: { path: '/x' } })).status).toBe(404);
    expect((await them.patch(`/api/test-templates/${templateId}`, { priority: 'low' })).status).toBe(404);
    // And a template may not make a test in another organization's project.
    expect((await person.post(`/api/test-templates/${templateId}/tests`, { project_id: theirProject, values: { path: '/x' } })).status).toBe(404);
  });

  it('an assistant lists the templates and makes a test over MCP, but cannot write one', async () => {
    const agent = new McpClient({ name: 'svc-templates-test', version: '1.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }));
    try {
      const names = (await agent.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['svc_test_templates', 'svc_test_from_template']));
      expect(names.some((n) => /template/.test(n) && !['svc_test_templates', 'svc_test_from_template'].includes(n))).toBe(false);
      const listed = (await agent.callTool({ name: 'svc_test_templates', arguments: {} })) as CallToolResult;
      expect((listed.structuredContent as { items: Array<{ id: string }> }).items.map((t) => t.id)).toEqual([templateId]);
      const made = (await agent.callTool({ name: 'svc_test_from_template', arguments: { id: templateId, project_id: projectId, values: { path: '/api/items' } } })) as CallToolResult;
      expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
      expect(made.structuredContent).toMatchObject({ name: 'Endpoint answers', steps: [{ url: '/api/items' }] });
    } finally {
      await agent.close();
    }
  });

  it('the list pages like every list: limit, next_cursor, a bad cursor or an unknown parameter named', async () => {
    for (const name of ['Zeta check', 'Alpha check']) expect((await person.post('/api/test-templates', { ...endpointTemplate, name })).status).toBe(201);
    const first = await person.get('/api/test-templates?limit=2');
    expect(first.body.items.map((t: { name: string }) => t.name)).toEqual(['Alpha check', 'Endpoint answers']);
    expect(first.body.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const rest = await person.get(`/api/test-templates?limit=2&cursor=${first.body.next_cursor}`);
    expect(rest.body).toMatchObject({ items: [expect.objectContaining({ name: 'Zeta check' })], next_cursor: null });
    expect((await person.get('/api/test-templates?cursor=bm9wZQ')).body.error.details.issues[0]).toEqual({ path: 'cursor', message: 'not a next_cursor of this list' });
    expect((await person.get('/api/test-templates?foo=bar')).body.error.details.issues[0]).toMatchObject({ path: 'foo', message: 'unknown field' });
    for (const t of [...first.body.items, ...rest.body.items]) if (t.name !== 'Endpoint answers') expect((await person.delete(`/api/test-templates/${t.id}`)).status).toBe(204);
  });

  it('a person deletes it; tests made from it stay', async () => {
    const before = (await person.get(`/api/tests?project_id=${projectId}`)).body.items.length;
    expect((await person.delete(`/api/test-templates/${templateId}`)).status).toBe(204);
    expect((await person.get(`/api/test-templates/${templateId}`)).status).toBe(404);
    expect((await person.get(`/api/tests?project_id=${projectId}`)).body.items.length).toBe(before);
    // The name is free again.
    expect((await person.post('/api/test-templates', endpointTemplate)).status).toBe(201);
  });
});
