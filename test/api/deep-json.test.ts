import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { sign, unixNow } from '../automation/support/events.ts';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';

/**
 * A body nested far deeper than any payload (a config 3000 objects deep) was stored,
 * and from then on every read of the organization's projects overflowed the stack (500);
 * deeper still, the write itself answered 500. Bodies are now refused at parsing, before
 * anything recursive sees them: 400 JSON_TOO_DEEP naming where.
 */
let server: TestServer;
let member: Client;
let token: string;
let orgId: string;
let projectId: string;

const nestedObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const nestedArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

beforeAll(async () => {
  server = await startTestServer();
  const user = await signUp(server.url, 'deep-json@example.com');
  token = user.token;
  orgId = user.orgId;
  member = client(server.url, { token, org: orgId });
  projectId = (await member.post('/api/v1/projects', { name: 'existing' })).body.id;
});
afterAll(async () => server?.stop());

describe('deeply nested JSON bodies', () => {
  it('a project config 3000 levels deep → 400 JSON_TOO_DEEP naming config; the organization\'s projects still list', async () => {
    const res = await member.call('POST', '/api/v1/projects', undefined, { raw: `{"name":"deep","config":${nestedObject(3000)}}` });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('JSON_TOO_DEEP');
    expect(res.body.error.message).toBe('request body nests objects and arrays deeper than 64 levels (at config.a.a.a.a.a…)');
    expect(res.body.error.details).toEqual({ path: 'config.a.a.a.a.a…', field: 'config', max_depth: 64 });

    const patched = await member.call('PATCH', `/api/v1/projects/${projectId}`, undefined, { raw: `{"config":${nestedObject(3000)}}` });
    expect(patched.status).toBe(400);
    expect(patched.body.error.code).toBe('JSON_TOO_DEEP');

    const list = await member.get('/api/v1/projects');
    expect(list.status).toBe(200);
    expect(list.body.items.map((p: { name: string }) => p.name)).toEqual(['existing']);
    expect((await member.get(`/api/v1/projects/${projectId}`)).status).toBe(200);
  });

  it('20000 levels deep → 400, not 500, on projects and tests', async () => {
    const project = await member.call('POST', '/api/v1/projects', undefined, { raw: `{"name":"deeper","config":{"x":${nestedArray(20000)}}}` });
    expect(project.status).toBe(400);
    expect(project.body.error).toMatchObject({ code: 'JSON_TOO_DEEP', details: { field: 'config', max_depth: 64 } });

    const test = await member.call('POST', '/api/tests', undefined, {
      raw: `{"project_id":"${projectId}","name":"deep","type":"api","steps":[{"type":"api","method":"POST","url":"http://127.0.0.1:1/x","body":${nestedArray(20000)}}]}`,
    });
    expect(test.status).toBe(400);
    expect(test.body.error).toMatchObject({ code: 'JSON_TOO_DEEP', details: { path: 'steps.0.body.0.0.0…', field: 'steps' } });
    expect((await member.get('/api/tests')).body.items).toEqual([]);
  });

  it('a body exactly 64 levels deep is accepted, and reads back', async () => {
    // The body object is level 1, config level 2: 62 more objects make 64.
    const res = await member.call('POST', '/api/v1/projects', undefined, { raw: `{"name":"at the limit","config":${nestedObject(63)}}` });
    expect(res.status, res.text).toBe(201);
    expect((await member.get(`/api/v1/projects/${res.body.id}`)).status).toBe(200);
    const over = await member.call('POST', '/api/v1/projects', undefined, { raw: `{"name":"one past","config":${nestedObject(64)}}` });
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe('JSON_TOO_DEEP');
    // Brackets inside strings are text, not nesting.
    const text = await member.post('/api/v1/projects', { name: 'brackets in text', config: { note: '['.repeat(5000) + '{"'.repeat(100) } });
    expect(text.status).toBe(201);
  });

  it('the MCP gateway refuses a deep message before the SDK parses it', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-organization-id': orgId, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc_list_projects","arguments":{"x":${nestedArray(20000)}}}}`,
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toMatchObject({ code: 'JSON_TOO_DEEP', details: { path: 'params.arguments.x.0.0.0…', max_depth: 67 } });
  });

  it('the OAuth endpoints refuse a nested JSON body in OAuth\'s format', async () => {
    const res = await fetch(`${server.url}/oauth/device/code`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"client_id":"x","scope":${nestedArray(100)}}` });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_request');
  });

  it('a signed automation webhook with a deep body → 400 JSON_TOO_DEEP, as a malformed one is 400 MALFORMED_JSON', async () => {
    const created = await member.post('/api/integrations/automation', { name: 'deep', project_ids: [projectId] });
    expect(created.status, created.text).toBe(201);
    const body = `{"type":"run.requested","x":${nestedArray(20000)}}`;
    const timestamp = unixNow();
    const res = await fetch(`${server.url}/webhooks/automation`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-integration': created.body.id, 'x-svc-timestamp': String(timestamp), 'x-svc-signature': sign(created.body.secret, timestamp, body) },
      body,
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: 'JSON_TOO_DEEP', details: { field: 'x' } });
  });
});
