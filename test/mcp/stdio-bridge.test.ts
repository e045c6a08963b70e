/**
 * `svc mcp`: the stdio relay an assistant starts as a process, driven by the MCP SDK's own
 * stdio client, against the real local server's /mcp gateway.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { GATEWAY_TOOLS } from '@svc/core/mcp/catalogue';
import { client, startTestServer, type TestServer } from '../support/server.ts';

const bin = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'svc');
let server: TestServer;
let projectId: string;

beforeAll(async () => {
  server = await startTestServer();
  projectId = (await client(server.url, { token: server.admin.apiKey }).post('/api/v1/projects', { name: 'over stdio' })).body.id;
});
afterAll(async () => server?.stop());

describe('svc mcp', () => {
  it("relays tools/list and tools/call to the server's gateway, errors included", async () => {
    const transport = new StdioClientTransport({ command: bin, args: ['mcp', '--server', server.url], env: { ...process.env, SVC_API_KEY: server.admin.apiKey } as Record<string, string>, stderr: 'pipe' });
    const agent = new Client({ name: 'stdio-agent', version: '1.0.0' });
    await agent.connect(transport);
    try {
      const { tools } = await agent.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(GATEWAY_TOOLS.map((t) => t.name).sort());
      const projects = (await agent.callTool({ name: 'svc_list_projects', arguments: {} })) as CallToolResult;
      expect((projects.structuredContent as { items: Array<{ id: string }> }).items.map((p) => p.id)).toContain(projectId);
      const bad = (await agent.callTool({ name: 'svc_run_status', arguments: {} })) as CallToolResult;
      expect(bad.isError).toBe(true);
      expect(bad.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^VALIDATION_FAILED: .*id: required/) });
    } finally {
      await agent.close();
    }
  }, 60_000);

  it('exits 2 with a message for a missing credential or one the server refuses', async () => {
    const run = (env: Record<string, string>) =>
      promisify(execFile)(bin, ['mcp', '--server', server.url], { env: { ...process.env, SVC_API_KEY: '', SVC_TOKEN: '', ...env } }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
      );
    const none = await run({});
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('set SVC_API_KEY');
    const refused = await run({ SVC_API_KEY: 'svc_sk_not-a-real-key' });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/cannot use http:\/\/127\.0\.0\.1:\d+\/mcp/);
  }, 60_000);
});
