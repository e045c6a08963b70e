import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertRecording, RecordingError } from '../../packages/core/src/intelligence/generation/recording/index.ts';
import { TestDefinition } from '../../packages/core/src/contracts/steps.ts';
import { runTest } from '../../packages/core/src/execution/run-test.ts';
import { httpExchange } from '../../packages/core/src/execution/api/http-exchange.ts';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../packages/functions/src/execution/browser/playwright-driver.ts';
import { FsArtifacts } from '../../packages/functions/src/execution/fs-artifacts.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

/** A DevTools Recorder export of signing in to the fixture app (recorded on another host). */
const chromeRecording = {
  title: 'Sign in to the shop',
  steps: [
    { type: 'setViewport', width: 1280, height: 720, deviceScaleFactor: 1, isMobile: false, hasTouch: false, isLandscape: false },
    { type: 'navigate', url: 'https://shop.example.com/login', assertedEvents: [{ type: 'navigation', url: 'https://shop.example.com/login', title: 'Sign in — Fixture Shop' }] },
    { type: 'click', target: 'main', selectors: [['aria/Email'], ['#email'], ['xpath///*[@id="email"]'], ['pierce/#email']], offsetX: 10, offsetY: 5 },
    { type: 'change', value: 'demo@example.com', selectors: [['aria/Email'], ['#email']], target: 'main' },
    { type: 'change', value: 's3cret!', selectors: [['#password'], ['xpath///*[@id="password"]']], target: 'main' },
    { type: 'keyDown', target: 'main', key: 'Tab' },
    { type: 'keyUp', target: 'main', key: 'Tab' },
    { type: 'click', target: 'main', selectors: [['aria/Sign in[role="button"]'], ['#login-submit'], ['text/Sign in']], offsetX: 5, offsetY: 5, assertedEvents: [{ type: 'navigation', url: 'https://shop.example.com/dashboard', title: '' }] },
    { type: 'waitForElement', selectors: [['#welcome']] },
    { type: 'waitForExpression', expression: 'document.title.length > 0' },
  ],
};

/** What `npx playwright codegen` writes for the same journey, plus an assertion or two. */
const playwrightScript = `import { test, expect } from '@playwright/test';

test('sign in with the demo user', async ({ page }) => {
  await page.goto('https://shop.example.com/login');
  await page.getByLabel('Email').click();
  await page.getByLabel('Email').fill('demo@example.com');
  await page.getByTestId('login-password').fill('s3cret!');
  await page.locator('#remember').check();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL('https://shop.example.com/dashboard');
  await expect(page.getByRole('heading', { name: 'Welcome' })).toBeVisible();
  await expect(page.locator('#user-email-display')).toContainText('demo@example.com');
  await page.mouse.wheel(0, 100);
  await page.close();
});
`;

