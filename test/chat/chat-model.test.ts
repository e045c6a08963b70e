/**
 * Chat with a model: the local runtime configured from the environment with an
 * OpenAI-compatible endpoint (a local server speaking its wire format). The retrieved
 * rows and the question go to the router (SIMPLE → cheap model, unrecognised →
 * MODERATE → mid), usage is recorded, and a failing model leaves the built-in answer
 * with the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';
import { startWireDouble, type WireDouble } from '../llm/support/wire-double.ts';
import { openAiCompletion, openAiError } from '../llm/support/formats.ts';
import { seedProject, type Seeded } from './support.ts';

let server: TestServer;
let llm: WireDouble;
let api: Client;
let orgId: string;
let seeded: Seeded;

beforeAll(async () => {
  llm = await startWireDouble((req) => ({ body: openAiCompletion(`Per the data, "Login" failed in run ${req.body.model === 'local-small' ? 'the last run' : '?'}.`, { prompt: 900, completion: 100 }, req.body.model) }));
  server = await startTestServer({
    runtime: { llmEnv: { SVC_LLM_PROVIDERS: 'openai', SVC_OPENAI_BASE_URL: `${llm.url}/v1`, SVC_OPENAI_MODEL_CHEAP: 'local-small', SVC_OPENAI_MODEL_MID: 'local-mid' } },
  });
  const user = await signUp(server.url, 'model-chat@example.com', 'Model Chat Org');
  orgId = user.orgId;
  api = client(server.url, { token: user.token, org: orgId });
  seeded = await seedProject(api, server.runtime.deps.store, orgId);
});
afterAll(async () => {
  await server?.stop();
  await llm?.close();
});

describe('chat with a model', () => {
  it('an unrecognised question goes to the mid model with what semantic search matched', async () => {
    const res = await api.post('/api/v1/chat', { message: 'Do we have anything covering the checkout?', project_id: seeded.projectId });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ intent: 'model', model: 'local-mid' });
    expect(res.body.data.search_matches).toEqual([expect.objectContaining({ kind: 'test', title: 'Checkout', id: seeded.tests.checkout })]);
    const prompt = llm.requests.at(-1)!.body.messages.at(-1).content as string;
    expect(prompt).toContain('"search_matches":[{"kind":"test"');
  });

  it('sends the retrieved rows and the question to the cheap model and records usage', async () => {
    const res = await api.post('/api/v1/chat', { message: 'What failed?', project_id: seeded.projectId });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ intent: 'model', model: 'local-small', answer: 'Per the data, "Login" failed in run the last run.', usage: { input_tokens: 900, output_tokens: 100, cost_usd: 0.001 } });
    expect(res.body.data.matched_intent).toBe('failed');
    expect(res.body.data.failed[0]).toMatchObject({ test_name: 'Login', run_id: seeded.runs[2] });

    const sent = llm.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.body.model).toBe('local-small');
    expect(sent.body.messages[0]).toMatchObject({ role: 'system' });
    expect(sent.body.messages[0].content).toMatch(/Cite what you rely on/);
    const prompt = sent.body.messages.at(-1).content as string;
    expect(prompt).toMatch(/Question: What failed\?$/);
    expect(prompt).toContain(seeded.runs[2]);
    expect(prompt).toContain('expected heading \\"Welcome\\"');

    const usage = await server.runtime.deps.store.aiUsage.list(orgId, 10);
    expect(usage.items[0]).toMatchObject({ model: 'local-small', provider: 'openai', task_type: 'chat_answer', complexity: 'SIMPLE', input_tokens: 900, output_tokens: 100, cost_usd: 0.001 });
    const day = new Date().toISOString().slice(0, 10);
    expect((await server.runtime.deps.store.aiUsage.daily(orgId, day))?.request_count).toBeGreaterThanOrEqual(1);
    const metrics = await fetch(`${server.url}/metrics`);
    expect(await metrics.text()).toMatch(/llm_tokens_total\{model="local-small"\} \d+/);
  });

  it('a question the matcher does not know goes to the mid tier, with the conversation so far', async () => {
    const first = await api.post('/api/v1/chat', { message: 'What failed?', project_id: seeded.projectId });
    const res = await api.post('/api/v1/chat', { message: 'Explain why that might be', conversation_id: first.body.conversation_id });
    expect(res.body.model).toBe('local-mid');
    const sent = llm.requests.at(-1)!;
    expect(sent.body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  });

  it('when the model fails the built-in answer is given, with the reason', async () => {
    llm.script.push({ status: 500, body: openAiError('boom') }); // SIMPLE → the cheap tier only: one attempt
    const res = await api.post('/api/v1/chat', { message: 'What failed?', project_id: seeded.projectId });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ intent: 'failed', model: null, usage: null, model_error: { reason: 'PROVIDER_ERROR' } });
    expect(res.body.model_error.message).toMatch(/tried openai\/local-small: PROVIDER_ERROR/);
    expect(res.body.answer).toContain('"Login"');
  });

  it('over the organization budget the model is refused and the built-in answer stands', async () => {
    await server.runtime.deps.store.table.update({ key: { pk: `ORG#${orgId}`, sk: 'ORG' }, set: { ai_budget_daily: 0.001 } });
    const res = await api.post('/api/v1/chat', { message: 'What failed?', project_id: seeded.projectId });
    expect(res.body.model_error).toMatchObject({ reason: 'BUDGET_EXCEEDED' });
    expect(res.body.model_error.message).toMatch(/^BUDGET: the organization daily AI budget/);
    expect(res.body.intent).toBe('failed');
  });
});
