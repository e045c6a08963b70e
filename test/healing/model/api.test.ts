import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import { rankPage } from '@svc/core/healing/rank';
import { startTestServer, client, signUp, type TestServer, type Client } from '../../support/server.ts';
import { startWireDouble, type WireDouble } from '../../llm/support/wire-double.ts';
import { openAiCompletion } from '../../llm/support/formats.ts';
import { parseChoicePrompt, promptOf, readingModel } from './support.ts';

/**
 * The healing endpoints with a model configured (SVC_LLM_* pointing at a local server in
 * the OpenAI wire format) and without: /api/healing/config reports the llm mode, and
 * /api/healing/suggest-fixes asks the model only about ambiguous rankings, promoting the
 * ranker's own pick just below the threshold and nothing else.
 */
let withModel: TestServer;
let without: TestServer;
let api: WireDouble;
let answer: (prompt: string) => string;
let admin: Client;
let orgId: string;

// v1's password field as recorded, and v2's login page (the field renamed, its test id gone).
const stored = { tag: 'input', id: 'password', name: 'password', type: 'password', value: 's3cret!', classes: ['input', 'input-password'], testId: 'login-password', role: 'textbox', accessibleName: 'Password', neighborText: ['Password', 'Email', 'Sign in'], xpath: '/html/body/main[1]/form[1]/input[2]', idXpath: '//*[@id="password"]', box: { x: 16, y: 222, width: 320, height: 31 }, visible: true };
const page = [
  { tag: 'input', id: 'user-email', name: 'email', type: 'email', classes: ['field', 'field--email'], placeholder: 'you@example.com', testId: 'login-email', role: 'textbox', accessibleName: 'Email address', neighborText: ['Email address', 'Password', 'Log in'], xpath: '/html/body/main[1]/form[1]/input[1]', idXpath: '//*[@id="user-email"]', box: { x: 16, y: 168, width: 320, height: 31 }, visible: true },
  { tag: 'input', id: 'user-password', name: 'password', type: 'password', value: 's3cret!', classes: ['field', 'field--password'], role: 'textbox', accessibleName: 'Password', neighborText: ['Password', 'Email address', 'Log in'], xpath: '/html/body/main[1]/form[1]/input[2]', idXpath: '//*[@id="user-password"]', box: { x: 16, y: 230, width: 320, height: 31 }, visible: true },
  { tag: 'button', id: 'signin-button', type: 'submit', classes: ['button', 'button--primary'], text: 'Log in', testId: 'login-submit', role: 'button', accessibleName: 'Log in', xpath: '/html/body/main[1]/form[1]/button[1]', idXpath: '//*[@id="signin-button"]', box: { x: 16, y: 290, width: 80, height: 36 }, isButton: true, visible: true },
];
const top = rankPage(stored, page).ranked[0];
const round = (x: number) => Math.round(x * 1000) / 1000;

beforeAll(async () => {
  api = await startWireDouble((req) => ({ body: openAiCompletion(answer(promptOf(req)), { prompt: 300, completion: 20 }, req.body?.model) }));
  [withModel, without] = await Promise.all([
    startTestServer({ runtime: { llmEnv: { SVC_LLM_PROVIDERS: 'openai', SVC_OPENAI_BASE_URL: `${api.url}/v1`, SVC_OPENAI_MODEL_CHEAP: 'chooser-small', SVC_OPENAI_MODEL_MID: 'chooser-mid' } } }),
    startTestServer({ runtime: { llmEnv: {} } }),
  ]);
  const owner = await signUp(withModel.url, 'model-healer@example.com', 'Model Heal Org');
  orgId = owner.orgId;
  admin = client(withModel.url, { token: owner.token, org: orgId });
}, 60_000);
afterAll(async () => {
  await Promise.all([withModel?.stop(), without?.stop(), api?.close()]);
});
beforeEach(() => {
  answer = (prompt) => JSON.stringify(readingModel(prompt));
  api.requests.length = 0;
});

async function projectWithThreshold(threshold: number) {
  const res = await admin.post('/api/v1/projects', { name: `Shop ${threshold} ${Math.random()}`, app_url: 'http://127.0.0.1:1', config: { healing: { threshold } } });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}
const suggest = (projectId: string) => admin.post('/api/healing/suggest-fixes', { project_id: projectId, original_selector: '#password', fingerprint: stored, candidates: page });

