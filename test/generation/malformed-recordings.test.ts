/**
 * Malformed recordings (found by QA): a Recorder step with an empty URL, a selectors
 * string instead of a list, an empty text/ or xpath/ selector, a negative count, a
 * scroll to "a", an asserted navigation whose url is a number, a title that is a number,
 * and Playwright statements with an empty locator or key, a negative wait or a regex
 * that does not compile — each answered 500 INTERNAL ("generated test is invalid", or a
 * TypeError) instead of converting the rest. Now a step that cannot be a valid step is
 * listed in `skipped` naming its field, the rest is converted, executed once in real
 * Chromium against the fixture app and stored; a recording that is not one at all is a
 * 400 naming the field. Real HTTP against the local runtime.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

let server: TestServer;
let app: FixtureApp;
let api: Client;
let projectId: string;

beforeAll(async () => {
  app = await startFixtureApp();
  server = await startTestServer();
  const me = await signUp(server.url, 'malformed-rec@example.com');
  api = client(server.url, { token: me.token, org: me.orgId });
  const p = await api.post('/api/v1/projects', { name: 'shop', app_url: app.url });
  expect(p.status).toBe(201);
  projectId = p.body.id;
});
afterAll(async () => {
  await server?.stop();
  await app?.close();
});

const SIGN_IN = [
  { type: 'navigate', url: 'https://prod.example.com/login' },
  { type: 'change', value: 'demo@example.com', selectors: [['#email']] },
  { type: 'change', value: 's3cret!', selectors: [['#password']] },
  { type: 'click', selectors: [['#login-submit']] },
  { type: 'waitForElement', selectors: [['#welcome']] },
];

describe('malformed Chrome Recorder steps', () => {
  it('each bad step is skipped naming its field; the rest is converted, passes in Chromium and is stored', async () => {
    const bad = [
      { type: 'navigate', url: '' },
      { type: 'click', selectors: '#login-submit' },
      { type: 'click', selectors: [['text/']] },
      { type: 'hover', selectors: [['xpath/']] },
      { type: 'waitForElement', selectors: [['#welcome']], count: -1, operator: '>=' },
      { type: 'scroll', x: 'a', y: null },
      { type: 'navigate', url: '/dashboard', assertedEvents: [{ type: 'navigation', url: 5, title: {} }] },
      { type: 'click', selectors: [['#welcome']], assertedEvents: 7 },
    ];
    const r = await api.post('/api/recording/convert', { project_id: projectId, recording: { title: 'sign in with junk', steps: [...SIGN_IN, ...bad] } });
    expect(r.status, r.text).toBe(201);
    const skippedAt = r.body.skipped.map((s: { at: number }) => s.at);
    // navigate '' (5), selectors string (6), text/ (7), xpath/ (8), count -1 (9), scroll x "a" (10); the navigate to /dashboard
    // converts but its asserted url 5 and title {} do not (11); assertedEvents 7 is not a list (12, its click converts).
    expect(skippedAt).toEqual(expect.arrayContaining([5, 6, 7, 8, 9, 10, 11]));
    const reasons = Object.fromEntries(r.body.skipped.map((s: { at: number; reason: string }) => [s.at, s.reason]));
    expect(reasons[5]).toMatch(/url/);
    expect(reasons[9]).toMatch(/count|min/);
    expect(reasons[10]).toMatch(/\bx\b/);
    expect(r.body.execution.status, JSON.stringify(r.body.execution)).toBe('passed');
    expect(r.body.created_test).toBeTruthy();
    const stored = await api.get(`/api/tests/${r.body.created_test.id}`);
    expect(stored.status).toBe(200);
    expect(stored.body.steps.map((s: { type: string }) => s.type)).toEqual(['goto', 'fill', 'fill', 'click', 'wait-for', 'goto', 'click']);
  });

  it('a recording whose title is not a string is a 400 naming recording.title; one with only bad steps is a 400 naming recording', async () => {
    let r = await api.post('/api/recording/convert', { project_id: projectId, execute: false, recording: { title: 5, steps: SIGN_IN } });
    expect(r.status, r.text).toBe(400);
    expect(r.body.error.details.issues[0].path).toBe('recording.title');
    r = await api.post('/api/recording/convert', { project_id: projectId, execute: false, recording: { title: 't', steps: [{ type: 'navigate', url: '' }, { type: 'click', selectors: 'x' }] } });
    expect(r.status, r.text).toBe(400);
    expect(r.body.error.details.issues[0].path).toBe('recording');
    expect(r.body.error.message).toMatch(/no step of the recording could be converted: step 0 \(navigate\): .*url/);
  });
});

describe('malformed Playwright statements', () => {
  it('an empty locator, key or URL, a negative wait and a regex that does not compile are skipped by line; the rest passes and is stored', async () => {
    const script = [
      "import { test, expect } from '@playwright/test';",
      "test('sign in with junk', async ({ page }) => {",
      "  await page.goto('/login');",
      "  await page.getByText('').click();",
      "  await page.getByLabel('Email').fill('demo@example.com');",
      "  await page.keyboard.press('');",
      "  await page.getByLabel('Password').fill('s3cret!');",
      "  await page.waitForTimeout(-5);",
      "  await page.getByRole('button', { name: /(/ }).click();",
      "  await page.getByRole('button', { name: 'Sign in' }).click();",
      '  await expect(page).toHaveURL(/(/);',
      "  await page.goto('');",
      "  await expect(page.getByTestId('')).toBeVisible();",
      "  await expect(page.getByRole('heading', { name: 'Welcome' })).toBeVisible();",
      '});',
    ].join('\n');
    const r = await api.post('/api/recording/convert', { project_id: projectId, recording: script, format: 'playwright' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.skipped.map((s: { at: number }) => s.at).sort((a: number, b: number) => a - b)).toEqual([4, 6, 8, 9, 11, 12, 13]);
    expect(r.body.execution.status, JSON.stringify(r.body.execution)).toBe('passed');
    const stored = await api.get(`/api/tests/${r.body.created_test.id}`);
    expect(stored.status).toBe(200);
    expect(stored.body.steps.map((s: { type: string }) => s.type)).toEqual(['goto', 'fill', 'fill', 'click', 'assert']);
  });
});

describe('a recorded dropdown (found by QA)', () => {
  // The Recorder writes choosing an option of a <select> as a change step with the option's value, as it does for typing in a
  // field; it became a fill, which Chromium refuses on a <select>, so a recording of any form with a dropdown failed its one run
  // and was never saved. A fill on a <select> now chooses the option whose value (else label) is the text.
  it('a change step on a <select> chooses the option: the recording passes in Chromium and is stored', async () => {
    const recording = {
      title: 'contact with a topic',
      steps: [
        { type: 'setViewport', width: 1280, height: 720 },
        { type: 'navigate', url: 'https://prod.example.com/form' },
        { type: 'change', value: 'Ada', selectors: [['aria/Name'], ['#name']] },
        { type: 'change', value: 'support', selectors: [['aria/Topic'], ['#topic']] },
        { type: 'change', value: 'Hello there', selectors: [['aria/Message'], ['#message']] },
      ],
    };
    const r = await api.post('/api/recording/convert', { project_id: projectId, recording });
    expect(r.status, r.text).toBe(201);
    expect(r.body.execution.status, JSON.stringify(r.body.execution)).toBe('passed');
    expect(r.body.created_test).toBeTruthy();
  });

  it('a plain-language fill of a dropdown by its label text, and one naming no option, which fails saying what the options are', async () => {
    let r = await api.post('/api/nlp/create-test', { project_id: projectId, text: 'go to "/form"\nfill "Topic" with "Billing"\nexpect "Topic" to have value "billing"' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.execution.status, JSON.stringify(r.body.execution)).toBe('passed');
    r = await api.post('/api/nlp/create-test', { project_id: projectId, text: 'go to "/form"\nfill "Topic" with "Refunds"' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.execution.status).toBe('failed');
    expect(r.body.execution.error).toMatch(/no option whose value or label is "Refunds".*"support"/);
  });
});

describe('a Playwright spec file with several tests (found by QA)', () => {
  // Every test's statements were appended to the first one, named after it: the second test ran on the first one's page
  // state and nothing said so. The first test (with the hooks around it) is converted; each later test is listed in skipped.
  it('converts the first test and lists the others in skipped, naming them', async () => {
    const script = [
      "import { test, expect } from '@playwright/test';",
      'test.beforeEach(async ({ page }) => {',
      "  await page.goto('/login');",
      '});',
      "test('signs in', async ({ page }) => {",
      "  await page.getByLabel('Email').fill('demo@example.com');",
      "  await page.getByLabel('Password').fill('s3cret!');",
      "  await page.getByRole('button', { name: 'Sign in' }).click();",
      "  await expect(page.getByRole('heading', { name: 'Welcome' })).toBeVisible();",
      '});',
      "test('shows the form', async ({ page }) => {",
      "  await page.goto('/form');",
      "  await page.getByLabel('Name').fill('Ada');",
      '});',
    ].join('\n');
    const r = await api.post('/api/recording/convert', { project_id: projectId, recording: script });
    expect(r.status, r.text).toBe(201);
    expect(r.body.test.name).toBe('signs in');
    expect(r.body.test.steps.map((s: { type: string }) => s.type)).toEqual(['goto', 'fill', 'fill', 'click', 'assert']);
    expect(r.body.skipped).toEqual([{ at: 11, what: expect.stringContaining("test('shows the form'"), reason: expect.stringMatching(/another test \("shows the form"\).*one test/) }]);
    expect(r.body.execution.status, JSON.stringify(r.body.execution)).toBe('passed');
  });
});
