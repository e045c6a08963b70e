/**
 * The agent tool gateway (MCP over Streamable HTTP at /mcp) driven by the MCP SDK's own
 * client against the real local server: the tools it lists, a UI test run end to end in
 * Chromium through tool calls, errors that name the field, roles, tenant isolation, and
 * authentication at the transport.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { GATEWAY_TOOLS } from '@svc/core/mcp/catalogue';
import { client, signUp } from '../support/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let fixture: FixtureApp;
let agent: Client;
let projectId: string;
let testId: string;
const opened: Client[] = [];

async function connect(headers: Record<string, string>): Promise<Client> {
  const c = new Client({ name: 'svc-test-agent', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }));
  opened.push(c);
  return c;
}

const call = async (c: Client, name: string, args: Record<string, unknown> = {}) => (await c.callTool({ name, arguments: args })) as CallToolResult;
const text = (r: CallToolResult) => r.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');

beforeAll(async () => {
  fixture = await startFixtureApp();
  server = await startRunGraphServer();
  const admin = client(server.url, { token: server.admin.apiKey });
  projectId = (await admin.post('/api/v1/projects', { name: 'mcp', app_url: fixture.url })).body.id;
  agent = await connect({ authorization: `Bearer ${server.admin.apiKey}` });
});
afterAll(async () => {
  for (const c of opened) await c.close().catch(() => undefined);
  await server?.stop();
  await fixture?.close();
});

describe('tools/list', () => {
  it('offers every catalogue tool, each with an input schema from its route', async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(GATEWAY_TOOLS.map((t) => t.name).sort());
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('svc_run_status')!.inputSchema).toMatchObject({ type: 'object', required: ['id'] });
    expect(byName.get('svc_test')!.inputSchema.properties).toHaveProperty('project_id');
    expect(byName.get('svc_report')!.inputSchema.properties).toHaveProperty('format');
    expect(byName.get('svc_health')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('svc_test')!.annotations).toMatchObject({ readOnlyHint: false });
    // The test format is abbreviated to its step kinds: the whole list stays small enough for an assistant's context.
    const steps = byName.get('svc_create_test')!.inputSchema.properties!.steps as { items: { properties: { type: { enum: string[] } } } };
    expect(steps.items.properties.type.enum).toEqual(expect.arrayContaining(['goto', 'click', 'fill', 'request', 'sql', 'assert']));
    // It grows with the product (data sets, browser settings, audits, svc_act's ~4.5 KB, svc_extract's ~6.5 KB: its fields
    // take the whole locator union, quarantine and artifacts ~1.2 KB, svc_compare_runs ~0.9 KB with its base's description,
    // the `use` step kind of every tool taking steps ~0.3 KB); the guard catches a schema left unabbreviated (~80 KB each).
    // About 76 KB since the regular expressions zod adds beside named formats (a uuid's, 166 characters, once per id
    // argument) are left out. ~86 KB with svc_create_project, svc_get_test and svc_cancel_run, and a test's
    // timeout_ms and shared parameters (~0.3 KB in each of create and update); ~87.8 KB with svc_list_runs and
    // svc_results' status/limit/cursor; ~88.1 KB with svc_list_tests' view; ~91.4 KB with svc_test_from_text and svc_test_from_story; ~92.4 KB with the fuller
    // descriptions of approval modify / fork (what state edits are refused) and the no_console_error assertion; ~96 KB with
    // the four approval tools (svc_pending_approvals, svc_approve_run, svc_reject_run, svc_modify_run: ~3.7 KB).
    expect(steps.items.properties.type.enum).toContain('use');
    expect(JSON.stringify(tools).length).toBeLessThan(97_000);
    expect(JSON.stringify(tools)).not.toContain('[1-8][0-9a-fA-F]{3}');
  });
});

describe('a UI test run through tool calls', () => {
  it('creates a test, runs it in Chromium, follows the run and reads its results and report', async () => {
    const projects = await call(agent, 'svc_list_projects');
    expect(projects.isError).toBeFalsy();
    expect((projects.structuredContent as { items: Array<{ id: string }> }).items.map((p) => p.id)).toContain(projectId);

    // The fixture suite's table test, as a user would hand it to an assistant.
    const definition = JSON.parse(await readFile(join(import.meta.dirname, '..', 'fixtures', 'suites', 'pass', 'products-table.json'), 'utf8'));
    const created = await call(agent, 'svc_create_test', { project_id: projectId, ...definition });
    expect(created.isError, text(created)).toBeFalsy();
    testId = (created.structuredContent as { id: string }).id;

    // svc_list_tests lists summaries unless asked for the whole tests: a project's steps would fill an assistant's context.
    const listed = await call(agent, 'svc_list_tests', { project_id: projectId });
    const summary = (listed.structuredContent as { items: Array<Record<string, unknown>> }).items.find((t) => t.id === testId)!;
    expect(summary).toMatchObject({ name: definition.name, step_count: definition.steps.length });
    expect(summary).not.toHaveProperty('steps');
    const whole = await call(agent, 'svc_list_tests', { project_id: projectId, view: 'full' });
    expect((whole.structuredContent as { items: Array<{ id: string; steps: unknown[] }> }).items.find((t) => t.id === testId)!.steps).toHaveLength(definition.steps.length);

    const started = await call(agent, 'svc_test', { project_id: projectId, test_ids: [testId] });
    expect(started.isError, text(started)).toBeFalsy();
    const runId = (started.structuredContent as { run: { id: string } }).run.id;

    let status = '';
    for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
      const r = await call(agent, 'svc_run_status', { id: runId });
      status = (r.structuredContent as { run: { status: string } }).run.status;
      if (['completed', 'failed', 'cancelled'].includes(status)) break;
    }
    expect(status).toBe('completed');

    const results = await call(agent, 'svc_results', { id: runId });
    expect((results.structuredContent as { items: Array<{ test_id: string; status: string }> }).items).toEqual([expect.objectContaining({ test_id: testId, status: 'passed' })]);
    const report = await call(agent, 'svc_report', { run_id: runId, format: 'md' });
    expect(report.isError).toBeFalsy();
    expect(text(report)).toContain(`Passed — run ${runId}`);
    expect(text(report)).toContain('| 1 | 1 | 0 | 0 | 0 |');
  }, 90_000);
});

describe('svc_test with wait_seconds', () => {
  it('runs the tests and answers once with the finished run and its totals', async () => {
    const r = await call(agent, 'svc_test', { project_id: projectId, test_ids: [testId], wait_seconds: 60 });
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent as { run: Record<string, unknown> }).run).toMatchObject({ status: 'completed', passed_tests: 1, failed_tests: 0 });
  }, 90_000);

  it('says when the run is still going, and names wait_seconds when it is out of range', async () => {
    const slow = await call(agent, 'svc_create_test', { project_id: projectId, name: 'takes a while', type: 'ui', steps: [{ type: 'goto', url: '/' }, { type: 'wait-for', ms: 4000 }] });
    const slowId = (slow.structuredContent as { id: string }).id;
    const r = await call(agent, 'svc_test', { project_id: projectId, test_ids: [slowId], wait_seconds: 1 });
    expect(r.isError, text(r)).toBeFalsy();
    const runId = (r.structuredContent as { run: { id: string; status: string } }).run.id;
    expect(r.content[0]).toMatchObject({ type: 'text', text: `Run ${runId} has not finished after 1 s; its status so far follows. Follow it with svc_run_status { "id": "${runId}" }.` });
    const now = await call(agent, 'svc_test', { project_id: projectId, test_ids: [testId], wait_seconds: 0 });
    expect(now.structuredContent).toMatchObject({ run: { id: expect.any(String) }, thread_id: expect.any(String) }); // 0: the run id at once, as without it
    const bad = await call(agent, 'svc_test', { project_id: projectId, test_ids: [testId], wait_seconds: 301 });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/^VALIDATION_FAILED: Invalid request: wait_seconds: must be a whole number of seconds from 0 to 300/);
    const { tools } = await agent.listTools();
    expect(tools.find((t) => t.name === 'svc_test')!.inputSchema.properties).toHaveProperty('wait_seconds');
    expect(tools.find((t) => t.name === 'svc_run_status')!.inputSchema.properties).not.toHaveProperty('wait_seconds');
  });
});

describe('a route that reads its own body', () => {
  it('svc_recording_to_test converts a Playwright codegen script passed as an argument', async () => {
    const script = [
      "import { test, expect } from '@playwright/test';",
      "test('sign in', async ({ page }) => {",
      `  await page.goto('${fixture.url}/login');`,
      "  await page.getByLabel('Email').fill('demo@example.com');",
      "  await page.getByRole('button', { name: 'Sign in' }).click();",
      '});',
    ].join('\n');
    const r = await call(agent, 'svc_recording_to_test', { project_id: projectId, recording: script, execute: false });
    expect(r.isError, text(r)).toBeFalsy();
    const steps = (r.structuredContent as { test: { steps: Array<{ type: string }> } }).test.steps;
    expect(steps.map((st) => st.type)).toEqual(['goto', 'fill', 'click']);
  });

  it('svc_analyze with async queues a codebase for the knowledge worker; svc_analysis follows it', async () => {
    const files = [{ path: 'api.js', content: "const app = require('express')();\napp.get('/orders', (q, r) => r.json([]));\n" }];
    const queued = await call(agent, 'svc_analyze', { project_id: projectId, files, async: true });
    expect(queued.isError, text(queued)).toBeFalsy();
    const id = (queued.structuredContent as { id: string; status: string }).id;
    let got = (await call(agent, 'svc_analysis', { id })).structuredContent as { status: string; surface_count: number | null; analysis: { surfaces: Array<{ path: string }> } | null };
    for (let i = 0; got.status === 'queued' && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      got = (await call(agent, 'svc_analysis', { id })).structuredContent as typeof got;
    }
    expect(got).toMatchObject({ status: 'analyzed', surface_count: 1 });
    expect(got.analysis!.surfaces.map((x) => x.path)).toEqual(['/orders']);
  });
});

describe('plain-language tools', () => {
  it('svc_test_from_story turns Given/When/Then lines into steps; svc_test_from_text refuses a line it cannot read, naming it', async () => {
    const story = ['As a shopper I want to sign in so that I see my orders', 'Given I am on "/login"', 'When I fill "Email" with "demo@example.com"', 'Then I should see "Sign in"'].join('\n');
    const r = await call(agent, 'svc_test_from_story', { project_id: projectId, story, execute: false });
    expect(r.isError, text(r)).toBeFalsy();
    const generated = (r.structuredContent as { test: { steps: Array<{ type: string }>; description?: string } }).test;
    expect(generated.steps.map((st) => st.type)).toEqual(['goto', 'fill', 'assert']);
    expect(generated.description).toMatch(/sign in/);

    const refused = await call(agent, 'svc_test_from_text', { project_id: projectId, text: 'go to "/login"\nwiggle the mouse a bit', execute: false });
    expect(refused.isError).toBe(true);
    // The tool error's first line names the argument that holds the line, as for any bad argument.
    expect(text(refused)).toMatch(/^VALIDATION_FAILED: Invalid request: text: line 2: not understood: "wiggle the mouse a bit"/);
  });
});

describe('errors', () => {
  it('bad arguments come back as a tool error naming the field; a missing path parameter is named too', async () => {
    const bad = await call(agent, 'svc_test', { project_id: 'not-a-uuid' });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/^VALIDATION_FAILED: .*project_id/);
    const missing = await call(agent, 'svc_run_status', {});
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/^VALIDATION_FAILED: Invalid request: id: required/);
    const stray = await call(agent, 'svc_health', { verbose: true });
    expect(text(stray)).toMatch(/verbose: unknown argument for this tool/);
  });

  it('an unknown tool is a protocol error', async () => {
    await expect(agent.callTool({ name: 'svc_nope', arguments: {} })).rejects.toThrow(/unknown tool "svc_nope"/);
  });

  it("another organization's run is not found, and its projects are not listed", async () => {
    const runId = (await client(server.url, { token: server.admin.apiKey }).post('/api/v1/test/run', { project_id: projectId, test_ids: [testId] })).body.run.id;
    const other = await signUp(server.url, 'mcp-other@example.com');
    const stranger = await connect({ authorization: `Bearer ${other.token}`, 'x-organization-id': other.orgId });
    const seen = await call(stranger, 'svc_run_status', { id: runId });
    expect(seen.isError).toBe(true);
    expect(text(seen)).toMatch(/^NOT_FOUND: /);
    const projects = await call(stranger, 'svc_list_projects');
    expect(JSON.stringify(projects.structuredContent)).not.toContain(projectId);
  });

  it("a read-only key can read but not start a run (the route's role check)", async () => {
    const login = await client(server.url).post('/api/auth/login', { email: server.admin.email, password: server.admin.password });
    const session = client(server.url, { token: login.body.access_token, org: server.admin.organizationId });
    const key = (await session.post('/api/api-keys', { name: 'agent-ro', permissions: ['read'] })).body.key as string;
    const readOnly = await connect({ 'x-api-key': key });
    expect((await call(readOnly, 'svc_list_tests', { project_id: projectId })).isError).toBeFalsy();
    const denied = await call(readOnly, 'svc_test', { project_id: projectId, test_ids: [testId] });
    expect(denied.isError).toBe(true);
    expect(text(denied)).toMatch(/^INSUFFICIENT_ROLE: /);
  });
});

describe('the transport', () => {
  it('refuses a missing or unknown credential with 401 before any MCP message; GET and DELETE are 405', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const post = (headers: Record<string, string>) => fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(init) });
    const none = await post({});
    expect(none.status).toBe(401);
    expect((await none.json()).error.code).toBe('UNAUTHENTICATED');
    expect((await post({ authorization: 'Bearer svc_sk_not-a-real-key' })).status).toBe(401);
    await expect(connect({})).rejects.toThrow();
    // The dashboard's session cookie is not a credential here.
    const login = await fetch(`${server.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: server.admin.email, password: server.admin.password }) });
    const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    expect(cookie).toContain('=');
    expect((await post({ cookie })).status).toBe(401);
    // A tools/call whose arguments are not an object is invalid params (-32602), not an internal error.
    const rpc = async (body: unknown) => (await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': server.admin.apiKey }, body: JSON.stringify(body) })).text();
    await rpc(init);
    const malformed = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'svc_list_projects', arguments: 'notanobject' } });
    const answer = JSON.parse(malformed.startsWith('{') ? malformed : malformed.split('\n').find((l) => l.startsWith('data: '))!.slice(6));
    expect(answer.error.code, malformed).toBe(-32602);
    expect(answer.error.message).toContain('arguments');
    for (const method of ['GET', 'DELETE']) {
      const r = await fetch(`${server.url}/mcp`, { method, headers: { authorization: `Bearer ${server.admin.apiKey}`, accept: 'text/event-stream' } });
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('POST');
    }
  });
});
