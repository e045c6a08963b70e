/**
 * The approval tools over MCP (Streamable HTTP at /mcp, the MCP SDK's own client) against
 * the real local server: svc_pending_approvals lists runs waiting for a person's decision;
 * svc_approve_run, svc_reject_run and svc_modify_run decide them, and the run goes on (or
 * skips its tests) as through the REST routes they forward to. Runs are parked for plan
 * approval by svc_test itself (require_test_plan_approval), on a small HTTP app under test.
 * Also: a read key is refused, another organization's run is NOT_FOUND, bad arguments
 * name the field, and a run on a named thread is decided by its run id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { client, runEnded, signUp, startTestServer, type Client as Api, type TestServer } from '../support/server.ts';
import { apiTest, startTarget, type Target } from '../run-graph/support/target.ts';

let server: TestServer;
let target: Target;
let api: Api;
let assistant: Client;
let projectId: string;
const opened: Client[] = [];

async function connect(headers: Record<string, string>): Promise<Client> {
  const c = new Client({ name: 'svc-approval-test', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }));
  opened.push(c);
  return c;
}
const call = async (c: Client, name: string, args: Record<string, unknown> = {}) => (await c.callTool({ name, arguments: args })) as CallToolResult;
const text = (r: CallToolResult) => r.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');

interface Parked {
  runId: string;
  threadId: string;
  approvalId: string;
}

/** Starts a run of `paths` (one API test each) through svc_test, parked before execute_test for plan approval. */
async function parkedRun(paths: string[], extra: Record<string, unknown> = {}): Promise<Parked & { testIds: string[] }> {
  const testIds: string[] = [];
  for (const path of paths) {
    const created = await api.post('/api/tests', { project_id: projectId, ...apiTest(`GET ${path}`, path), description: undefined });
    expect(created.status, created.text).toBe(201);
    testIds.push(created.body.id);
  }
  const r = await call(assistant, 'svc_test', { project_id: projectId, test_ids: testIds, require_test_plan_approval: true, wait_seconds: 30, ...extra });
  expect(r.isError, text(r)).toBeFalsy();
  const status = r.structuredContent as { run: { id: string; status: string; thread_id: string }; pending_approvals: Array<{ approval_id: string; node: string }> };
  expect(status.run.status).toBe('awaiting_approval');
  expect(status.pending_approvals).toEqual([expect.objectContaining({ node: 'execute_test' })]);
  // The assistant is told which tools decide it.
  expect(r.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/waiting for approval .*svc_approve_run, svc_reject_run or svc_modify_run/) });
  return { runId: status.run.id, threadId: status.run.thread_id, approvalId: status.pending_approvals[0]!.approval_id, testIds };
}

beforeAll(async () => {
  target = await startTarget();
  server = await startTestServer();
  api = client(server.url, { token: server.admin.apiKey });
  projectId = (await api.post('/api/v1/projects', { name: 'approvals over mcp', app_url: target.url })).body.id;
  assistant = await connect({ authorization: `Bearer ${server.admin.apiKey}` });
}, 60_000);
afterAll(async () => {
  for (const c of opened) await c.close().catch(() => undefined);
  await server?.stop();
  await target?.stop();
});

