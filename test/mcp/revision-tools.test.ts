/**
 * The test-history tools over MCP (Streamable HTTP at /mcp, the SDK's own client) against
 * the real local server: svc_test_revisions lists who changed a test and how, and
 * svc_restore_test_revision brings an earlier definition back as a new revision.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { client, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let agent: Client;
let testId: string;

const call = async (name: string, args: Record<string, unknown>) => (await agent.callTool({ name, arguments: args })) as CallToolResult;
const text = (r: CallToolResult) => r.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');

beforeAll(async () => {
  server = await startTestServer();
  const admin = client(server.url, { token: server.admin.apiKey });
  const projectId = (await admin.post('/api/v1/projects', { name: 'mcp history' })).body.id;
  testId = (await admin.post('/api/tests', { project_id: projectId, name: 'health answers', type: 'api', steps: [{ type: 'request', url: '/health' }] })).body.id;
  expect((await admin.patch(`/api/tests/${testId}`, { name: 'health answers quickly' })).status).toBe(200);
  agent = new Client({ name: 'svc-test-agent', version: '1.0.0' });
  await agent.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${server.admin.apiKey}` } } }));
});
afterAll(async () => {
  await agent?.close().catch(() => undefined);
  await server?.stop();
});

describe('test history tools', () => {
  it('svc_test_revisions lists the revisions; svc_restore_test_revision restores one; a bad revision names the field', async () => {
    const listed = await call('svc_test_revisions', { id: testId });
    expect(listed.isError, text(listed)).toBeFalsy();
    const items = (listed.structuredContent as { items: Array<{ revision: number; source: string; changed_fields: string[]; changed_by: string }> }).items;
    expect(items.map((r) => [r.revision, r.source])).toEqual([[2, 'edited'], [1, 'created']]);
    expect(items[0].changed_fields).toEqual(['name']);
    expect(items[0].changed_by).toMatch(/^api_key:/);

    const restored = await call('svc_restore_test_revision', { id: testId, revision: 1 });
    expect(restored.isError, text(restored)).toBeFalsy();
    expect(restored.structuredContent).toMatchObject({ id: testId, name: 'health answers', revision: 3 });

    const bad = await call('svc_restore_test_revision', { id: testId, revision: 0 });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('revision');
  });
});
