import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { runSvc } from './support/run-svc.ts';

/** `svc run --retries` as a user runs it, against the fixture app's flaky endpoint (every even call fails). */

let app: FixtureApp;
let out: string;

beforeAll(async () => {
  app = await startFixtureApp();
  out = await mkdtemp(join(tmpdir(), 'svc-retries-'));
  await writeFile(join(out, 'flaky.json'), JSON.stringify({ name: 'flaky endpoint', type: 'api', steps: [{ type: 'request', method: 'GET', url: '/api/flaky/cli-retries' }], assertions: [{ type: 'status', equals: 200 }] }));
});
afterAll(async () => {
  await app?.close();
  if (out) await rm(out, { recursive: true, force: true });
});

const svc = (args: string[]) => runSvc(args, { cwd: out });

describe('svc run --retries', () => {
  it('a test that fails once passes on its retry: exit 0, and the reports call it flaky', async () => {
    expect((await fetch(`${app.url}/api/flaky/cli-retries`)).status).toBe(200); // the run's first call is the second: it fails
    const res = await svc(['run', '--url', app.url, '--tests', join(out, 'flaky.json'), '--retries', '1', '--out', join(out, 'report'), '--reporter', 'json,md,junit']);
    expect(res.code, res.output).toBe(0);
    const json = JSON.parse(await readFile(join(out, 'report', 'report.json'), 'utf8')) as { tests: Array<{ status: string; metadata: Record<string, unknown> }> };
    expect(json.tests).toEqual([expect.objectContaining({ status: 'passed', metadata: expect.objectContaining({ retries: 1, flaky: true }) })]);
    expect(await readFile(join(out, 'report', 'report.md'), 'utf8')).toContain('- flaky endpoint — passed on attempt 2');
    expect(await readFile(join(out, 'report', 'junit.xml'), 'utf8')).toContain('name="svc.flaky"');
  }, 120_000);

  it('without retries the same failure fails the run; a bad value is a usage error', async () => {
    // Calls so far: 1 (primed), 2 (failed), 3 (passed): the next is even, and fails.
    expect((await svc(['run', '--url', app.url, '--tests', join(out, 'flaky.json'), '--out', join(out, 'report-2'), '--reporter', 'json'])).code).toBe(1);
    const bad = await svc(['run', '--url', app.url, '--tests', join(out, 'flaky.json'), '--retries', '9']);
    expect(bad.code).toBe(2);
    expect(bad.output).toContain('--retries must be a whole number from 0 to 5');
  }, 120_000);
});
