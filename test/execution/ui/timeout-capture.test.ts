import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDefinition } from '../../../packages/core/src/contracts/steps.ts';
import { runTest } from '../../../packages/core/src/execution/run-test.ts';
import { httpExchange } from '../../../packages/core/src/execution/api/http-exchange.ts';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';
import { FsArtifacts } from '../../../packages/functions/src/execution/fs-artifacts.ts';
import { MAX_SLOW_MS, startFixtureApp, type FixtureApp } from '../../fixtures/app/server.ts';

/**
 * A test whose page never finishes loading ends at its timeout, with its evidence: the
 * goto is stopped before the failure screenshot and HTML are taken (a page still
 * navigating held the screenshot for its whole timeout, the test ~30 s past its own, and
 * left no screenshot at all). Found by QA.
 */

let app: FixtureApp;
let driver: PlaywrightDriver;
let dir: string;

beforeAll(async () => {
  app = await startFixtureApp();
  driver = await createPlaywrightDriver();
  dir = await mkdtemp(join(tmpdir(), 'svc-timeout-capture-'));
});
afterAll(async () => {
  await driver?.close();
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a UI test that runs out of time while a page loads', () => {
  it('fails at its timeout naming the step, with a failure screenshot, HTML and trace, before the page would have loaded', async () => {
    const test = TestDefinition.parse({ name: 'slow page', type: 'ui', timeout_ms: 2000, steps: [{ type: 'goto', url: `/slow?ms=${MAX_SLOW_MS}` }], assertions: [{ type: 'visible', selector: 'h1' }] });
    const r = await runTest('slow', test, { ui: async () => driver, http: httpExchange, artifacts: new FsArtifacts(dir), baseUrl: app.url, environment: {}, secrets: {}, traceOnFailure: true });
    expect(r.status).toBe('failed');
    expect(r.failure_kind).toBe('timeout');
    expect(r.error_message).toMatch(/^step 1 \(goto \/slow\?ms=\d+\): /);
    // Not held until the page answers (MAX_SLOW_MS): the timeout ended it.
    expect(r.duration_ms).toBeLessThan(MAX_SLOW_MS);
    expect(r.screenshots.some((k) => k.endsWith('failure.png'))).toBe(true);
    expect(r.dom_snapshot).toMatch(/failure\.html$/);
    expect(r.trace).toMatch(/trace\.zip$/);
    for (const key of [r.screenshots[0]!, r.dom_snapshot!, r.trace!]) expect((await stat(join(dir, key))).size, key).toBeGreaterThan(0);
  });
});

describe('a UI test whose page never yields its main thread', () => {
  it('fails at its timeout (the capture gives up on a page that cannot answer), and the next test runs', async () => {
    const busy = TestDefinition.parse({ name: 'busy page', type: 'ui', timeout_ms: 3000, steps: [{ type: 'goto', url: '/busy' }, { type: 'click', selector: 'h1' }] });
    const deps = { ui: async () => driver, http: httpExchange, artifacts: new FsArtifacts(dir), baseUrl: app.url, environment: {}, secrets: {}, traceOnFailure: true };
    const r = await runTest('busy', busy, deps);
    expect(r.status).toBe('failed');
    expect(r.failure_kind).toBe('timeout');
    expect(r.error_message).toMatch(/^step \d \((goto \/busy|click h1)\): /);
    // Ended by its timeout plus the bounded capture, not held by the page (it was, forever);
    // the message says why there is no screenshot.
    expect(r.duration_ms).toBeLessThan(30_000);
    expect(r.error_message).toContain('(the page stopped answering — a script that never yields? — so no failure screenshot or HTML was taken)');
    expect(r.screenshots.some((k) => k.endsWith('failure.png'))).toBe(false);
    // The browser is still good for the next test.
    const next = await runTest('after', TestDefinition.parse({ name: 'after', type: 'ui', steps: [{ type: 'goto', url: '/' }], assertions: [{ type: 'visible', selector: 'h1' }] }), deps);
    expect(next.status, next.error_message).toBe('passed');
  }, 60_000);
});
