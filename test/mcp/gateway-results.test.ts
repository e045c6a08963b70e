/**
 * How the gateway turns a backend response into a tool result, with the SDK's client over
 * its in-memory transport. The route and the backend's responses are given here so that
 * each case (JSON, an error body, an oversized report) is exact; gateway.test.ts runs the
 * same gateway against the real server.
 */
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { defineRoute } from '@svc/core/openapi/route';
import { z } from 'zod';
import { createGatewayServer, gatewayCatalogue, MAX_TOOL_RESULT_CHARS } from '../../packages/functions/src/mcp/gateway.ts';

const routes = [
  defineRoute({ method: 'get', path: '/api/reports/:run_id', summary: 'report', tags: [], auth: 'viewer', params: z.strictObject({ run_id: z.string() }), query: z.strictObject({ format: z.string().optional() }), responses: { 200: { description: 'ok' } } }),
];

async function gateway(respond: (request: Request) => Response) {
  const seen: Request[] = [];
  const server = createGatewayServer({
    catalogue: gatewayCatalogue(routes),
    forward: async (request) => {
      seen.push(request);
      return respond(request);
    },
    baseUrl: 'http://svc.internal',
    callerHeaders: { authorization: 'Bearer svc_sk_caller', 'x-organization-id': 'org-1' },
    version: '0.1.0',
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 't', version: '1' });
  await client.connect(b);
  const call = async (args: Record<string, unknown>) => (await client.callTool({ name: 'svc_report', arguments: args })) as CallToolResult;
  return { call, seen, close: () => client.close() };
}

describe('tool results', () => {
  it("forwards the caller's credential and organization, fills the path and query", async () => {
    const g = await gateway(() => Response.json({ ok: true }));
    const r = await g.call({ run_id: 'r 1', format: 'md' });
    expect(r.structuredContent).toEqual({ ok: true });
    expect(g.seen[0]!.url).toBe('http://svc.internal/api/reports/r%201?format=md');
    expect(g.seen[0]!.headers.get('authorization')).toBe('Bearer svc_sk_caller');
    expect(g.seen[0]!.headers.get('x-organization-id')).toBe('org-1');
    await g.close();
  });

  it('an error body becomes a tool error starting with its code', async () => {
    const g = await gateway(() => Response.json({ error: { code: 'NOT_FOUND', message: 'run not found' } }, { status: 404 }));
    const r = await g.call({ run_id: 'x' });
    expect(r.isError).toBe(true);
    expect(r.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^NOT_FOUND: run not found\n/) });
    await g.close();
  });

  it('a response longer than a tool result carries is cut, and the result says where the whole is', async () => {
    const html = `<html>${'x'.repeat(MAX_TOOL_RESULT_CHARS + 500)}</html>`;
    const g = await gateway(() => new Response(html, { headers: { 'content-type': 'text/html' } }));
    const r = await g.call({ run_id: 'r1', format: 'html' });
    expect(r.isError).toBeFalsy();
    expect(r.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining(`The response is ${html.length} characters`) });
    expect(r.content[0]).toMatchObject({ text: expect.stringContaining('GET /api/reports/r1?format=html') });
    expect((r.content[1] as { text: string }).text).toBe(html.slice(0, MAX_TOOL_RESULT_CHARS));
    expect(r.structuredContent).toBeUndefined();
    await g.close();
  });
});
