/**
 * Agent sign-in with the OAuth 2.0 device flow (RFC 8628), driven by an independent
 * OAuth client (openid-client, over its RFC 8414 discovery) against the real local
 * server: a person approves over the API, the agent's token works on the API and on the
 * MCP gateway as that person, never reaches what agents must not, refreshes, and every
 * wrong turn answers in OAuth's own error format.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'openid-client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { client, signUp, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let person: Awaited<ReturnType<typeof signUp>>;
let config: oauth.Configuration;
let projectId: string;

const form = (fields: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
async function post(path: string, fields: Record<string, string>) {
  const res = await fetch(server.url + path, form(fields));
  return { status: res.status, headers: res.headers, body: await res.json() };
}

beforeAll(async () => {
  server = await startTestServer();
  person = await signUp(server.url, 'agent-owner@example.com');
  projectId = (await client(server.url, { token: person.token, org: person.orgId }).post('/api/v1/projects', { name: 'owned by the person' })).body.id;
  config = await oauth.discovery(new URL(server.url), 'claude-code', undefined, oauth.None(), { algorithm: 'oauth2', execute: [oauth.allowInsecureRequests] });
});
afterAll(async () => server?.stop());

describe('the device flow with an independent OAuth client', () => {
  it('approved in the dashboard API, the agent gets a token that acts as the person, on the API and the MCP gateway, and refreshes', async () => {
    const metadata = config.serverMetadata();
    expect(metadata).toMatchObject({ device_authorization_endpoint: `${server.url}/oauth/device/code`, token_endpoint: `${server.url}/oauth/token` });
    expect(metadata.grant_types_supported).toContain('urn:ietf:params:oauth:grant-type:device_code');

    const started = await oauth.initiateDeviceAuthorization(config, { scope: 'tests' });
    expect(started).toMatchObject({ verification_uri: `${server.url}/device`, expires_in: 600, interval: 5 });
    expect(started.verification_uri_complete).toBe(`${server.url}/device?user_code=${started.user_code}`);

    const asPerson = client(server.url, { token: person.token });
    expect((await asPerson.get(`/api/auth/device/${started.user_code}`)).body).toMatchObject({ client_id: 'claude-code', scope: 'tests', status: 'pending' });
    expect((await asPerson.post(`/api/auth/device/${started.user_code}/approve`)).body.status).toBe('approved');

    const tokens = await oauth.pollDeviceAuthorizationGrant(config, started);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBeGreaterThan(800);
    expect(tokens.refresh_token).toBeTruthy();

    const asAgent = client(server.url, { token: tokens.access_token, org: person.orgId });
    expect((await asAgent.get('/api/v1/users/me', { org: null })).body.email).toBe('agent-owner@example.com');
    expect((await asAgent.get('/api/v1/projects')).body.items.map((p: { id: string }) => p.id)).toEqual([projectId]);

    // Spec rule 7: no API keys, no environment variables, and no approving device codes (its own or another's).
    const keys = await asAgent.get('/api/api-keys');
    expect(keys.status).toBe(403);
    expect(keys.body.error.message).toContain('not to agent tokens');
    expect((await asAgent.get(`/api/v1/projects/${projectId}/environment`)).status).toBe(403);
    const another = await oauth.initiateDeviceAuthorization(config, {});
    expect((await asAgent.post(`/api/auth/device/${another.user_code}/approve`)).status).toBe(403);
    expect((await asPerson.get(`/api/auth/device/${another.user_code}`)).body.status).toBe('pending');

    const mcp = new Client({ name: 'device-agent', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens.access_token}`, 'x-organization-id': person.orgId } } }));
    try {
      const listed = (await mcp.callTool({ name: 'svc_list_projects', arguments: {} })) as CallToolResult;
      expect((listed.structuredContent as { items: Array<{ id: string }> }).items.map((p) => p.id)).toEqual([projectId]);
    } finally {
      await mcp.close();
    }

    const refreshed = await oauth.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    // Still the agent's: refreshing does not turn an agent token into a dashboard one.
    expect((await client(server.url, { token: refreshed.access_token, org: person.orgId }).get('/api/api-keys')).status).toBe(403);
    // The spent refresh token is refused, in OAuth's format.
    const spent = await post('/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: 'claude-code' });
    expect(spent).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    // The person sees the agent signed in as them, and signs it out: its tokens stop at once.
    const agents = await asPerson.get('/api/auth/agents');
    expect(agents.body.items).toEqual([{ id: expect.any(String), client_id: 'claude-code', created_at: expect.any(String), last_refreshed_at: expect.any(String) }]);
    expect((await asAgent.get('/api/auth/agents')).status).toBe(403);
    expect((await asAgent.delete(`/api/auth/agents/${agents.body.items[0].id}`)).status).toBe(403);
    expect((await asPerson.delete(`/api/auth/agents/${agents.body.items[0].id}`)).status).toBe(204);
    const afterRevoke = await client(server.url, { token: refreshed.access_token }).get('/api/v1/users/me');
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.body.error.message).toContain('revoked');
    expect(await post('/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshed.refresh_token! })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await asPerson.delete(`/api/auth/agents/${agents.body.items[0].id}`)).status).toBe(404);
    expect((await asPerson.get('/api/auth/agents')).body.items).toEqual([]);

    // The organization's audit log says who let which agent in, and who signed it out.
    const audit = (await client(server.url, { token: person.token, org: person.orgId }).get('/api/audit-logs?limit=100')).body.items;
    expect(audit.find((e: { action: string }) => e.action === 'agent.sign_in.approve')).toMatchObject({ user_id: person.userId, resource: 'agent:claude-code', metadata: { client_id: 'claude-code', scope: 'tests' } });
    expect(audit.find((e: { action: string }) => e.action === 'agent.sign_out')).toMatchObject({ user_id: person.userId, resource: `agent_grant:${agents.body.items[0].id}` });
  }, 60_000);

  it("an approval is in the audit log of every organization the person acts in, a denial too", async () => {
    const admin = await signUp(server.url, 'agent-other-org@example.com');
    const adminApi = client(server.url, { token: admin.token, org: admin.orgId });
    const invite = await adminApi.post('/api/teams/invitations', { email: 'agent-owner@example.com', role: 'member' });
    expect((await client(server.url, { token: person.token }).post('/api/teams/invitations/accept', { token: invite.body.token })).status).toBeLessThan(300);

    const started = await oauth.initiateDeviceAuthorization(config, { scope: 'runs' });
    expect((await client(server.url, { token: person.token }).post(`/api/auth/device/${started.user_code}/approve`)).status).toBe(200);
    const denied = await oauth.initiateDeviceAuthorization(config, {});
    expect((await client(server.url, { token: person.token }).post(`/api/auth/device/${denied.user_code}/deny`)).status).toBe(200);

    for (const api of [adminApi, client(server.url, { token: person.token, org: person.orgId })]) {
      const entries = (await api.get('/api/audit-logs?limit=100')).body.items.filter((e: { action: string }) => e.action.startsWith('agent.sign_in.'));
      expect(entries.map((e: { action: string }) => e.action)).toEqual(expect.arrayContaining(['agent.sign_in.approve', 'agent.sign_in.deny']));
      expect(entries.find((e: { metadata: { scope: string } }) => e.metadata.scope === 'runs')).toMatchObject({ user_id: person.userId, action: 'agent.sign_in.approve' });
    }
    // The other organization's log holds only what reached it: the earlier approval was before the person joined.
    const other = (await adminApi.get('/api/audit-logs?limit=100')).body.items.filter((e: { action: string }) => e.action === 'agent.sign_in.approve');
    expect(other).toHaveLength(1);
  }, 30_000);

  it('a denied sign-in ends the independent client\'s polling with access_denied', async () => {
    const started = await oauth.initiateDeviceAuthorization(config, {});
    await client(server.url, { token: person.token }).post(`/api/auth/device/${started.user_code}/deny`);
    const err = await oauth.pollDeviceAuthorizationGrant(config, started).catch((e: unknown) => e);
    expect(err).toMatchObject({ error: 'access_denied' });
  }, 30_000);
});

describe('the wire format and its errors', () => {
  it('pending, then slow_down for polling too fast; a decided code is not decided again; it is exchanged once', async () => {
    const started = await post('/oauth/device/code', { client_id: 'my agent' });
    expect(started.status).toBe(200);
    expect(started.headers.get('cache-control')).toBe('no-store');
    const poll = () => post('/oauth/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: started.body.device_code, client_id: 'my agent' });
    expect(await poll()).toMatchObject({ status: 400, body: { error: 'authorization_pending' } });
    expect(await poll()).toMatchObject({ status: 400, body: { error: 'slow_down', error_description: expect.stringContaining('10 seconds') } });

    const asPerson = client(server.url, { token: person.token });
    await asPerson.post(`/api/auth/device/${started.body.user_code}/approve`);
    const again = await asPerson.post(`/api/auth/device/${started.body.user_code}/deny`);
    expect(again.status).toBe(409);
    const wrongClient = await post('/oauth/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: started.body.device_code, client_id: 'someone else' });
    expect(wrongClient.body.error).toBe('invalid_grant');
    const token = await poll();
    expect(token.status).toBe(200);
    expect(token.headers.get('cache-control')).toBe('no-store');
    expect(token.body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), refresh_token: expect.any(String) });
    expect((await poll()).body.error).toBe('invalid_grant');
  });

  it('bad requests say what is wrong, in OAuth\'s format on the agent\'s endpoints and svc\'s on the person\'s', async () => {
    expect(await post('/oauth/device/code', {})).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: expect.stringContaining('client_id') } });
    const json = await fetch(`${server.url}/oauth/device/code`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_id: 'json agent' }) });
    expect(json.status).toBe(200); // JSON is accepted too
    const text = await fetch(`${server.url}/oauth/device/code`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'client_id=x' });
    expect(await text.json()).toMatchObject({ error: 'invalid_request' });
    expect(await post('/oauth/token', { grant_type: 'password', username: 'a', password: 'b' })).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
    expect(await post('/oauth/token', {})).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: expect.stringContaining('grant_type') } });
    expect(await post('/oauth/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code' })).toMatchObject({ body: { error: 'invalid_request', error_description: expect.stringContaining('device_code') } });
    expect(await post('/oauth/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: 'made-up' })).toMatchObject({ body: { error: 'invalid_grant' } });

    const asPerson = client(server.url, { token: person.token });
    const malformed = await asPerson.get('/api/auth/device/HELLO');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toContain('user_code');
    expect((await asPerson.get('/api/auth/device/BCDF-GHJK')).status).toBe(404);
    expect((await client(server.url).get('/api/auth/device/BCDF-GHJK')).status).toBe(401);
    // An API key is an agent's credential too: it cannot approve anything.
    const started = await post('/oauth/device/code', { client_id: 'x' });
    const byKey = await client(server.url, { token: server.admin.apiKey }).post(`/api/auth/device/${started.body.user_code}/approve`);
    expect(byKey.status).toBe(403);
  });
});