describe('healing with a model, over HTTP', () => {
  it('GET /api/healing/config reports the llm mode available only when a model is configured', async () => {
    const on = await admin.get('/api/healing/config');
    expect(on.body.modes.llm).toMatchObject({ available: true, task_type: 'heal_selector', models: expect.arrayContaining([{ provider: 'openai', model: 'chooser-small', tier: 'cheap' }]) });
    expect(on.text).not.toContain(api.url);
    const other = await signUp(without.url, 'no-model@example.com');
    const off = await client(without.url, { token: other.token, org: other.orgId }).get('/api/healing/config');
    expect(off.body.modes.llm).toMatchObject({ available: false, reason: expect.stringMatching(/no language model is configured/) });
  });

  it('the model confirms the ranker\'s pick just below the threshold: promoted to auto_apply, usage recorded, no password sent', async () => {
    expect(top.confidence).toBeLessThan(0.99);
    const threshold = round(top.confidence + 0.01);
    const res = await suggest(await projectWithThreshold(threshold));
    expect(res.status, res.text).toBe(200);
    expect(res.body.model).toMatchObject({ action: 'promote', index: 1, healed_selector: res.body.suggestions[0].healed_selector });
    expect(res.body.suggestions[0]).toMatchObject({ index: 1, method: 'llm', auto_apply: true, confidence: threshold });
    expect(res.body.suggestions.slice(1).every((s: { auto_apply: boolean }) => !s.auto_apply)).toBe(true);
    expect(api.requests).toHaveLength(1);
    expect(JSON.stringify(api.requests[0].body)).not.toContain('s3cret!');
    const usage = (await withModel.runtime.deps.store.aiUsage.list(orgId, 10)).items;
    expect(usage.map((u) => u.task_type)).toContain('heal_selector');
  });

  it('a clear ranking is not sent to the model; an invalid answer changes nothing', async () => {
    const clear = await suggest(await projectWithThreshold(Math.max(0.5, round(top.confidence - 0.05))));
    expect(clear.body.model).toBeNull();
    expect(clear.body.suggestions[0]).toMatchObject({ method: 'dom_similarity', auto_apply: true });
    expect(api.requests).toHaveLength(0);

    answer = () => JSON.stringify({ choice: 9, reason: 'the ninth' });
    const projectId = await projectWithThreshold(round(top.confidence + 0.01));
    const refused = await suggest(projectId);
    expect(refused.body.model).toMatchObject({ action: 'keep', index: null, reason: expect.stringMatching(/candidate 9 is not one of/) });
    expect(refused.body.suggestions[0]).toMatchObject({ index: 1, method: 'dom_similarity', auto_apply: false, confidence: top.confidence });

    answer = (prompt) => JSON.stringify({ choice: parseChoicePrompt(prompt).candidates.findIndex((c) => c.id === 'user-email'), reason: 'an email field' });
    const other = await suggest(projectId);
    expect(other.body.model).toMatchObject({ action: 'keep', index: 0 });
    expect(other.body.suggestions.every((s: { auto_apply: boolean }) => !s.auto_apply)).toBe(true);
  });

  it('POST /api/heal: the healer\'s decision includes the model-confirmed fix', async () => {
    const projectId = await projectWithThreshold(round(top.confidence + 0.01));
    const test = await admin.post('/api/tests', { project_id: projectId, name: 'login', type: 'ui', steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#password', value: 'x' }] });
    expect(test.status, test.text).toBe(201);
    const res = await admin.post('/api/heal', { test_id: test.body.id, step_index: 1, fingerprint: stored, candidates: page, url: 'http://127.0.0.1:1/login' });
    expect(res.status, res.text).toBe(202);
    expect(res.body.decision).toBe('heal');
    expect(res.body.proposals[0]).toMatchObject({ method: 'llm', index: 1, confidence: round(top.confidence + 0.01) });
    expect(api.requests).toHaveLength(1);
  });

  it('without a model the suggestions are the ranker\'s alone', async () => {
    const other = await signUp(without.url, 'no-model-2@example.com');
    const c = client(without.url, { token: other.token, org: other.orgId });
    const projectId = (await c.post('/api/v1/projects', { name: 'Shop', app_url: 'http://127.0.0.1:1', config: { healing: { threshold: round(top.confidence + 0.01) } } })).body.id;
    const res = await c.post('/api/healing/suggest-fixes', { project_id: projectId, original_selector: '#password', fingerprint: stored, candidates: page });
    expect(res.status).toBe(200);
    expect(res.body.model).toBeNull();
    expect(res.body.suggestions[0]).toMatchObject({ index: 1, method: 'dom_similarity', auto_apply: false });
    expect(api.requests).toHaveLength(0);
  });
});
