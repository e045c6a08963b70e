import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDefinition } from '../../../packages/core/src/contracts/steps.ts';
import { runTest } from '../../../packages/core/src/execution/run-test.ts';
import { httpExchange } from '../../../packages/core/src/execution/api/http-exchange.ts';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';
import { FsArtifacts } from '../../../packages/functions/src/execution/fs-artifacts.ts';
import { DEMO_USER } from '../../fixtures/app/login.ts';
import { startFixtureApp, type FixtureApp } from '../../fixtures/app/server.ts';
import { unzip } from './helpers.ts';

/**
 * A failed test's trace is masked as its report is: a secret typed into the page (a
 * password field's value sits in every DOM snapshot) or sent in a form post (the network
 * log keeps request bodies) is *** in the stored trace.zip, which stays a valid zip the
 * trace viewer opens. Found by QA: the trace carried the password in plain text.
 */

let app: FixtureApp;
let driver: PlaywrightDriver;
let dir: string;

beforeAll(async () => {
  app = await startFixtureApp();
  driver = await createPlaywrightDriver();
  dir = await mkdtemp(join(tmpdir(), 'svc-trace-secrets-'));
});
afterAll(async () => {
  await driver?.close();
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("a failed test's trace", () => {
  it('holds no secret: the typed password and the posted form are masked; the zip is whole', async () => {
    const test = TestDefinition.parse({
      name: 'sign in, then a button that is not there',
      type: 'ui',
      steps: [
        { type: 'goto', url: '/login' },
        { type: 'fill', selector: { label: 'Email' }, value: DEMO_USER.email },
        { type: 'fill', selector: { label: 'Password' }, value: '{{secrets.DEMO_PASSWORD}}' },
        { type: 'click', selector: { role: 'button', name: 'Sign in' } },
        { type: 'click', selector: '#not-there', timeout_ms: 1000 },
      ],
    });
    const r = await runTest('trace-secrets', test, { ui: async () => driver, http: httpExchange, artifacts: new FsArtifacts(dir), baseUrl: app.url, environment: {}, secrets: { DEMO_PASSWORD: DEMO_USER.password }, traceOnFailure: true });
    expect(r.status).toBe('failed');
    expect(r.failed_step).toBe(4);
    const path = join(dir, r.trace!);
    const zip = await readFile(path);
    // Every entry, text or not: the secret's bytes are nowhere.
    expect(zip.includes(DEMO_USER.password)).toBe(false);
    const files = unzip(zip);
    for (const [name, bytes] of files) expect(bytes.includes(DEMO_USER.password), name).toBe(false);
    const trace = files.get('trace.trace')!.toString('utf8');
    expect(trace).toContain('"__playwright_value_":"***"');
    // Still the trace it was: each line is JSON, the actions are there, and the zip's CRCs check out.
    const events = trace.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; method?: string });
    expect(events.filter((e) => e.type === 'before').map((e) => e.method)).toEqual(expect.arrayContaining(['goto', 'fill', 'click']));
    expect(execFileSync('unzip', ['-tq', path], { encoding: 'utf8' })).toMatch(/^No errors detected/);
  });
});