let app: FixtureApp;
let driver: PlaywrightDriver;
let dir: string;
beforeAll(async () => {
  app = await startFixtureApp();
  driver = await createPlaywrightDriver({ executablePath: process.env.SVC_CHROMIUM_PATH });
  dir = await mkdtemp(join(tmpdir(), 'svc-gen-rec-'));
});
afterAll(async () => {
  await driver?.close();
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

const run = (def: TestDefinition) => runTest('t', TestDefinition.parse(def), { ui: async () => driver, http: httpExchange, artifacts: new FsArtifacts(dir), baseUrl: app.url, environment: {}, secrets: {}, traceOnFailure: false });

describe('Chrome DevTools Recorder JSON', () => {
  it('converts steps (aria first, then CSS), lists skipped ones with reasons, and the test passes in Chromium', async () => {
    const r = await convertRecording(chromeRecording);
    expect(r.format).toBe('chrome-recorder');
    expect(r.test.name).toBe('Sign in to the shop');
    const steps = r.test.steps;
    expect(steps[0]).toEqual({ type: 'goto', url: '/login' });
    expect(steps).toContainEqual({ type: 'click', selector: { role: 'button', name: 'Sign in' } });
    expect(steps).toContainEqual({ type: 'fill', selector: '#password', value: 's3cret!' });
    expect(steps).toContainEqual({ type: 'press', key: 'Tab' });
    expect(steps).toContainEqual({ type: 'wait-for', selector: '#welcome', state: 'visible' });
    expect(steps).toContainEqual({ type: 'assert', assertion: { type: 'url', matches: '^https?://[^/]+/dashboard$' } });
    expect(r.skipped.map((s) => [s.at, s.what])).toEqual([[0, 'setViewport'], [9, 'waitForExpression']]);
    for (const s of r.skipped) expect(s.reason.length).toBeGreaterThan(10);
    expect(r.confidence).toBeGreaterThan(0.6);
    expect(r.confidence).toBeLessThan(1);
    const result = await run(r.test);
    expect(result.error_message ?? '').toBe('');
    expect(result.status).toBe('passed');
  });

  it('accepts the recording as JSON text too', async () => {
    const r = await convertRecording(JSON.stringify(chromeRecording));
    expect(r.format).toBe('chrome-recorder');
  });
});

describe('Playwright codegen scripts', () => {
  it('parses the script with the TypeScript compiler (never runs it) and the test passes in Chromium', async () => {
    const r = await convertRecording(playwrightScript);
    expect(r.format).toBe('playwright');
    expect(r.test.name).toBe('sign in with the demo user');
    expect(r.test.steps).toEqual([
      { type: 'goto', url: '/login' },
      { type: 'click', selector: { label: 'Email' } },
      { type: 'fill', selector: { label: 'Email' }, value: 'demo@example.com' },
      { type: 'fill', selector: { test_id: 'login-password' }, value: 's3cret!' },
      { type: 'check', selector: '#remember' },
      { type: 'click', selector: { role: 'button', name: 'Sign in' } },
      { type: 'assert', assertion: { type: 'url', matches: '^https?://[^/]+/dashboard$' } },
      { type: 'assert', assertion: { type: 'visible', selector: { role: 'heading', name: 'Welcome' } } },
      { type: 'assert', assertion: { type: 'text', selector: '#user-email-display', contains: 'demo@example.com' } },
    ]);
    expect(r.skipped.map((s) => s.at)).toEqual([13, 14]);
    expect(r.skipped[0].reason).toMatch(/not supported/);
    const result = await run(r.test);
    expect(result.error_message ?? '').toBe('');
    expect(result.status).toBe('passed');
  });

  it('chains, nth, filter, selectOption, negated expectations', async () => {
    const r = await convertRecording(`test('x', async ({ page }) => {
      await page.goto('/form');
      await page.getByRole('list').getByText('Sales').first().click();
      await page.locator('li').filter({ hasText: 'Milk' }).nth(2).hover();
      await page.getByLabel('Topic').selectOption({ label: 'Support' });
      await page.getByLabel('Languages').selectOption(['fr', 'de']);
      await expect(page.getByText('Email is required')).not.toBeVisible();
      await expect(page.locator('tr')).toHaveCount(10);
      await expect(page).toHaveTitle(/Contact/);
    });`);
    expect(r.test.steps).toEqual([
      { type: 'goto', url: '/form' },
      { type: 'click', selector: 'internal:role=list >> internal:text="Sales"i >> nth=0' },
      { type: 'hover', selector: 'li >> internal:has-text="Milk"i >> nth=2' },
      { type: 'select', selector: { label: 'Topic' }, label: 'Support' },
      { type: 'select', selector: { label: 'Languages' }, values: ['fr', 'de'] },
      { type: 'assert', assertion: { type: 'hidden', selector: { text: 'Email is required' } } },
      { type: 'assert', assertion: { type: 'count', selector: 'tr', equals: 10 } },
      { type: 'assert', assertion: { type: 'title', matches: 'Contact' } },
    ]);
  });
});

describe('Playwright codegen: every statement not converted is listed (found by QA: these were dropped silently)', () => {
  it('evaluate, a popup and what is done in it, a second page, test options, control flow and declarations are in skipped with reasons', async () => {
    const r = await convertRecording(`import { test, expect } from '@playwright/test';

test.use({ viewport: { width: 800, height: 600 } });

test('popup', async ({ page, context }) => {
  await page.goto('https://shop.example.com/login');
  const x = await page.evaluate(() => document.title);
  const page1Promise = page.waitForEvent('popup');
  await page.getByRole('link', { name: 'Help' }).click();
  const page1 = await page1Promise;
  await page1.getByPlaceholder('Search help').fill('refund');
  await page1.close();
  const page2 = await context.newPage();
  await page2.goto('https://shop.example.com/table');
  if (x) {
    await page.getByLabel('Email').fill('a@b.c');
  }
  await expect(page).toHaveTitle(/Sign in/);
});
`);
    expect(r.test.steps).toEqual([
      { type: 'goto', url: '/login' },
      { type: 'click', selector: { role: 'link', name: 'Help' } },
      { type: 'assert', assertion: { type: 'title', matches: 'Sign in' } },
    ]);
    const at = (line: number) => r.skipped.find((s) => s.at === line)?.reason;
    expect(r.skipped.map((s) => s.at)).toEqual([3, 7, 8, 10, 11, 12, 13, 14, 15]);
    expect(at(3)).toMatch(/test\.use\(…\) options are not converted/);
    expect(at(7)).toMatch(/page\.evaluate runs code in the page/);
    expect(at(8)).toMatch(/popup is another page/);
    expect(at(10)).toMatch(/popup is another page/);
    expect(at(11)).toMatch(/page1 is another page/);
    expect(at(12)).toMatch(/page1 is another page/);
    expect(at(13)).toMatch(/second page \(context\.newPage\(\)\)/);
    expect(at(14)).toMatch(/page2 is another page/);
    expect(at(15)).toMatch(/control flow/);
    // Skipped statements lower the confidence: 3 of 12 converted.
    expect(r.confidence).toBe(0.25);
  });
});

describe('bad recordings', () => {
  it('an unknown format is a RecordingError naming what is expected', async () => {
    for (const bad of [{ hello: 'world' }, 'just some words', '{"steps": "nope"}', '']) {
      const err = await convertRecording(bad).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(RecordingError);
    }
    const err = (await convertRecording({ hello: 1 }).catch((e: unknown) => e)) as RecordingError;
    expect(err.message).toMatch(/unknown recording format.*Chrome DevTools Recorder.*Playwright/);
  });

  it('a forced format that does not fit, and a recording with nothing convertible, are errors too', async () => {
    await expect(convertRecording('page.goto("/x")', { format: 'chrome-recorder' })).rejects.toThrow(/Chrome DevTools Recorder/);
    await expect(convertRecording({ title: 'x', steps: [{ type: 'setViewport' }, { type: 'customStep' }] })).rejects.toThrow(/no step of the recording could be converted: step 0 \(setViewport\)/);
    await expect(convertRecording({ title: 'x', steps: [] })).rejects.toThrow(/no steps/);
  });
});

describe('a Recorder aria/Name without a role (found by QA)', () => {
  const signIn = (selectors: string[][]) => ({
    title: 'sign in',
    steps: [
      { type: 'navigate', url: 'https://shop.example.com/login' },
      { type: 'change', value: 'demo@example.com', selectors: [['aria/Email']] },
      { type: 'change', value: 's3cret!', selectors: [['aria/Password']] },
      { type: 'click', selectors, assertedEvents: [{ type: 'navigation', url: 'https://shop.example.com/dashboard', title: '' }] },
    ],
  });

  it("takes the recording's own id when it gives one, and otherwise leaves headings out of a click and keeps a field to form controls: the test passes in Chromium", async () => {
    const withId = await convertRecording(signIn([['aria/Sign in'], ['#login-submit'], ['text/Sign in']]));
    expect(withId.test.steps).toContainEqual({ type: 'click', selector: '#login-submit' });
    const ariaOnly = await convertRecording(signIn([['aria/Sign in']]));
    const click = ariaOnly.test.steps.find((s) => s.type === 'click') as { selector: string };
    expect(click.selector).not.toContain('role=heading');
    const fill = ariaOnly.test.steps.find((s) => s.type === 'fill') as { selector: string };
    expect(fill.selector).not.toContain('role=button');
    // The fixture's /login has an <h1>Sign in</h1> beside its Sign in button: both tests pass there.
    for (const r of [withId, ariaOnly]) {
      const result = await run(r.test);
      expect(result.error_message ?? '', JSON.stringify(r.test.steps)).toBe('');
      expect(result.status).toBe('passed');
    }
  });
});
