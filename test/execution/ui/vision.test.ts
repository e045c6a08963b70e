import { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach } from 'vitest';
import type { Page } from 'playwright-core';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';
import type { PlaywrightUiSession } from '../../../packages/functions/src/execution/browser/session.ts';
import type { VisionLocator } from '../../../packages/functions/src/execution/browser/vision.ts';
import { startFixtureApp, DEMO_USER, type FixtureApp } from '../../fixtures/app/server.ts';
import { assertion, ctx, failure, run, step, type LogLine } from './helpers.ts';

/**
 * Hybrid execution (spec rule 6) against the v2 fixture app, where the v1 selectors no
 * longer match. The VisionLocator here is an in-test adapter: instead of a model it works
 * out the coordinates from the v2 page's DOM (README.md's v1→v2 table), so the test proves
 * the coordinates path really acts on the page. It still checks that it received a real
 * PNG screenshot of the viewport.
 */

const V1_TO_V2: Record<string, string> = {
  '#email': '#user-email',
  '#password': '#user-password',
  '#login-submit': '#signin-button',
  '#info-button': '#info-button',
};

let app: FixtureApp;
let driver: PlaywrightDriver;
let s: PlaywrightUiSession;
let currentPage: Page | undefined;
let mode: 'dom' | 'nothing' | 'unsure' | 'outside' = 'dom';
const calls: Array<{ description: string; viewport: { width: number; height: number }; png: { width: number; height: number } }> = [];

const pngSize = (b: Uint8Array) => {
  if (Buffer.from(b.subarray(0, 8)).toString('hex') !== '89504e470d0a1a0a') throw new Error('not a PNG');
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return { width: v.getUint32(16), height: v.getUint32(20) };
};

const vision: VisionLocator = {
  async locate({ screenshot, description, viewport }) {
    calls.push({ description, viewport, png: pngSize(screenshot) });
    if (mode === 'nothing') return undefined;
    if (mode === 'outside') return { x: viewport.width + 10, y: 5, confidence: 0.99 };
    const v1 = /"(#[\w-]+)"/.exec(description)?.[1];
    const css = v1 ? V1_TO_V2[v1] : undefined;
    if (!css || !currentPage) return undefined;
    const center = await currentPage.evaluate((sel) => {
      const r = document.querySelector(sel)!.getBoundingClientRect();
      return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
    }, css);
    return { ...center, confidence: mode === 'unsure' ? 0.3 : 0.9 };
  },
};

beforeAll(async () => {
  app = await startFixtureApp({ version: 'v2' });
  driver = await createPlaywrightDriver({ vision, locateTimeoutMs: 300 });
});
afterAll(async () => {
  await driver?.close();
  await app?.close();
});
beforeEach(async () => {
  mode = 'dom';
  calls.length = 0;
  s = await driver.openSession({ baseUrl: app.url, trace: false });
  currentPage = s.page;
});
afterEach(async () => {
  await s.close();
});

