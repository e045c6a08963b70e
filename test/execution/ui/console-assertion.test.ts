import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDefinition } from '../../../packages/core/src/contracts/steps.ts';
import { runTest } from '../../../packages/core/src/execution/run-test.ts';
import { httpExchange } from '../../../packages/core/src/execution/api/http-exchange.ts';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';
import type { PlaywrightUiSession } from '../../../packages/functions/src/execution/browser/session.ts';
import { FsArtifacts } from '../../../packages/functions/src/execution/fs-artifacts.ts';
import { startFixtureApp, type FixtureApp } from '../../fixtures/app/server.ts';
import { assertion, ctx, failure, run } from './helpers.ts';

/** no_console_error on real Chromium against the fixture app (/late-error throws after a fetch; /console logs an error). */

const PORT = 19141;
/** Nothing listens here: /console's fetch to it fails (Chromium logs "Failed to load resource"). */
const CLOSED_PORT = 19149;

let app: FixtureApp;
let driver: PlaywrightDriver;
let s: PlaywrightUiSession;

beforeAll(async () => {
  app = await startFixtureApp({ port: PORT });
  driver = await createPlaywrightDriver({ locateTimeoutMs: 500, assertTimeoutMs: 5_000 });
});
afterAll(async () => {
  await driver?.close();
  await app?.close();
});

describe('no_console_error on a session', () => {
  beforeEach(async () => {
    s = await driver.openSession({ baseUrl: app.url, trace: false });
  });
  afterEach(async () => {
    await s.close();
  });
  const check = (a: Record<string, unknown>) => s.check(assertion({ type: 'no_console_error', ...a }), ctx(10_000));

  it('passes on a page without errors', async () => {
    await run(s, [{ type: 'goto', url: '/' }]);
    await expect(check({})).resolves.toEqual({});
  });

  it('fails on /late-error with the uncaught error in the message: the default quiet period sees an error thrown after the fetch', async () => {
    await run(s, [{ type: 'goto', url: '/late-error' }]);
    const f = await failure(() => check({}));
    expect(f.kind).toBe('assertion');
    expect(f.message).toBe('no_console_error: expected no console error or uncaught exception, saw 1: "Uncaught Boom failed 500"');
    expect(f.details).toMatchObject({ actual: ['Uncaught Boom failed 500'] });
  });

  it('contains and matches restrict the check to matching errors', async () => {
    await run(s, [{ type: 'goto', url: '/late-error' }]);
    await expect(check({ contains: 'something else' })).resolves.toEqual({});
    await expect(check({ matches: '^Uncaught Nope' })).resolves.toEqual({});
    let f = await failure(() => check({ contains: 'Boom failed' }));
    expect(f.message).toBe('no_console_error: expected no console error or uncaught exception containing "Boom failed", saw 1: "Uncaught Boom failed 500"');
    f = await failure(() => check({ matches: 'Boom \\w+ \\d{3}$' }));
    expect(f.message).toBe('no_console_error: expected no console error or uncaught exception matching /Boom \\w+ \\d{3}$/, saw 1: "Uncaught Boom failed 500"');
  });

  it('console.error counts; Chromium\'s own "Failed to load resource" line for a failed request does not', async () => {
    await run(s, [{ type: 'goto', url: `/console?port=${CLOSED_PORT}` }, { type: 'wait-for', selector: 'text=fetch failed' }]);
    expect(s.diagnostics().consoleErrors.some((e) => e.startsWith('Failed to load resource: '))).toBe(true);
    const f = await failure(() => check({}));
    expect(f.message).toBe('no_console_error: expected no console error or uncaught exception, saw 1: "fixture: widget failed to render"');
    await expect(check({ contains: 'Failed to load resource' })).resolves.toEqual({});
  });

  it('quiet_ms: a late error is seen when the page is given long enough, missed when judged at once', async () => {
    await run(s, [{ type: 'goto', url: '/late-error?ms=1500' }, { type: 'wait-for', selector: 'text=Loaded' }]);
    const t0 = Date.now();
    await expect(check({ quiet_ms: 0 })).resolves.toEqual({});
    expect(Date.now() - t0).toBeLessThan(1_000);
    const f = await failure(() => check({ quiet_ms: 2_500 }));
    expect(f.message).toContain('"Uncaught Boom failed 500"');
  });

  it('the wait never goes past the assertion\'s timeout: judged then', async () => {
    await run(s, [{ type: 'goto', url: '/late-error?ms=3000' }]);
    const t0 = Date.now();
    await expect(check({ quiet_ms: 5_000, timeout_ms: 800 })).resolves.toEqual({});
    expect(Date.now() - t0).toBeLessThan(2_000);
  });
});

describe('no_console_error in a test run', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-console-assertion-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const runIt = (t: unknown, secrets: Record<string, string> = {}) =>
    runTest('console', TestDefinition.parse(t), { ui: async () => driver, http: httpExchange, artifacts: new FsArtifacts(dir), baseUrl: app.url, environment: {}, secrets, traceOnFailure: false });

  it('as a trailing assertion: fails the test on /late-error, passes on a clean page; the message names the error, secrets redacted', async () => {
    let r = await runIt({ name: 'late', type: 'ui', steps: [{ type: 'goto', url: '/late-error' }], assertions: [{ type: 'no_console_error', name: 'no errors' }] }, { WORD: 'Boom' });
    expect(r.status).toBe('failed');
    expect(r.error_message).toBe('assertion 1 (no errors: expect no console error): no_console_error: expected no console error or uncaught exception, saw 1: "Uncaught *** failed 500"');
    expect(r.assertion_results?.[0]).toMatchObject({ status: 'failed', description: 'expect no console error' });
    r = await runIt({ name: 'clean', type: 'ui', steps: [{ type: 'goto', url: '/' }], assertions: [{ type: 'no_console_error' }] });
    expect(r.status, r.error_message).toBe('passed');
  });

  it('inside an assert step: errors seen since the test started count, also from a page left since', async () => {
    const r = await runIt({
      name: 'step',
      type: 'ui',
      steps: [
        { type: 'goto', url: '/late-error' },
        { type: 'wait-for', ms: 800 },
        { type: 'goto', url: '/' },
        { type: 'assert', assertion: { type: 'no_console_error', contains: 'Boom' } },
      ],
    });
    expect(r.status).toBe('failed');
    expect(r.failed_step).toBe(3);
    expect(r.error_message).toBe('step 4 (expect no console error containing "Boom"): no_console_error: expected no console error or uncaught exception containing "Boom", saw 1: "Uncaught Boom failed 500"');
  });
});
