import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, readFile, writeFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rankCandidates } from '@svc/core/healing/rank';
import { createPlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';
import { startFixtureApp, DEMO_USER, type FixtureApp } from '../../fixtures/app/server.ts';
import { ctx, step } from '../../execution/ui/helpers.ts';
import { startWireDouble, type WireDouble } from '../../llm/support/wire-double.ts';
import { openAiCompletion } from '../../llm/support/formats.ts';
import { promptOf, readingModel } from './support.ts';

/**
 * `svc run` with SVC_LLM_* set, as a user runs it: the real binary and Chromium, the
 * model behind a local OpenAI-compatible server. On v2 of the fixture app the broken
 * "#password" is healed by the ranker's pick confirmed by the model (just below the
 * threshold), and the broken "#login-submit" is clicked at the coordinates the model reads
 * off the screenshot. Usage is kept in the state dir and summed up on stdout.
 */
const root = join(import.meta.dirname, '..', '..', '..');
const bin = join(root, 'node_modules', '.bin', 'svc');
let dir: string;
let v1: FixtureApp;
let v2: FixtureApp;
let api: WireDouble;
let threshold: number;
let button: { x: number; y: number };

const suite = {
  name: 'login with v1 locators',
  tests: [
    {
      id: 'login',
      name: 'sign in',
      type: 'ui',
      steps: [
        { type: 'goto', url: '/login' },
        { type: 'fill', selector: '[name=email]', value: DEMO_USER.email },
        { type: 'fill', selector: '#password', value: DEMO_USER.password },
        { type: 'click', selector: '#login-submit', name: 'Sign in button' },
        { type: 'wait-for', url: '**/dashboard' },
      ],
      assertions: [{ type: 'text', selector: '#welcome', equals: `Welcome, ${DEMO_USER.name}!` }],
    },
  ],
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-model-cli-'));
  await writeFile(join(dir, 'login.json'), JSON.stringify(suite));
  [v1, v2] = await Promise.all([startFixtureApp({ version: 'v1' }), startFixtureApp({ version: 'v2' })]);
  // What the CLI will see: #password's fingerprint on v1, v2's page after the email is typed, the button's place.
  const driver = await createPlaywrightDriver({ locateTimeoutMs: 300 });
  try {
    const s1 = await driver.openSession({ baseUrl: v1.url, trace: false });
    await s1.perform(step({ type: 'goto', url: '/login' }), ctx());
    const stored = (await s1.perform(step({ type: 'fill', selector: '#password', value: DEMO_USER.password }), ctx())).fingerprint!;
    await s1.close();
    const s2 = await driver.openSession({ baseUrl: v2.url, trace: false });
    await s2.perform(step({ type: 'goto', url: '/login' }), ctx());
    await s2.perform(step({ type: 'fill', selector: '[name=email]', value: DEMO_USER.email }), ctx());
    const top = rankCandidates(stored, await s2.pageFingerprints())[0];
    expect(top.confidence).toBeGreaterThanOrEqual(0.5);
    expect(top.confidence).toBeLessThan(0.99);
    threshold = Math.round((top.confidence + 0.01) * 1000) / 1000;
    button = await s2.page.evaluate(() => {
      const r = document.querySelector('#signin-button')!.getBoundingClientRect();
      return { x: Math.round(r.x + r.width / 2), y: Math.round(r.y + r.height / 2) };
    });
    await s2.close();
  } finally {
    await driver.close();
  }
  api = await startWireDouble((req) => {
    const user = (req.body.messages as Array<{ role: string; content: unknown }>).at(-1)!;
    const hasImage = Array.isArray(user.content) && user.content.some((p: { type: string }) => p.type === 'image_url');
    const prompt = promptOf(req);
    // Vision: only the sign-in button is looked for on the screenshot; anything else is "not found", so healing takes over.
    const text = hasImage
      ? JSON.stringify(prompt.includes('"#login-submit"') ? { found: true, ...button, confidence: 0.9 } : { found: false, confidence: 0 })
      : JSON.stringify(readingModel(prompt));
    return { body: openAiCompletion(text, { prompt: 500, completion: 20 }, req.body.model) };
  });
}, 90_000);

afterAll(async () => {
  await Promise.all([v1?.close(), v2?.close(), api?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

function svc(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(bin, args, { cwd: root, timeout: 240_000, env: { ...process.env, ...env } }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
  });
}

const llmEnv = () => ({ SVC_LLM_PROVIDERS: 'openai', SVC_OPENAI_BASE_URL: `${api.url}/v1`, SVC_OPENAI_MODEL_CHEAP: 'cli-small', SVC_OPENAI_MODEL_MID: 'cli-mid', SVC_LLM_VISION: 'true' });
const state = () => join(dir, 'state');

describe('svc run with a model', () => {
  it('records on v1, then on v2 heals #password with the model and clicks #login-submit by vision', async () => {
    const first = await svc(['run', '--url', v1.url, '--tests', join(dir, 'login.json'), '--out', join(dir, 'v1'), '--state-dir', state(), '--reporter', 'json']);
    expect(first.code, first.stderr + first.stdout).toBe(0);

    const second = await svc(['run', '--url', v2.url, '--tests', join(dir, 'login.json'), '--out', join(dir, 'v2'), '--state-dir', state(), '--reporter', 'json', '--heal-threshold', String(threshold)], llmEnv());
    expect(second.code, second.stderr + second.stdout).toBe(0);
    const report = JSON.parse(await readFile(join(dir, 'v2', 'report.json'), 'utf8'));
    const [test] = report.tests;
    expect(test.status).toBe('healed');
    expect(test.healed_selectors).toEqual([expect.objectContaining({ original: '#password', confidence: threshold })]);
    expect(second.stdout).toMatch(/AI usage: .*heal_selector ×1/);
    expect(second.stdout).toMatch(/vision_locate ×2/); // #password (not found on the screenshot), then #login-submit
    expect(second.stdout).not.toContain(DEMO_USER.password);
    expect(JSON.stringify(api.requests.map((r) => r.body))).not.toContain(DEMO_USER.password);
    expect((await stat(join(state(), 'llm-usage'))).isDirectory()).toBe(true);

    const healing = JSON.parse(await readFile(join(state(), 'healing.json'), 'utf8')).items as Array<Record<string, unknown>>;
    expect(healing.find((i) => i.entity === 'healing_pattern' && i.original_selector === '#password')).toMatchObject({ method: 'llm' });
  }, 300_000);

  it('a broken model configuration is a usage error naming the variable', async () => {
    const res = await svc(['run', '--url', v2.url, '--tests', join(dir, 'login.json'), '--out', join(dir, 'bad'), '--state-dir', state()], { SVC_LLM_PROVIDERS: 'openai', SVC_OPENAI_BASE_URL: `${api.url}/v1`, SVC_OPENAI_MODEL_MID: 'm', SVC_LLM_VISION: 'perhaps' });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/SVC_LLM_VISION/);
  }, 120_000);
});