describe('vision fallback', () => {
  it('v1 selectors on the v2 login page: fill, fill and click by coordinates — and the login really happens', async () => {
    const logs: LogLine[] = [];
    await run(s, [{ type: 'goto', url: '/login' }]);
    const email = await s.perform(step({ type: 'fill', selector: '#email', value: DEMO_USER.email }), ctx(10_000, logs));
    const password = await s.perform(step({ type: 'fill', selector: '#password', value: DEMO_USER.password }), ctx(10_000, logs));
    expect(await s.page.inputValue('#user-email')).toBe(DEMO_USER.email);
    expect(await s.page.inputValue('#user-password')).toBe(DEMO_USER.password);
    const submit = await s.perform(step({ type: 'click', selector: '#login-submit', name: 'Sign in button' }), ctx(10_000, logs));

    await s.check(assertion({ type: 'url', equals: '/dashboard' }), ctx());
    await s.check(assertion({ type: 'text', selector: 'h1', equals: `Welcome, ${DEMO_USER.name}!` }), ctx());

    // the fingerprints are those of the elements actually acted on
    expect(email.fingerprint).toMatchObject({ id: 'user-email', name: 'email', testId: 'login-email' });
    expect(password.fingerprint).toMatchObject({ id: 'user-password', type: 'password' });
    expect(submit.fingerprint).toMatchObject({ id: 'signin-button', text: 'Log in', isButton: true });
    expect(logs.filter((l) => l.level === 'info').map((l) => l.message)).toEqual([
      expect.stringMatching(/^fill: "#email" located by vision at \(\d+, \d+\), confidence 0\.9$/),
      expect.stringMatching(/^fill: "#password" located by vision at/),
      expect.stringMatching(/^click: "#login-submit" located by vision at/),
    ]);
    // the model was sent real viewport screenshots and a description naming the failed selector
    expect(calls).toHaveLength(3);
    for (const c of calls) {
      expect(c.viewport).toEqual({ width: 1280, height: 720 });
      expect(c.png).toEqual({ width: 1280, height: 720 });
    }
    expect(calls[2].description).toBe('Sign in button. The element to click, which the selector "#login-submit" used to find.');
  });

  it('fill by coordinates replaces existing content', async () => {
    await run(s, [{ type: 'goto', url: '/login' }, { type: 'fill', selector: 'input[name=email]', value: 'old@example.com' }]);
    await s.perform(step({ type: 'fill', selector: '#email', value: 'new@example.com' }), ctx());
    expect(await s.page.inputValue('#user-email')).toBe('new@example.com');
  });

  it('hover and dblclick by coordinates', async () => {
    await run(s, [{ type: 'goto', url: '/hover' }]);
    V1_TO_V2['#tip-trigger'] = '#info-button';
    await s.perform(step({ type: 'hover', selector: '#tip-trigger' }), ctx());
    await s.check(assertion({ type: 'visible', selector: '#tooltip' }), ctx());

    await run(s, [{ type: 'goto', url: '/dblclick' }]);
    V1_TO_V2['#double'] = '#dbl-target';
    await s.perform(step({ type: 'dblclick', selector: '#double' }), ctx());
    await s.check(assertion({ type: 'text', selector: '#dbl-result', equals: 'Double-clicked 1 time(s)' }), ctx());
  });

  it('the model finds nothing, is unsure, or answers outside the viewport: still a locator failure', async () => {
    await run(s, [{ type: 'goto', url: '/login' }]);
    mode = 'nothing';
    let f = await failure(() => s.perform(step({ type: 'click', selector: '#login-submit' }), ctx()));
    expect([f.kind, f.message]).toEqual(['locator', 'click: "#login-submit" matched 0 elements; the vision model did not find the element']);
    mode = 'unsure';
    f = await failure(() => s.perform(step({ type: 'click', selector: '#login-submit' }), ctx()));
    expect(f.kind).toBe('locator');
    expect(f.message).toBe("click: \"#login-submit\" matched 0 elements; the vision model's answer has confidence 0.3, below 0.5");
    mode = 'outside';
    f = await failure(() => s.perform(step({ type: 'click', selector: '#login-submit' }), ctx()));
    expect(f.kind).toBe('locator');
    expect(f.message).toContain('outside the 1280x720 viewport');
    expect(new URL(s.url()).pathname).toBe('/login'); // nothing was clicked
  });

  it('only locator failures fall back: a timeout is never sent to the model', async () => {
    await run(s, [{ type: 'goto', url: '/form' }]);
    const f = await failure(() => s.perform(step({ type: 'click', selector: '#archive-button' }), ctx(700)));
    expect(f.kind).toBe('timeout');
    expect(calls).toHaveLength(0);
  });

  it('steps that do not act at a point (check, select…) do not fall back', async () => {
    await run(s, [{ type: 'goto', url: '/form' }]);
    const f = await failure(() => s.perform(step({ type: 'check', selector: '#newsletter' }), ctx()));
    expect([f.kind, f.message]).toEqual(['locator', 'check: "#newsletter" matched 0 elements']);
    expect(calls).toHaveLength(0);
  });
});

describe('the v2 fixture itself (ground truth for healing)', () => {
  it('the login works with the attributes v2 kept (name, label, test id)', async () => {
    await run(s, [
      { type: 'goto', url: '/login' },
      { type: 'fill', selector: 'input[name=email]', value: DEMO_USER.email },
      { type: 'fill', selector: { label: 'Password' }, value: DEMO_USER.password },
      { type: 'check', selector: { role: 'checkbox', name: 'Remember me' } },
      { type: 'click', selector: { test_id: 'login-submit' } },
    ]);
    await s.check(assertion({ type: 'text', selector: '#welcome', contains: 'Welcome' }), ctx());
  });

  it('the contact form: renamed fields, no newsletter checkbox, "Send" button', async () => {
    await run(s, [
      { type: 'goto', url: '/form' },
      { type: 'fill', selector: { test_id: 'contact-name' }, value: 'Ada' },
      { type: 'fill', selector: '#email-address', value: 'ada@example.com' },
      { type: 'select', selector: { label: 'Subject' }, label: 'Sales team' },
      { type: 'click', selector: { role: 'button', name: 'Send', exact: true } },
    ]);
    await s.check(assertion({ type: 'count', selector: 'input[type=checkbox]', equals: 0 }), ctx());
    await s.check(assertion({ type: 'text', selector: '#summary-topic', equals: 'sales' }), ctx());
    await s.check(assertion({ type: 'text', selector: '#summary-newsletter', equals: 'n/a' }), ctx());
  });

  it('v2 login errors use the v2 wording', async () => {
    await run(s, [
      { type: 'goto', url: '/login' },
      { type: 'fill', selector: '#user-email', value: DEMO_USER.email },
      { type: 'fill', selector: '#user-password', value: 'wrong' },
      { type: 'click', selector: '#signin-button' },
    ]);
    await s.check(assertion({ type: 'text', selector: { role: 'alert' }, equals: 'Wrong email or password' }), ctx());
  });
});
