/**
 * svc_agent (POST /api/agent/invoke): a model, here a local server speaking the OpenAI wire
 * format with scripted replies, reaches a goal by calling svc's own tools through the MCP
 * gateway with the caller's rights. The tool calls are real API calls on the local server:
 * what they answer, their errors (naming the field), tenant isolation and roles are the
 * API's own. Also: no model → 501 before anything is done; the step limit; a read-only agent;
 * svc_agent itself through the MCP SDK's client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startTestServer, client, signUp, type TestServer, type Client as ApiClient } from '../support/server.ts';
import { startWireDouble, type WireDouble } from '../llm/support/wire-double.ts';
import { openAiCompletion, openAiError } from '../llm/support/formats.ts';

let server: TestServer;
let bare: TestServer;
let llm: WireDouble;
let api: ApiClient;
let orgId: string;
let projectId: string;
let otherProjectId: string;

/** The model's next replies, in order. */
const replies = (...texts: unknown[]) => {
  for (const t of texts) llm.script.push({ body: openAiCompletion(typeof t === 'string' ? t : JSON.stringify(t), { prompt: 1000, completion: 50 }, 'agent-model') });
};
const sentMessages = (i: number) => llm.requests[i]!.body.messages as Array<{ role: string; content: string }>;

beforeAll(async () => {
  llm = await startWireDouble(() => ({ body: openAiCompletion(JSON.stringify({ answer: 'nothing more to do' }), { prompt: 10, completion: 5 }, 'agent-model') }));
  const models = { SVC_LLM_PROVIDERS: 'openai', SVC_OPENAI_BASE_URL: `${llm.url}/v1`, SVC_OPENAI_MODEL_CHEAP: 'agent-model', SVC_OPENAI_MODEL_MID: 'agent-model', SVC_OPENAI_MODEL_CAPABLE: 'agent-model' };
  server = await startTestServer({ runtime: { llmEnv: models } });
  bare = await startTestServer();
  const user = await signUp(server.url, 'agent-owner@example.com', 'Agent Org');
  orgId = user.orgId;
  api = client(server.url, { token: user.token, org: orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'Shop', app_url: 'http://127.0.0.1:9' })).body.id;
  await api.post('/api/tests', { project_id: projectId, name: 'Checkout works', type: 'api', steps: [{ type: 'request', url: '/api/health' }] });
  const other = await signUp(server.url, 'agent-other@example.com', 'Other Org');
  otherProjectId = (await client(server.url, { token: other.token, org: other.orgId }).post('/api/v1/projects', { name: 'Secret', app_url: 'http://127.0.0.1:9' })).body.id;
});
afterAll(async () => {
  await server?.stop();
  await bare?.stop();
  await llm?.close();
});

