import { PNG } from 'pngjs';
import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import { createStore, type Store } from '@svc/core/store/index';
import { createLlmClient, notConfiguredLlmClient } from '@svc/core/llm/client';
import type { LlmClient, LlmProvider } from '@svc/core/llm/types';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { openAiProvider } from '../../packages/functions/src/llm/openai.ts';
import { anthropicProvider } from '../../packages/functions/src/llm/anthropic.ts';
import { createLlmFromEnv } from '../../packages/functions/src/llm/from-env.ts';
import { llmVisionLocator, parseVerifyAnswer, parseVisionAnswer, visionLocatorFromEnv } from '../../packages/functions/src/llm/vision-locator.ts';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../packages/functions/src/execution/browser/playwright-driver.ts';
import type { PlaywrightUiSession } from '../../packages/functions/src/execution/browser/session.ts';
import { startFixtureApp, DEMO_USER, type FixtureApp } from '../fixtures/app/server.ts';
import { assertion, ctx, failure, step } from '../execution/ui/helpers.ts';
import { startWireDouble, type RecordedRequest, type WireDouble } from './support/wire-double.ts';
import { anthropicMessage, openAiCompletion } from './support/formats.ts';

/**
 * The vision fallback's model provider end to end: the real driver in Chromium, the
 * v1 selector "#login-submit" broken on the fixture app's v2 login page, the LlmClient
 * calling a local server in the OpenAI or Anthropic wire format. The stand-in model reads
 * the prompt and the image it was sent (a real PNG of the viewport) and answers the
 * centre of the button as the page lays it out — worked out in the test from the real
 * page's bounding box, which is what a real model would see on the screenshot.
 */
let app: FixtureApp;
let openai: WireDouble;
let anthropic: WireDouble;
let store: Store;
let orgId: string;
/** The centre of v2's sign-in button, measured on the page before the step. */
let target: { x: number; y: number };
/** What the stand-in model answers, given the prompt and the PNG it received. */
let answer: (prompt: string, png: Buffer) => string;
/** What it answers to a verification (two PNGs: before and after the action). */
let verdict: (prompt: string, before: Buffer, after: Buffer) => string;

/** The system prompt, in either wire format. */
const systemOf = (req: RecordedRequest): string =>
  typeof req.body.system === 'string' ? req.body.system : String((req.body.messages as Array<{ role: string; content: unknown }>).find((m) => m.role === 'system')?.content ?? '');
const isVerification = (req: RecordedRequest) => systemOf(req).includes('had its effect');

/** Every image of the last user message, in order. */
function imagesOf(req: RecordedRequest): Buffer[] {
  const user = (req.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'user').at(-1)!;
  return (user.content as Array<Record<string, any>>)
    .filter((p) => p.type === 'image_url' || p.type === 'image')
    .map((p) => Buffer.from(p.type === 'image_url' ? (p.image_url.url as string).replace(/^data:image\/png;base64,/, '') : p.source.data, 'base64'));
}

/** Share of pixels that differ between two screenshots of one size. */
function changedShare(a: Buffer, b: Buffer): number {
  const [pa, pb] = [PNG.sync.read(a), PNG.sync.read(b)];
  let differ = 0;
  for (let i = 0; i < pa.data.length; i += 4) if (pa.data.readUInt32BE(i) !== pb.data.readUInt32BE(i)) differ++;
  return differ / (pa.width * pa.height);
}

/**
 * A stand-in judge that can only tell how much changed on screen: a click that signs in
 * shows another page (~1.5 % of the pixels of these mostly white pages); one beside the
 * button only takes the focus ring off the password field (~0.15 %). A real model reads
 * the action too; this one needs only the pixels.
 */
const changeSeeingModel = (_: string, before: Buffer, after: Buffer) =>
  changedShare(before, after) > 0.005 ? JSON.stringify({ done: true, confidence: 0.85, reason: 'a different page is shown' }) : JSON.stringify({ done: false, confidence: 0.9, reason: 'the page looks the same as before' });

