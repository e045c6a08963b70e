import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createPlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';
import { startFixtureApp, DEMO_USER, type FixtureApp } from '../../fixtures/app/server.ts';
import { ctx, step } from '../../execution/ui/helpers.ts';
import { startTestServer, client, signUp, type TestServer, type Client } from '../../support/server.ts';
import { startWireDouble, type WireDouble } from '../../llm/support/wire-double.ts';
import { openAiCompletion } from '../../llm/support/formats.ts';
import { promptOf } from './support.ts';

/**
 * The vision fallback in a server run (local runtime, run graph, the run's own Chromium):
 * with SVC_LLM_VISION on, the run's browser gets the LLM-backed VisionLocator, so the v1
 * selector "#login-submit" on the v2 login page is clicked at the coordinates the model
 * reads off the screenshot, the test passes, and the call is paid by the run's
 * organization. The model stands behind a local server in the OpenAI wire format.
 */
let app: FixtureApp;
let server: TestServer;
let api: WireDouble;
let admin: Client;
let orgId: string;
let button: { x: number; y: number };

beforeAll(async () => {
  app = await startFixtureApp({ version: 'v2' });
  const driver = await createPlaywrightDriver();
  try {
    const s = await driver.openSession({ baseUrl: app.url, trace: false });
    await s.perform(step({ type: 'goto', url: '/login' }), ctx());
    button = await s.page.evaluate(() => {
      const r = document.querySelector('#signin-button')!.getBoundingClientRect();
      return { x: Math.round(r.x + r.width / 2), y: Math.round(r.y + r.height / 2) };
    });
    await s.close();
  } finally {
    await driver.close();
  }
  api = await startWireDouble((req) => {
    const found = promptOf(req).includes('"#login-submit"');
    return { body: openAiCompletion(JSON.stringify(found ? { found: true, ...button, confidence: 0.9 } : { found: false, confidence: 0 }), { prompt: 1500, completion: 20 }, req.body.model) };
  });
  server = await startTestServer({ runtime: { llmEnv: { SVC_LLM_PROVIDERS: 'openai', SVC_OPENAI_BASE_URL: `${api.url}/v1`, SVC_OPENAI_MODEL_MID: 'vision-mid', SVC_LLM_VISION: 'true' } } });
  const owner = await signUp(server.url, 'vision-run@example.com', 'Vision Org');
  orgId = owner.orgId;
  admin = client(server.url, { token: owner.token, org: orgId });
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await Promise.all([app?.close(), api?.close()]);
});

async function until(runId: string, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await admin.get(`/api/v1/test/status/${runId}`);
    if (['completed', 'failed', 'cancelled'].includes(res.body.run.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${res.body.run.status}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('vision fallback in a server run', () => {
  it('clicks the broken sign-in button at the model\'s coordinates; usage is paid by the run\'s organization', async () => {
    const projectId = (await admin.post('/api/v1/projects', { name: 'Shop', app_url: app.url })).body.id;
    const test = await admin.post('/api/tests', {
      project_id: projectId, name: 'sign in with the v1 button id', type: 'ui',
      steps: [
        { type: 'goto', url: '/login' },
        { type: 'fill', selector: '[name=email]', value: DEMO_USER.email },
        { type: 'fill', selector: '[name=password]', value: DEMO_USER.password },
        { type: 'click', selector: '#login-submit', name: 'Sign in button' },
        { type: 'wait-for', url: '**/dashboard' },
      ],
      assertions: [{ type: 'text', selector: '#welcome', equals: `Welcome, ${DEMO_USER.name}!` }],
    });
    expect(test.status, test.text).toBe(201);
    const started = await admin.post('/api/v1/test/run', { project_id: projectId, test_ids: [test.body.id] });
    expect(started.status, started.text).toBe(201);
    const status = await until(started.body.run.id);
    expect(status.run, JSON.stringify(status)).toMatchObject({ status: 'completed', passed_tests: 1, failed_tests: 0 });

    expect(api.requests).toHaveLength(1);
    const content = api.requests[0].body.messages.at(-1).content as Array<{ type: string; image_url?: { url: string } }>;
    expect(content.find((c) => c.type === 'image_url')?.image_url?.url).toMatch(/^data:image\/png;base64,/);
    const usage = (await server.runtime.deps.store.aiUsage.list(orgId, 10)).items;
    expect(usage).toEqual([expect.objectContaining({ task_type: 'vision_locate', model: 'vision-mid', organization_id: orgId, test_id: null })]);
    expect(usage[0].run_id).toBeTruthy();
  }, 180_000);
});