describe('POST /api/agent/invoke', () => {
  it('calls real tools step by step with the caller\'s rights, feeds their results back and answers', async () => {
    const first = llm.requests.length;
    replies(
      { why: 'find the project', tool: 'svc_list_projects', arguments: {} },
      { why: 'see its tests', tool: 'svc_list_tests', arguments: { project_id: projectId } },
      { why: 'a test with a bad step', tool: 'svc_create_test', arguments: { project_id: projectId, name: 'Broken', type: 'ui', steps: [{ type: 'teleport' }] } },
      { why: 'peek at another organization', tool: 'svc_list_tests', arguments: { project_id: otherProjectId } },
      { answer: 'Shop has one test, "Checkout works".' },
    );
    const res = await api.post('/api/agent/invoke', { goal: 'What tests does Shop have?', project_id: projectId });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ goal: 'What tests does Shop have?', status: 'answered', answer: 'Shop has one test, "Checkout works".' });
    expect(res.body.steps.map((s: { tool: string }) => s.tool)).toEqual(['svc_list_projects', 'svc_list_tests', 'svc_create_test', 'svc_list_tests']);
    const [projects, tests, broken, foreign] = res.body.steps;
    expect(projects).toMatchObject({ n: 1, why: 'find the project', is_error: false });
    expect(projects.result).toContain(projectId);
    expect(tests.result).toContain('Checkout works');
    // The API's own validation, naming the field, reaches the model as an error it can correct.
    expect(broken.is_error).toBe(true);
    expect(broken.result).toMatch(/^VALIDATION_FAILED: .*steps\.0/);
    // Another organization's project is as invisible to the agent as to its caller.
    expect(foreign.is_error).toBe(true);
    expect(foreign.result).toMatch(/^NOT_FOUND/);
    expect(foreign.result).not.toContain('Secret');
    expect((await api.get(`/api/tests?project_id=${projectId}`)).body.items.map((t: { name: string }) => t.name)).toEqual(['Checkout works']);
    expect(res.body.usage).toMatchObject({ model_calls: 5, input_tokens: 5000, output_tokens: 250, models: ['agent-model'] });

    // What the model saw: the tools with their schemas, the goal, then each result.
    const opening = sentMessages(first);
    expect(opening[0]!.role).toBe('system');
    expect(opening[0]!.content).toMatch(/- svc_list_tests \(reads only\): .*\n {2}input: \{ limit\?: integer 1\.\.200 — .*; project_id\?: string \(uuid\) — Only tests of this project;/);
    expect(opening[0]!.content).not.toMatch(/- svc_agent\b/);
    expect(opening.at(-1)!.content).toBe(`Goal: What tests does Shop have?\nProject: ${projectId} (pass it as project_id where a tool takes one)`);
    const last = sentMessages(first + 4);
    expect(last.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(last[3]!.content).toMatch(/^Result of step 1 of 8, svc_list_projects:\n/);
    expect(last[7]!.content).toMatch(/^Result of step 3 of 8, svc_create_test \(an ERROR\):\nVALIDATION_FAILED/);

    // Each step was the caller's own request: the audit log has the agent and what it did.
    const audit = await api.get('/api/audit-logs?limit=50');
    expect(audit.body.items.some((e: { action: string; metadata: { status?: string } }) => e.action === 'agent.invoke' && e.metadata.status === 'answered')).toBe(true);
  });

  it('stops at max_steps and asks the model for its answer from what it has', async () => {
    replies(
      { tool: 'svc_list_projects', arguments: {} },
      { answer: 'I listed the projects; running the tests is left undone.' },
    );
    const res = await api.post('/api/v1/agent/invoke', { goal: 'Run everything', max_steps: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'step_limit', answer: 'I listed the projects; running the tests is left undone.' });
    expect(res.body.steps).toHaveLength(1);
    expect(sentMessages(llm.requests.length - 1).at(-1)!.content).toMatch(/You have used all 1 tool calls\. Call no more tools/);
  });

  it('explains an unusable reply back to the model, as a step', async () => {
    replies('Sure! I will list the projects.', { tool: 'svc_teleport', arguments: {} }, { answer: 'done' });
    const res = await api.post('/api/agent/invoke', { goal: 'List projects' });
    expect(res.body.status).toBe('answered');
    expect(res.body.steps).toEqual([
      expect.objectContaining({ n: 1, tool: null, is_error: true, result: expect.stringMatching(/not one JSON object/) }),
      expect.objectContaining({ n: 2, tool: null, is_error: true, result: expect.stringMatching(/^there is no tool "svc_teleport"; the tools are svc_health, /) }),
    ]);
  });

  it('a model failing after some steps returns those steps with the error: they happened', async () => {
    replies({ tool: 'svc_list_projects', arguments: {} });
    for (let i = 0; i < 6; i++) llm.script.push({ status: 500, body: openAiError('upstream exploded', 'server_error') });
    const res = await api.post('/api/agent/invoke', { goal: 'List projects, then more' });
    llm.script.length = 0;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'model_error', answer: null, error: { code: 'UNAVAILABLE' } });
    expect(res.body.steps).toEqual([expect.objectContaining({ n: 1, tool: 'svc_list_projects', is_error: false })]);
  });

  it('offers a read-only agent only the tools that read', async () => {
    const before = llm.requests.length;
    replies({ tool: 'svc_create_test', arguments: { project_id: projectId, name: 'Sneaky', type: 'api', steps: [{ type: 'request', url: '/' }] } }, { answer: 'could not' });
    const res = await api.post('/api/agent/invoke', { goal: 'Write a test', read_only: true });
    expect(res.body.steps[0]).toMatchObject({ tool: null, is_error: true });
    expect(res.body.tools_offered).toBeLessThan((await api.post('/api/agent/invoke', { goal: 'count', max_steps: 1 })).body.tools_offered);
    expect(sentMessages(before)[0]!.content).not.toMatch(/- svc_create_test\b/);
    expect((await api.get(`/api/tests?project_id=${projectId}`)).body.items.map((t: { name: string }) => t.name)).not.toContain('Sneaky');
  });

  it('is never offered a person\'s decision: approving, rejecting or modifying a run waiting for approval', async () => {
    const before = llm.requests.length;
    replies({ why: 'approve my own plan', tool: 'svc_approve_run', arguments: { thread_id: 'any' } }, { answer: 'could not' });
    const res = await api.post('/api/agent/invoke', { goal: 'Run the tests and approve the plan' });
    expect(res.status).toBe(200);
    // Not in the tool list the model reads, so naming it is an unusable reply: nothing was called.
    const system = sentMessages(before)[0]!.content;
    for (const name of ['svc_approve_run', 'svc_reject_run', 'svc_modify_run']) expect(system).not.toMatch(new RegExp(`- ${name}\\b`));
    expect(system).toMatch(/- svc_pending_approvals \(reads only\):/);
    expect(res.body.steps).toEqual([expect.objectContaining({ n: 1, tool: null, is_error: true, result: expect.stringMatching(/^there is no tool "svc_approve_run"/) })]);
    // Nor can a caller hand it one.
    const asked = await api.post('/api/agent/invoke', { goal: 'x', tools: ['svc_list_projects', 'svc_reject_run'] });
    expect(asked.status).toBe(400);
    expect(asked.body.error.message).toMatch(/tools: not offered: svc_reject_run/);
  });

  it('names the field at fault, hides other organizations\' projects and needs a member', async () => {
    const empty = await api.post('/api/agent/invoke', { goal: '' });
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toMatch(/goal/);
    const tools = await api.post('/api/agent/invoke', { goal: 'x', read_only: true, tools: ['svc_list_projects', 'svc_test'] });
    expect(tools.status).toBe(400);
    expect(tools.body.error.message).toMatch(/tools: not offered to a read-only agent: svc_test/);
    expect((await api.post('/api/agent/invoke', { goal: 'x', project_id: otherProjectId })).status).toBe(404);
    const key = await api.post('/api/api-keys', { name: 'reader', permissions: ['read'] });
    const reader = client(server.url, { token: key.body.key });
    expect((await reader.post('/api/agent/invoke', { goal: 'x' })).body.error.code).toBe('INSUFFICIENT_ROLE');
  });

  it('answers 501 NOT_CONFIGURED without a model, before doing anything', async () => {
    const user = await signUp(bare.url, 'agent-bare@example.com', 'Bare Org');
    const res = await client(bare.url, { token: user.token, org: user.orgId }).post('/api/agent/invoke', { goal: 'List projects' });
    expect(res.status).toBe(501);
    expect(res.body.error).toMatchObject({ code: 'NOT_CONFIGURED' });
    expect(res.body.error.message).toMatch(/SVC_LLM_PROVIDERS/);
  });
});

describe('svc_agent over MCP', () => {
  it('is a tool of the gateway, and the agent inside uses the caller\'s key', async () => {
    const key = await api.post('/api/api-keys', { name: 'assistant', permissions: ['write'] });
    const mcp = new Client({ name: 'agent-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key.body.key}` } } }));
    try {
      const listed = (await mcp.listTools()).tools.find((t) => t.name === 'svc_agent');
      expect(listed?.annotations).toMatchObject({ readOnlyHint: false });
      replies({ tool: 'svc_list_projects', arguments: {} }, { answer: 'One project: Shop.' });
      const result = (await mcp.callTool({ name: 'svc_agent', arguments: { goal: 'Which projects are there?' } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: 'answered', answer: 'One project: Shop.' });
      const steps = (result.structuredContent as { steps: Array<{ tool: string; result: string }> }).steps;
      expect(steps[0]!.tool).toBe('svc_list_projects');
      expect(steps[0]!.result).toContain('Shop');
    } finally {
      await mcp.close();
    }
  });
});
