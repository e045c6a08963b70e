/**
 * Generation with a model: /api/nlp/create-test and /create-from-story on the real local
 * runtime, with an OpenAI-compatible endpoint (a local server speaking its wire format).
 * Lines the grammar cannot read go to the model with the page's elements (listed from
 * real Chromium); the model's grammar sentences are parsed by our grammar and the test is
 * executed once in Chromium against the fixture app. Garbage answers, failing models and
 * budgets leave the grammar's answer with the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { startWireDouble, type RecordedRequest, type WireDouble } from '../llm/support/wire-double.ts';
import { openAiCompletion, openAiError } from '../llm/support/formats.ts';
import { promptOf } from '../healing/model/support.ts';
import { parseSentence } from '../../packages/core/src/intelligence/generation/grammar/parse-sentence.ts';
import { MODEL_CERTAINTY_FACTOR } from '../../packages/core/src/intelligence/generation/model-assist.ts';

let app: FixtureApp;
let llm: WireDouble;
let server: TestServer;
let api: Client;
let orgId: string;
let projectId: string;

/**
 * A stand-in model that answers by reading the prompt, the way a real one would: for a
 * sign-in line it uses the credentials the line gives and, when the page's elements show
 * "Email", "Password" and a "Sign in" button, fills and clicks them by those names.
 */
function readingModel(req: RecordedRequest) {
  const prompt = promptOf(req);
  const lines = prompt.split('\n');
  const elements = lines.filter((l) => l.startsWith('- {')).map((l) => JSON.parse(l.slice(2)) as { role?: string; name?: string; text?: string; testId?: string });
  const failed = /when the test ran once it failed: .* matched \d+ elements/.test(prompt);
  const has = (role: string, name: string) => elements.some((e) => e.role === role && e.name === name);
  const start = lines.indexOf('Lines to rewrite (line: text):');
  const rewrites = lines.slice(start + 1).filter((l) => /^\d+: /.test(l)).map((l) => {
    const [, n, text] = /^(\d+): (.*)$/.exec(l)!;
    const creds = /([\w.+-]+@[\w-]+\.[\w.]+)\s*(?:\/|with)\s*([^\s)]+?)[),.]*(?:\s|$)/.exec(text);
    let sentences: string[] = [];
    const dbl = /double-click "([^"]+)"/.exec(text);
    if (failed && dbl) {
      // Ambiguous name: pick the one element whose own text is a longer, exact version of it.
      const exact = elements.find((e) => e.text && e.text !== dbl[1] && e.text.startsWith(dbl[1]));
      if (exact) sentences = [`double-click "${exact.text}"`];
    }
    if (/make sure a visitor/i.test(text) && creds) sentences = ['open the login page', `log in as "${creds[1]}" with password "${creds[2]}"`, 'expect heading "Welcome"'];
    else if (/sign in/i.test(text) && creds) {
      sentences = has('textbox', 'Email') && elements.some((e) => e.name === 'Password') && has('button', 'Sign in') ? [`fill "Email" with "${creds[1]}"`, `fill "Password" with "${creds[2]}"`, 'click "Sign in"'] : [`log in as "${creds[1]}" with password "${creds[2]}"`];
    }
    return { line: Number(n), sentences };
  });
  return { body: openAiCompletion(JSON.stringify({ rewrites }), { prompt: 700, completion: 80 }, req.body.model) };
}

beforeAll(async () => {
  app = await startFixtureApp();
  llm = await startWireDouble(readingModel);
  server = await startTestServer({ runtime: { llmEnv: { SVC_LLM_PROVIDERS: 'openai', SVC_OPENAI_BASE_URL: `${llm.url}/v1`, SVC_OPENAI_MODEL_CHEAP: 'local-small', SVC_OPENAI_MODEL_MID: 'local-mid' } } });
  const me = await signUp(server.url, 'model-gen@example.com');
  orgId = me.orgId;
  api = client(server.url, { token: me.token, org: me.orgId });
  const p = await api.post('/api/v1/projects', { name: 'shop', app_url: app.url });
  expect(p.status).toBe(201);
  projectId = p.body.id;
});
afterAll(async () => {
  await server?.stop();
  await llm?.close();
  await app?.close();
});

