import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devices } from 'playwright-core';
import { TestDefinition } from '../../../packages/core/src/contracts/steps.ts';
import { runTest } from '../../../packages/core/src/execution/run-test.ts';
import { httpExchange } from '../../../packages/core/src/execution/api/http-exchange.ts';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';
import { FsArtifacts } from '../../../packages/functions/src/execution/fs-artifacts.ts';
import { DEVICE_NAMES } from '../../../packages/functions/src/execution/browser/device-names.ts';
import { browserSettingsIssues } from '../../../packages/functions/src/execution/browser/device-check.ts';
import { startFixtureApp, type FixtureApp } from '../../fixtures/app/server.ts';

/**
 * A test's browser settings in real Chromium: the fixture app's /device page prints what
 * the browser tells it (width, mobile, touch, language, time zone, colour scheme, motion),
 * and the test's assertions read it back.
 */
let app: FixtureApp;
let driver: PlaywrightDriver;
let dir: string;

beforeAll(async () => {
  app = await startFixtureApp();
  driver = await createPlaywrightDriver({ locateTimeoutMs: 2_000, assertTimeoutMs: 2_000 });
  dir = await mkdtemp(join(tmpdir(), 'svc-browser-settings-'));
});
afterAll(async () => {
  await driver?.close();
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Opens /device with these settings and expects these texts. */
function deviceTest(browser: unknown, expected: Record<string, string>, parameters: Record<string, string> = {}) {
  return TestDefinition.parse({
    name: 'device',
    type: 'ui',
    timeout_ms: 30_000,
    parameters,
    browser,
    steps: [{ type: 'goto', url: '/device' }],
    assertions: Object.entries(expected).map(([id, text]) => ({ type: 'text', selector: `#${id}`, equals: text })),
  });
}

const run = (def: ReturnType<typeof deviceTest>) =>
  runTest('browser-settings', def, { ui: async () => driver, http: httpExchange, artifacts: new FsArtifacts(dir), baseUrl: app.url, environment: {}, secrets: {}, traceOnFailure: false });

describe('browser settings', () => {
  it('without settings: the desktop default, 1280 wide, no touch', async () => {
    const r = await run(deviceTest(undefined, { width: '1280', mobile: 'no', touch: 'no' }));
    expect(r.status, r.error_message).toBe('passed');
  });

  it('a device brings its viewport, user agent and touch; locale, time zone and media preferences apply', async () => {
    const r = await run(deviceTest(
      { device: 'iPhone 13', locale: 'de-CH', timezone: 'Asia/Tokyo', color_scheme: 'dark', reduced_motion: 'reduce' },
      { width: String(devices['iPhone 13'].viewport.width), mobile: 'yes', touch: 'yes', language: 'de-CH', timezone: 'Asia/Tokyo', scheme: 'dark', motion: 'reduce' },
    ));
    expect(r.status, r.error_message).toBe('passed');
  });

  it('a viewport given with a device replaces the device\'s; one given alone sizes the desktop page', async () => {
    expect((await run(deviceTest({ device: 'Pixel 7', viewport: { width: 360, height: 700 } }, { width: '360', mobile: 'yes' }))).status).toBe('passed');
    expect((await run(deviceTest({ viewport: { width: 800, height: 600 } }, { width: '800', mobile: 'no' }))).status).toBe('passed');
  });

  it('settings may be variables (a parameter set per device); a wrong one fails the step that opened the browser', async () => {
    const ok = await run(deviceTest({ device: '{{device}}' }, { width: String(devices['Pixel 7'].viewport.width) }, { device: 'Pixel 7' }));
    expect(ok.status, ok.error_message).toBe('passed');
    const bad = await run(deviceTest({ device: '{{device}}' }, { width: '1' }, { device: 'iPhone 99' }));
    expect(bad).toMatchObject({ status: 'failed', failure_kind: 'configuration', failed_step: 0 });
    expect(bad.error_message).toMatch(/^step 1 \(.*\): browser\.device: unknown device "iPhone 99"; did you mean "iPhone 1\d/);
    const zone = await run(deviceTest({ timezone: '{{tz}}' }, { width: '1' }, { tz: 'Mars/Olympus' }));
    expect(zone.error_message).toMatch(/browser\.timezone: an IANA time zone such as Europe\/Berlin/);
  });
});

describe('checking settings before anything runs', () => {
  it('literal values are checked by the schema and device names against Playwright\'s, naming the field', () => {
    expect(TestDefinition.safeParse({ name: 't', type: 'ui', steps: [{ type: 'goto', url: '/' }], browser: { timezone: 'Mars/Olympus' } }).error?.issues[0].path).toEqual(['browser', 'timezone']);
    expect(TestDefinition.safeParse({ name: 't', type: 'ui', steps: [{ type: 'goto', url: '/' }], browser: { locale: 'not a locale' } }).error?.issues[0].path).toEqual(['browser', 'locale']);
    expect(TestDefinition.safeParse({ name: 't', type: 'ui', steps: [{ type: 'goto', url: '/' }], browser: { viewport: { width: 10, height: 700 } } }).error?.issues[0].path).toEqual(['browser', 'viewport', 'width']);
    expect(TestDefinition.safeParse({ name: 't', type: 'ui', steps: [{ type: 'goto', url: '/' }], browser: { colour: 'dark' } }).success).toBe(false);
    expect(browserSettingsIssues({ device: 'Galaxy S99' }, 'browser')).toEqual([{ path: 'browser.device', message: expect.stringMatching(/^unknown device "Galaxy S99"; did you mean "Galaxy/) }]);
    expect(browserSettingsIssues({ device: '{{device}}' }, 'browser')).toEqual([]);
    expect(browserSettingsIssues({ device: 'iPad Pro 11' }, 'browser')).toEqual([]);
  });

  it('the device names kept for checking are the installed playwright-core\'s', () => {
    expect([...DEVICE_NAMES]).toEqual(Object.keys(devices));
  });
});
