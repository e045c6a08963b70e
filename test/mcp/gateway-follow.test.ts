/**
 * svc_test with wait_seconds and the result size limit, driven by the MCP SDK's client
 * against the real local server (found by QA): a run parked for approval answers at once
 * instead of after the whole wait, and every result — the followed run's status included —
 * stays within MAX_TOOL_RESULT_CHARS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { client, startTestServer, type Client as Api, type TestServer } from '../support/server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { MAX_TOOL_RESULT_CHARS } from '../../packages/functions/src/mcp/gateway.ts';

let server: TestServer;
let fixture: FixtureApp;
let api: Api;
let agent: Client;
let projectId: string;

const call = async (name: string, args: Record<string, unknown>) => (await agent.callTool({ name, arguments: args })) as CallToolResult;
const texts = (r: CallToolResult) => r.content.map((p) => (p.type === 'text' ? p.text : ''));

beforeAll(async () => {
  fixture = await startFixtureApp();
  server = await startTestServer();
  api = client(server.url, { token: server.admin.apiKey });
  projectId = (await api.post('/api/v1/projects', { name: 'follow', app_url: fixture.url })).body.id;
  agent = new Client({ name: 'qa-agent', version: '1.0.0' });
  await agent.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${server.admin.apiKey}` } } }));
}, 60_000);
afterAll(async () => {
  await agent?.close().catch(() => undefined);
  await server?.stop();
  await fixture?.close();
});

/** Ends a parked run (nothing of it runs in the browser). */
const reject = async (threadId: string) => expect((await api.post(`/api/v1/approvals/${threadId}/reject`, { comment: 'test over' })).status).toBe(200);

describe('svc_test with wait_seconds', () => {
  it('answers at once when the run waits for approval, saying so, instead of waiting out wait_seconds', async () => {
    const test = (await api.post('/api/tests', { project_id: projectId, name: 'home', type: 'ui', steps: [{ type: 'goto', url: '/' }] })).body;
    // 20 s: before, the gateway polled the parked run for all of it and then said it "has not finished".
    const r = await call('svc_test', { project_id: projectId, test_ids: [test.id], require_test_plan_approval: true, wait_seconds: 20 });
    expect(r.isError, texts(r).join('\n')).toBeFalsy();
    const status = r.structuredContent as { run: { id: string; status: string; thread_id: string }; pending_approvals: Array<{ node: string }> };
    expect(status.run.status).toBe('awaiting_approval');
    expect(status.pending_approvals).toEqual([expect.objectContaining({ node: 'execute_test' })]);
    expect(texts(r)[0]).toMatch(new RegExp(`^Run ${status.run.id} is waiting for approval .*approvals/\\{thread_id\\}/approve`));
    expect(texts(r)[0]).not.toMatch(/has not finished/);
    await reject(status.run.thread_id);
  }, 60_000);

  it("cuts the followed run's status to the result limit, as any other result", async () => {
    // A plan of 20 tests with long values: the status (which carries the plan's steps) is ~250 KB.
    const long = 'x'.repeat(1500);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const created = await api.post('/api/tests', { project_id: projectId, name: `big ${i}`, type: 'ui', steps: [{ type: 'goto', url: '/form' }, ...Array.from({ length: 4 }, () => ({ type: 'fill', selector: '#name', value: long }))] });
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    // Parked for approval so that nothing runs in the browser; the status is as large either way.
    const r = await call('svc_test', { project_id: projectId, test_ids: ids, require_test_plan_approval: true, wait_seconds: 1 });
    expect(r.isError, texts(r).join('\n').slice(0, 500)).toBeFalsy();
    const all = texts(r);
    expect(all.join('').length).toBeLessThan(MAX_TOOL_RESULT_CHARS + 2_000);
    expect(all.some((t) => t.includes('more than a tool result carries'))).toBe(true);
    // What was cut is the end: the plan. The status, totals and pending approval come first and are kept.
    expect(all.at(-1)).toMatch(/^\{\s*"thread_id": /);
    expect(all.at(-1)).toMatch(/"passed_count": 0,[\s\S]*"pending_approvals": \[\s*\{[\s\S]*"run": \{/);
    const runId = /^Run (\S+) /.exec(all[0])?.[1];
    expect(runId).toBeTruthy();
    await reject(runId!);
  }, 60_000);
});

describe('the result limit', () => {
  it('counts the pretty-printed JSON a result carries, not the shorter response it came from', async () => {
    const own = (await api.post('/api/v1/projects', { name: 'many steps', app_url: fixture.url })).body.id;
    // Short nested steps: ~43 KB per test as the API answers it, ~95 KB indented.
    const steps = Array.from({ length: 500 }, (_, i) => ({ type: 'assert', assertion: { type: 'visible', selector: { role: 'button', name: `b${i}` } } }));
    for (const name of ['a', 'b']) expect((await api.post('/api/tests', { project_id: own, name, type: 'ui', steps })).status).toBe(201);
    const raw = await api.get(`/api/tests?project_id=${own}&view=full`);
    expect(raw.text.length).toBeLessThan(MAX_TOOL_RESULT_CHARS); // the response itself fits

    const r = await call('svc_list_tests', { project_id: own, view: 'full' });
    expect(r.isError).toBeFalsy();
    const all = texts(r);
    expect(all.join('').length).toBeLessThan(MAX_TOOL_RESULT_CHARS + 1_000);
    expect(all[0]).toMatch(/more than a tool result carries .*GET \/api\/tests\?/);
  }, 60_000);
});