const STORY = `Scenario: demo sign in
Given I am on the login page
When I sign in using the demo account (demo@example.com / s3cret!)
Then I should see heading "Welcome"`;

describe('generation with a model', () => {
  it('a story line the grammar rejects is rewritten by the model with the page elements, and the test passes in Chromium', async () => {
    const before = llm.requests.length;
    const r = await api.post('/api/nlp/create-from-story', { project_id: projectId, story: STORY });
    expect(r.status, r.text).toBe(201);
    expect(r.body.execution.status, JSON.stringify(r.body.execution)).toBe('passed');
    expect(r.body.not_understood).toEqual([]);
    expect(r.body.understood.map((u: { line: number; source: string }) => [u.line, u.source])).toEqual([[2, 'grammar'], [3, 'model'], [4, 'grammar']]);
    const line3 = r.body.understood[1];
    expect(line3.rewrite).toEqual(['fill "Email" with "demo@example.com"', 'fill "Password" with "s3cret!"', 'click "Sign in"']);
    // Lowered: the grammar's own certainty for those sentences, times the model factor.
    const grammarCertainty = Math.min(...line3.rewrite.map((x: string) => (parseSentence(x) as { certainty: number }).certainty));
    expect(line3.certainty).toBeCloseTo(grammarCertainty * MODEL_CERTAINTY_FACTOR, 3);
    expect(line3.certainty).toBeLessThan(grammarCertainty);
    expect(r.body.test.steps.map((s: { type: string }) => s.type)).toEqual(['goto', 'fill', 'fill', 'click', 'assert']);
    expect(r.body.test.tags).toEqual(['generated', 'model-assisted']);
    expect(r.body.created_test).toMatchObject({ status: 'passed', tags: ['generated', 'model-assisted'] });
    expect(r.body.page_context).toMatchObject({ url: `${app.url}/login`, elements: expect.any(Number) });
    expect(r.body.model).toMatchObject({ model: 'local-mid', provider: 'openai', complexity: 'MODERATE', rewritten: [3], refused: [], input_tokens: 700, output_tokens: 80 });

    // What the model saw: the page, its elements by role and name, the understood lines and the line to rewrite.
    expect(llm.requests.length).toBe(before + 1);
    const sent = llm.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.body.response_format).toEqual({ type: 'json_object' });
    expect(sent.body.messages[0].content).toMatch(/SUPPORTED|Supported sentences/);
    const prompt = promptOf(sent);
    expect(prompt).toContain(`Page under test: ${app.url}/login`);
    expect(prompt).toContain('{"role":"textbox","name":"Email"');
    expect(prompt).toContain('{"role":"button","name":"Sign in"');
    expect(prompt).toContain('{"tag":"input","name":"Password","type":"password"');
    expect(prompt).toMatch(/^2: Given I am on the login page$/m);
    expect(prompt).toMatch(/^3: When I sign in using the demo account \(demo@example.com \/ s3cret!\)$/m);
    expect(prompt).not.toContain('demo-session-token');

    // The call is recorded in ai_usage as generate_test / MODERATE.
    const usage = await server.runtime.deps.store.aiUsage.list(orgId, 10);
    expect(usage.items.find((u) => u.id === r.body.model.usage_id)).toMatchObject({ task_type: 'generate_test', complexity: 'MODERATE', model: 'local-mid', provider: 'openai', input_tokens: 700, output_tokens: 80 });
  });

  it('ambiguous: a name matching several elements fails the run; the model names the one element and the corrected test passes', async () => {
    const r = await api.post('/api/nlp/create-test', { project_id: projectId, text: 'go to "/dblclick"\ndouble-click "Double-click"\nexpect text "Double-clicked 1 time"' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.first_attempt).toMatchObject({ status: 'failed', failure_kind: 'locator', failed_step: 1 });
    expect(r.body.first_attempt.error).toMatch(/matched 2 elements/);
    expect(r.body.repair).toMatchObject({ line: 2, model: { rewritten: [2], refused: [], complexity: 'MODERATE' }, page_context: { url: `${app.url}/dblclick` } });
    expect(r.body.understood[1]).toMatchObject({ line: 2, source: 'model', rewrite: ['double-click "Double-click me"'] });
    expect(r.body.execution.status, JSON.stringify(r.body.execution)).toBe('passed');
    expect(r.body.created_test).toMatchObject({ status: 'passed', tags: ['generated', 'model-assisted'] });
    expect(JSON.parse(r.body.generated_test.code).steps[1]).toEqual(r.body.test.steps[1]);
    const prompt = promptOf(llm.requests.at(-1)!);
    expect(prompt).toContain('{"tag":"div","text":"Double-click me","testId":"dbl-target"}');
    expect(prompt).toMatch(/when the test ran once it failed: .*matched 2 elements/);
    expect(prompt).toMatch(/^2: double-click "Double-click"$/m);
  });

  it('ambiguous, but the model repeats the line: nothing is re-run and the failure stands', async () => {
    llm.script.push({ body: openAiCompletion(JSON.stringify({ rewrites: [{ line: 2, sentences: ['double-click "Double-click"'] }] })) });
    const r = await api.post('/api/nlp/create-test', { project_id: projectId, text: 'go to "/dblclick"\ndouble-click "Double-click"' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.execution).toMatchObject({ status: 'failed', failure_kind: 'locator' });
    expect(r.body).not.toHaveProperty('first_attempt');
    expect(r.body.repair.model.refused).toEqual([{ line: 2, reason: "the model's rewrite reads the same as the line that failed" }]);
    expect(r.body.created_test).toBeNull();
    expect(r.body.understood[1].source).toBe('grammar');
  });

  it('free-form prose becomes grammar sentences, parsed and executed once', async () => {
    const r = await api.post('/api/nlp/create-test', { project_id: projectId, text: 'Make sure a visitor can open the login page, sign in as demo@example.com with s3cret! and then see the welcome heading.' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.understood).toEqual([expect.objectContaining({ line: 1, source: 'model', rewrite: ['open the login page', 'log in as "demo@example.com" with password "s3cret!"', 'expect heading "Welcome"'] })]);
    expect(r.body.test.steps[0]).toEqual({ type: 'goto', url: '/login' });
    expect(r.body.execution.status, JSON.stringify(r.body.execution)).toBe('passed');
    // Model-written lines lower the generator's confidence: below a grammar-only pass.
    expect(r.body.generated_test.confidence_score).toBeLessThan(0.9);
    expect(r.body.generated_test.confidence_score).toBeGreaterThan(0.5);
  });

  it('a garbage answer is refused: code is not a sentence, lines stay not understood (400)', async () => {
    llm.script.push({ body: openAiCompletion(JSON.stringify({ rewrites: [{ line: 2, sentences: ["document.querySelector('#login-submit').click()"] }] })) });
    let r = await api.post('/api/nlp/create-test', { project_id: projectId, text: 'go to "/login"\nfeel the vibe of the page' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('VALIDATION_FAILED');
    expect(r.body.error.message).toMatch(/line 2: not understood: "feel the vibe of the page"/);
    expect(r.body.error.details.not_understood[0].reason).toMatch(/the model's rewrite "document.querySelector.*" is not a supported sentence either/);
    expect(r.body.error.details.model).toMatchObject({ rewritten: [], refused: [{ line: 2 }] });

    llm.script.push({ body: openAiCompletion('Sure! Here is your test: click the button.') });
    r = await api.post('/api/nlp/create-test', { project_id: projectId, text: 'go to "/login"\nfeel the vibe of the page' });
    expect(r.status).toBe(400);
    expect(r.body.error.details.not_understood[0].reason).toMatch(/not the JSON object asked for/);

    // Raw steps instead of sentences, and rewrites of lines it was not asked about, are ignored.
    llm.script.push({ body: openAiCompletion(JSON.stringify({ steps: [{ type: 'click', selector: '#x' }], rewrites: [{ line: 1, sentences: ['go to "/admin"'] }] })) });
    r = await api.post('/api/nlp/create-test', { project_id: projectId, execute: false, allow_partial: true, text: 'go to "/login"\nfeel the vibe of the page' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.test.steps).toEqual([{ type: 'goto', url: '/login' }]);
    expect(r.body.not_understood[0]).toMatchObject({ line: 2, reason: expect.stringMatching(/the model gave no rewrite/) });
  });

  it('a rewrite pointing at another origin is refused', async () => {
    llm.script.push({ body: openAiCompletion(JSON.stringify({ rewrites: [{ line: 2, sentences: ['go to "https://evil.example/phish"'] }] })) });
    const r = await api.post('/api/nlp/create-test', { project_id: projectId, text: 'go to "/login"\nthen head over to the partner site' });
    expect(r.status).toBe(400);
    expect(r.body.error.details.not_understood[0].reason).toMatch(/points at https:\/\/evil.example/);
  });

  it('a failing model falls back to the grammar answer with model_error', async () => {
    const keep = llm.fallback;
    llm.fallback = () => ({ status: 500, body: openAiError('boom', 'server_error') });
    try {
      let r = await api.post('/api/nlp/create-test', { project_id: projectId, text: 'go to "/login"\nfeel the vibe of the page' });
      expect(r.status).toBe(400);
      expect(r.body.error.details.model_error).toMatchObject({ reason: 'PROVIDER_ERROR' });
      expect(r.body.error.details.model_error.message).toMatch(/tried openai\/local-mid: PROVIDER_ERROR; openai\/local-small: PROVIDER_ERROR/);
      expect(r.body.error.details.not_understood).toEqual([expect.objectContaining({ line: 2 })]);

      r = await api.post('/api/nlp/create-test', { project_id: projectId, execute: false, allow_partial: true, text: 'go to "/login"\nfeel the vibe of the page' });
      expect(r.status, r.text).toBe(201);
      expect(r.body).toMatchObject({ model: null, model_error: { reason: 'PROVIDER_ERROR' }, test: { steps: [{ type: 'goto', url: '/login' }], tags: ['generated'] } });
    } finally {
      llm.fallback = keep;
    }
  });

  it('over the organization budget the model is not called and the grammar answer stands', async () => {
    await server.runtime.deps.store.table.update({ key: { pk: `ORG#${orgId}`, sk: 'ORG' }, set: { ai_budget_daily: 0.0001 } });
    const before = llm.requests.length;
    try {
      const r = await api.post('/api/nlp/create-from-story', { project_id: projectId, story: STORY });
      expect(r.status).toBe(400);
      expect(r.body.error.details.model_error).toMatchObject({ reason: 'BUDGET_EXCEEDED' });
      expect(llm.requests.length).toBe(before);
    } finally {
      await server.runtime.deps.store.table.update({ key: { pk: `ORG#${orgId}`, sk: 'ORG' }, set: { ai_budget_daily: null } });
    }
  });
});

describe('generation without a model', () => {
  let bare: TestServer;
  let bareApi: Client;
  let bareProject: string;
  beforeAll(async () => {
    bare = await startTestServer({ runtime: { llmEnv: {} } });
    const me = await signUp(bare.url, 'no-model-gen@example.com');
    bareApi = client(bare.url, { token: me.token, org: me.orgId });
    bareProject = (await bareApi.post('/api/v1/projects', { name: 'shop', app_url: app.url })).body.id;
  });
  afterAll(async () => {
    await bare?.stop();
  });

  it('the same story is a 400 listing the line, with no model fields, as before', async () => {
    const before = llm.requests.length;
    const r = await bareApi.post('/api/nlp/create-from-story', { project_id: bareProject, story: STORY });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/line 3: not understood: "When I sign in using the demo account/);
    expect(r.body.error.details.not_understood).toEqual([expect.objectContaining({ line: 3, reason: 'no supported sentence pattern matches' })]);
    expect(r.body.error.details).not.toHaveProperty('model');
    expect(r.body.error.details).not.toHaveProperty('model_error');
    expect(llm.requests.length).toBe(before);
  });
});