const pngSize = (b: Buffer) => {
  expect(b.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
};

/** The prompt text and the image, in either wire format. */
function seen(req: RecordedRequest): { prompt: string; png: Buffer } {
  const user = (req.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'user').at(-1)!;
  const parts = user.content as Array<Record<string, any>>;
  const prompt = parts.filter((p) => p.type === 'text').map((p) => p.text).join('\n');
  const image = parts.find((p) => p.type === 'image_url' || p.type === 'image')!;
  const b64 = image.type === 'image_url' ? (image.image_url.url as string).replace(/^data:image\/png;base64,/, '') : image.source.data;
  if (image.type === 'image') expect(image.source).toMatchObject({ type: 'base64', media_type: 'image/png' });
  else expect(image.image_url.url).toMatch(/^data:image\/png;base64,/);
  return { prompt, png: Buffer.from(b64, 'base64') };
}

/** Answers the measured button when the prompt names the broken sign-in selector and the image is the viewport. */
const measuringModel = (prompt: string, png: Buffer) => {
  const size = pngSize(png);
  if (!prompt.includes(`${size.width}x${size.height}`) || !prompt.includes('"#login-submit"')) return JSON.stringify({ found: false, confidence: 0 });
  return JSON.stringify({ found: true, x: target.x, y: target.y, confidence: 0.93 });
};

beforeAll(async () => {
  app = await startFixtureApp({ version: 'v2' });
  const reply = (req: RecordedRequest) => {
    const s = seen(req);
    if (!isVerification(req)) return answer(s.prompt, s.png);
    const [before, after] = imagesOf(req);
    return verdict(s.prompt, before!, after!);
  };
  openai = await startWireDouble((req) => ({ body: openAiCompletion(reply(req), { prompt: 1200, completion: 25 }, req.body.model) }));
  anthropic = await startWireDouble((req) => ({ body: anthropicMessage(reply(req), { input: 1200, output: 25 }, req.body.model) }));
});
afterAll(async () => {
  await Promise.all([app?.close(), openai?.close(), anthropic?.close()]);
});
beforeEach(async () => {
  answer = measuringModel;
  verdict = changeSeeingModel;
  openai.requests.length = 0;
  anthropic.requests.length = 0;
  const clock = { now: () => new Date() };
  store = createStore(new FileTable(undefined, { clock }), clock);
  orgId = (await store.organizations.create({ name: `Vision ${Math.random()}` }, { userId: 'u1', email: 'u1@example.com' })).organization.id;
});

function llmOn(provider: LlmProvider): LlmClient {
  return createLlmClient({ models: [{ provider, model: 'vision-mid', tier: 'mid', costPer1kTokens: 0.003 }], store, clock: { now: () => new Date() } });
}

/** A driver with the LLM-backed vision port, a session on v2's login page with the credentials typed in. */
async function loginPage(llm: LlmClient, verify = false): Promise<{ driver: PlaywrightDriver; s: PlaywrightUiSession }> {
  const driver = await createPlaywrightDriver({ vision: llmVisionLocator({ llm, context: { organizationId: orgId, runId: 'run-1', testId: 'test-1' }, verify }), locateTimeoutMs: 300 });
  const s = await driver.openSession({ baseUrl: app.url, trace: false });
  await s.perform(step({ type: 'goto', url: '/login' }), ctx());
  await s.perform(step({ type: 'fill', selector: '#user-email', value: DEMO_USER.email }), ctx());
  await s.perform(step({ type: 'fill', selector: '#user-password', value: DEMO_USER.password }), ctx());
  target = await s.page.evaluate(() => {
    const r = document.querySelector('#signin-button')!.getBoundingClientRect();
    return { x: Math.round(r.x + r.width / 2), y: Math.round(r.y + r.height / 2) };
  });
  return { driver, s };
}

const providers: Array<[string, () => LlmProvider, () => WireDouble]> = [
  ['OpenAI-compatible', () => openAiProvider({ apiKey: 'sk-test', baseUrl: `${openai.url}/v1`, timeoutMs: 5_000 }), () => openai],
  ['Anthropic', () => anthropicProvider({ apiKey: 'sk-ant-test', baseUrl: anthropic.url, timeoutMs: 5_000 }), () => anthropic],
];

describe('vision locator through the LlmClient', () => {
  for (const [name, provider, double] of providers) {
    it(`${name}: the broken "#login-submit" is clicked at the model's coordinates and the login happens`, async () => {
      const { driver, s } = await loginPage(llmOn(provider()));
      try {
        const out = await s.perform(step({ type: 'click', selector: '#login-submit', name: 'Sign in button' }), ctx(10_000));
        await s.check(assertion({ type: 'url', equals: '/dashboard' }), ctx());
        await s.check(assertion({ type: 'text', selector: 'h1', equals: `Welcome, ${DEMO_USER.name}!` }), ctx());
        expect(out.fingerprint).toMatchObject({ id: 'signin-button', text: 'Log in' });

        expect(double().requests).toHaveLength(1);
        const req = double().requests[0];
        expect(req.body.model).toBe('vision-mid');
        const { prompt, png } = seen(req);
        expect(pngSize(png)).toEqual({ width: 1280, height: 720 });
        expect(prompt).toBe('The screenshot is 1280x720 pixels.\nFind: Sign in button. The element to click, which the selector "#login-submit" used to find.');
        const usage = (await store.aiUsage.list(orgId, 10)).items;
        expect(usage.map((u) => ({ task: u.task_type, complexity: u.complexity, run: u.run_id, test: u.test_id }))).toEqual([{ task: 'vision_locate', complexity: 'MODERATE', run: 'run-1', test: 'test-1' }]);
      } finally {
        await s.close();
        await driver.close();
      }
    });
  }

  it('wrong answers fail the step with a clear locator error: outside the viewport, not found, not JSON, unsure', async () => {
    const { driver, s } = await loginPage(llmOn(providers[0][1]()));
    try {
      const click = () => s.perform(step({ type: 'click', selector: '#login-submit' }), ctx(10_000));
      const cases: Array<[string, RegExp]> = [
        [JSON.stringify({ found: true, x: 1280 + 40, y: 12, confidence: 0.99 }), /vision fallback failed \(the vision model answered \(1320, 12\), outside the 1280x720 viewport\)/],
        [JSON.stringify({ found: true, x: -3, y: 700, confidence: 0.99 }), /outside the 1280x720 viewport/],
        [JSON.stringify({ found: false, confidence: 0 }), /the vision model did not find the element/],
        ['Top right, I believe.', /the vision model's answer is not \{found, x, y, confidence\} JSON/],
        [JSON.stringify({ found: true, confidence: 0.9 }), /said found but gave no x and y/],
        [JSON.stringify({ found: true, x: 10, y: 10, confidence: 0.2 }), /confidence 0.2, below 0.5/],
      ];
      for (const [text, why] of cases) {
        answer = () => text;
        const err = await failure(click);
        expect(err.kind).toBe('locator');
        expect(err.message).toMatch(/"#login-submit"/);
        expect(err.message).toMatch(why);
      }
      await s.check(assertion({ type: 'url', equals: '/login' }), ctx());
    } finally {
      await s.close();
      await driver.close();
    }
  });

  it('coordinates answered inside the viewport but beside the button: the click lands elsewhere and the login does not happen', async () => {
    const { driver, s } = await loginPage(llmOn(providers[0][1]()));
    try {
      answer = () => JSON.stringify({ found: true, x: 1270, y: 710, confidence: 0.9 });
      const out = await s.perform(step({ type: 'click', selector: '#login-submit' }), ctx(10_000));
      expect(out.fingerprint?.id).not.toBe('signin-button');
      const err = await failure(() => s.check(assertion({ type: 'url', equals: '/dashboard' }), ctx(3_000)));
      expect(err.message).toMatch(/\/login/);
    } finally {
      await s.close();
      await driver.close();
    }
  });
});

describe('verifying the new state (SVC_LLM_VISION_VERIFY)', () => {
  it('a click that signed in is verified on the before and after screenshots, and the step passes', async () => {
    const { driver, s } = await loginPage(llmOn(providers[1][1]()), true);
    try {
      const out = await s.perform(step({ type: 'click', selector: '#login-submit', name: 'Sign in button' }), ctx(10_000));
      expect(out.fingerprint).toMatchObject({ id: 'signin-button' });
      await s.check(assertion({ type: 'url', equals: '/dashboard' }), ctx());
      expect(anthropic.requests.map(isVerification)).toEqual([false, true]);
      const check = anthropic.requests[1];
      const [before, after] = imagesOf(check);
      expect(pngSize(before!)).toEqual({ width: 1280, height: 720 });
      expect(pngSize(after!)).toEqual({ width: 1280, height: 720 });
      expect(before!.equals(after!)).toBe(false);
      expect(seen(check).prompt).toBe(`Both screenshots are 1280x720 pixels, before and after the action.\nAction: Sign in button. The element to click, which the selector "#login-submit" used to find. It was clicked at (${target.x}, ${target.y}).`);
      const usage = (await store.aiUsage.list(orgId, 10)).items.map((u) => u.task_type).sort();
      expect(usage).toEqual(['vision_locate', 'vision_verify']);
    } finally {
      await s.close();
      await driver.close();
    }
  });

  it('a click beside the button changes nothing: the step fails as a locator failure saying so, instead of passing for a later assertion to trip on', async () => {
    const { driver, s } = await loginPage(llmOn(providers[0][1]()), true);
    try {
      answer = () => JSON.stringify({ found: true, x: 1270, y: 710, confidence: 0.9 });
      const err = await failure(() => s.perform(step({ type: 'click', selector: '#login-submit' }), ctx(10_000)));
      expect(err.kind).toBe('locator');
      expect(err.message).toMatch(/"#login-submit"/);
      expect(err.message).toMatch(/acted at \(1270, 710\) but the vision model did not see the expected change \(confidence 0\.9\): the page looks the same as before/);

      // A verdict that is not JSON, or unsure, fails the same way: an unconfirmed action is not done.
      answer = measuringModel;
      verdict = () => 'Looks fine to me.';
      expect((await failure(() => s.perform(step({ type: 'click', selector: '#login-submit' }), ctx(10_000)))).message).toMatch(/the verification of the new state failed \(the vision model's verdict is not \{done, confidence, reason\} JSON/);
    } finally {
      await s.close();
      await driver.close();
    }
  });

  it('without it, one call and no second screenshot: the misplaced click passes the step', async () => {
    const { driver, s } = await loginPage(llmOn(providers[0][1]()));
    try {
      answer = () => JSON.stringify({ found: true, x: 1270, y: 710, confidence: 0.9 });
      await s.perform(step({ type: 'click', selector: '#login-submit' }), ctx(10_000));
      expect(openai.requests.map(isVerification)).toEqual([false]);
    } finally {
      await s.close();
      await driver.close();
    }
  });

  it('parseVerifyAnswer takes fenced JSON and refuses anything else', () => {
    expect(parseVerifyAnswer('```json\n{"done": true, "confidence": 0.7, "reason": "dialog opened"}\n```')).toEqual({ done: true, confidence: 0.7, reason: 'dialog opened' });
    expect(parseVerifyAnswer('{"done": false}')).toEqual({ done: false, confidence: 0, reason: '' });
    expect(() => parseVerifyAnswer('{"done": "yes"}')).toThrow(/verdict is not/);
    expect(() => parseVerifyAnswer('no')).toThrow(/verdict is not/);
  });
});

describe('binding the port', () => {
  it('no model (NO_MODEL), or a model without SVC_LLM_VISION: no port, so the driver keeps the locator failure', async () => {
    expect(visionLocatorFromEnv({}, notConfiguredLlmClient())).toBeUndefined();
    expect(visionLocatorFromEnv({ SVC_LLM_VISION: 'true' }, notConfiguredLlmClient())).toBeUndefined();
    const env = { SVC_LLM_PROVIDERS: 'openai', SVC_OPENAI_BASE_URL: `${openai.url}/v1`, SVC_OPENAI_MODEL_MID: 'vision-mid' };
    const llm = createLlmFromEnv(env, { store, clock: { now: () => new Date() } });
    expect(visionLocatorFromEnv(env, llm)).toBeUndefined();
    expect(() => visionLocatorFromEnv({ ...env, SVC_LLM_VISION: 'sometimes' }, llm)).toThrow(/SVC_LLM_VISION/);
    const factory = visionLocatorFromEnv({ ...env, SVC_LLM_VISION: 'true' }, llm);
    expect(factory).toBeTypeOf('function');
    expect(factory!({ organizationId: orgId }).verify).toBeUndefined();
    expect(visionLocatorFromEnv({ ...env, SVC_LLM_VISION: 'true', SVC_LLM_VISION_VERIFY: 'true' }, llm)!({ organizationId: orgId }).verify).toBeTypeOf('function');
    expect(() => visionLocatorFromEnv({ ...env, SVC_LLM_VISION_VERIFY: 'true' }, llm)).toThrow(/SVC_LLM_VISION_VERIFY: .*needs SVC_LLM_VISION=true/);

    // Without the port the broken step fails with the locator error and no model is asked.
    const driver = await createPlaywrightDriver({ locateTimeoutMs: 300 });
    const s = await driver.openSession({ baseUrl: app.url, trace: false });
    try {
      await s.perform(step({ type: 'goto', url: '/login' }), ctx());
      const err = await failure(() => s.perform(step({ type: 'click', selector: '#login-submit' }), ctx()));
      expect(err.kind).toBe('locator');
      expect(err.message).toBe('click: "#login-submit" matched 0 elements');
      expect(err.details?.vision).toMatch(/no vision model is configured/);
      expect(openai.requests).toHaveLength(0);
    } finally {
      await s.close();
      await driver.close();
    }
  });

  it('parseVisionAnswer accepts fenced JSON and rejects points on the viewport edge', () => {
    expect(parseVisionAnswer('```json\n{"found": true, "x": 12.5, "y": 40, "confidence": 0.8}\n```', { width: 100, height: 50 })).toEqual({ x: 12.5, y: 40, confidence: 0.8 });
    expect(() => parseVisionAnswer('{"found": true, "x": 100, "y": 10, "confidence": 0.8}', { width: 100, height: 50 })).toThrow(/outside the 100x50 viewport/);
    expect(() => parseVisionAnswer('{"found": true, "x": 1, "y": 1, "confidence": 3}', { width: 100, height: 50 })).toThrow(/confidence/);
  });
});