describe('approval tools', () => {
  it('are listed with the REST routes\' inputs: thread_id required, modify takes state', async () => {
    const byName = new Map((await assistant.listTools()).tools.map((t) => [t.name, t]));
    expect(byName.get('svc_pending_approvals')!.annotations).toMatchObject({ readOnlyHint: true });
    for (const name of ['svc_approve_run', 'svc_reject_run', 'svc_modify_run']) {
      const t = byName.get(name)!;
      expect(t.annotations).toMatchObject({ readOnlyHint: false });
      expect(t.inputSchema.required).toContain('thread_id');
      expect(t.inputSchema.properties).toHaveProperty('comment');
      expect(t.inputSchema.properties).toHaveProperty('approval_id');
    }
    expect(byName.get('svc_modify_run')!.inputSchema.required).toEqual(expect.arrayContaining(['thread_id', 'state']));
  });

  it('svc_pending_approvals lists a parked run; svc_approve_run lets it go on to the end', async () => {
    const parked = await parkedRun(['/ok?id=approve']);
    const listed = await call(assistant, 'svc_pending_approvals');
    expect(listed.isError, text(listed)).toBeFalsy();
    const items = (listed.structuredContent as { items: Array<Record<string, unknown>> }).items;
    const mine = items.filter((a) => a.thread_id === parked.threadId);
    expect(mine).toEqual([expect.objectContaining({ approval_id: parked.approvalId, run_id: parked.runId, node: 'execute_test', status: 'pending', proposal: { tests: [expect.objectContaining({ id: parked.testIds[0] })] } })]);
    expect(mine[0]).not.toHaveProperty('task_token');
    expect(target.hits('/ok?id=approve')).toBe(0);

    const approved = await call(assistant, 'svc_approve_run', { thread_id: parked.threadId, comment: 'plan looks right' });
    expect(approved.isError, text(approved)).toBeFalsy();
    expect(approved.structuredContent).toMatchObject({ thread_id: parked.threadId, decision: 'approved', approval: { approval_id: parked.approvalId, status: 'approved', comment: 'plan looks right' } });

    const run = await runEnded(api, parked.runId);
    expect(run).toMatchObject({ status: 'completed', total_tests: 1, passed_tests: 1 });
    expect(target.hits('/ok?id=approve')).toBe(1);
    const after = (await call(assistant, 'svc_pending_approvals')).structuredContent as { items: Array<{ thread_id: string }> };
    expect(after.items.some((a) => a.thread_id === parked.threadId)).toBe(false);
    // Decided already: a second decision is the route's 409, and changes nothing.
    const again = await call(assistant, 'svc_reject_run', { thread_id: parked.threadId });
    expect(again.isError).toBe(true);
    expect(text(again)).toMatch(/^CONFLICT: .*not waiting for approval/);
  }, 60_000);

  it('svc_reject_run skips the plan, with the comment; a run on a named thread is named by its run id', async () => {
    const parked = await parkedRun(['/ok?id=reject'], { thread_id: 'mcp-nightly-reject' });
    expect(parked.threadId).not.toBe(parked.runId);
    const rejected = await call(assistant, 'svc_reject_run', { thread_id: parked.runId, comment: 'not today' });
    expect(rejected.isError, text(rejected)).toBeFalsy();
    expect(rejected.structuredContent).toMatchObject({ thread_id: parked.threadId, decision: 'rejected', approval: { status: 'rejected', comment: 'not today' } });
    const run = await runEnded(api, parked.runId);
    expect(run.passed_tests).toBe(0);
    const results = (await api.get(`/api/v1/tests/${parked.runId}/results`)).body.items as Array<{ status: string }>;
    expect(results.map((r) => r.status)).toEqual(['skipped']);
    expect(target.hits('/ok?id=reject')).toBe(0);
  }, 60_000);

  it('svc_modify_run validates the state naming the field, then runs the modified plan', async () => {
    const parked = await parkedRun(['/ok?id=mod-a', '/ok?id=mod-b']);
    const [a, b] = parked.testIds;

    const missing = await call(assistant, 'svc_modify_run', { thread_id: parked.threadId });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/^VALIDATION_FAILED: .*\bstate\b/);
    const invalid = await call(assistant, 'svc_modify_run', { thread_id: parked.threadId, state: { test_plan: [{ id: a, type: 'NOPE', name: '' }] } });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toMatch(/^VALIDATION_FAILED: /);
    expect(text(invalid)).toContain('state.test_plan.0.type');
    expect((await api.get(`/api/v1/test/status/${parked.runId}`)).body.run.status).toBe('awaiting_approval');

    // Keep only test b: the plan as svc_run_status shows it, less a.
    const status = (await call(assistant, 'svc_run_status', { id: parked.runId })).structuredContent as { run: { test_plan: Array<{ id: string }> } };
    const onlyB = status.run.test_plan.filter((t) => t.id === b);
    expect(onlyB).toHaveLength(1);
    const modified = await call(assistant, 'svc_modify_run', { thread_id: parked.threadId, state: { test_plan: onlyB }, comment: 'a is flaky today' });
    expect(modified.isError, text(modified)).toBeFalsy();
    expect(modified.structuredContent).toMatchObject({ decision: 'modified', approval: { status: 'modified', comment: 'a is flaky today' } });

    const run = await runEnded(api, parked.runId);
    expect(run).toMatchObject({ status: 'completed', total_tests: 1, passed_tests: 1 });
    expect(target.hits('/ok?id=mod-a')).toBe(0);
    expect(target.hits('/ok?id=mod-b')).toBe(1);
  }, 60_000);

  it('refuses a read key, hides the run from another organization and names missing or invalid arguments', async () => {
    const parked = await parkedRun(['/ok?id=refused']);

    // A read key may list what waits, but not decide it (the route needs a member).
    // Keys are made by a signed-in admin (API keys cannot make keys).
    const login = await client(server.url).post('/api/auth/login', { email: server.admin.email, password: server.admin.password });
    const session = client(server.url, { token: login.body.access_token, org: server.admin.organizationId });
    const readKey = (await session.post('/api/api-keys', { name: 'approvals-ro', permissions: ['read'] })).body.key as string;
    const reader = await connect({ authorization: `Bearer ${readKey}` });
    const seen = await call(reader, 'svc_pending_approvals');
    expect(seen.isError, text(seen)).toBeFalsy();
    expect((seen.structuredContent as { items: Array<{ thread_id: string }> }).items.map((a) => a.thread_id)).toContain(parked.threadId);
    for (const [name, args] of [['svc_approve_run', {}], ['svc_reject_run', {}], ['svc_modify_run', { state: { test_plan: [] } }]] as const) {
      const denied = await call(reader, name, { thread_id: parked.threadId, ...args });
      expect(denied.isError, name).toBe(true);
      expect(text(denied)).toMatch(/^INSUFFICIENT_ROLE: /);
    }

    // Another organization: neither its thread id nor its run id names anything, and its list does not show it.
    const other = await signUp(server.url, 'approvals-mcp-other@example.com');
    const stranger = await connect({ authorization: `Bearer ${other.token}`, 'x-organization-id': other.orgId });
    for (const id of [parked.threadId, parked.runId]) {
      const foreign = await call(stranger, 'svc_approve_run', { thread_id: id });
      expect(foreign.isError).toBe(true);
      expect(text(foreign)).toMatch(/^NOT_FOUND: /);
    }
    const theirs = (await call(stranger, 'svc_pending_approvals')).structuredContent as { items: unknown[] };
    expect(theirs.items).toEqual([]);

    // Missing and invalid arguments name the field.
    const noThread = await call(assistant, 'svc_approve_run', { comment: 'which one?' });
    expect(noThread.isError).toBe(true);
    expect(text(noThread)).toMatch(/^VALIDATION_FAILED: .*thread_id: required/);
    const longComment = await call(assistant, 'svc_reject_run', { thread_id: parked.threadId, comment: 'x'.repeat(2001) });
    expect(longComment.isError).toBe(true);
    expect(text(longComment)).toMatch(/^VALIDATION_FAILED: .*comment/);
    const stray = await call(assistant, 'svc_approve_run', { thread_id: parked.threadId, decision: 'yes' });
    expect(stray.isError).toBe(true);
    expect(text(stray)).toMatch(/^VALIDATION_FAILED: .*decision/);

    // None of it decided anything.
    expect((await api.get(`/api/v1/test/status/${parked.runId}`)).body.run.status).toBe('awaiting_approval');
    expect((await call(assistant, 'svc_reject_run', { thread_id: parked.threadId, comment: 'test over' })).isError).toBeFalsy();
    await runEnded(api, parked.runId);
  }, 60_000);
});
