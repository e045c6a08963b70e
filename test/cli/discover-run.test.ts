import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestFile } from '@svc/core/contracts/steps';
import { startRealApp, realAppsInstalled, type RealApp } from '../support/real-apps.ts';
import { startFixtureApp, DEMO_USER, type FixtureApp } from '../fixtures/app/server.ts';

/**
 * The intelligence issue's done-when: `svc run --url <app> --discover` against a real app
 * with no tests discovers it, generates tests, runs them in Chromium and writes reports.
 */
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'node_modules', '.bin', 'svc');
let dir: string;

function svc(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(bin, args, { cwd: root, timeout: 300_000, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-discover-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!realAppsInstalled())('svc run --discover on a real app (npm run apps:install)', () => {
  let app: RealApp;
  beforeAll(async () => {
    app = await startRealApp('todomvc');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('discovers TodoMVC, generates tests, runs them and writes every report', async () => {
    const out = join(dir, 'todomvc');
    const res = await svc(['run', '--url', app.url, '--discover', '--max-pages', '10', '--out', out, '--state-dir', join(dir, 'state-todo')]);
    expect(res.stdout).toMatch(/discovered \d+ pages? and \d+ flows?/);
    const files = await readdir(join(out, 'generated-tests'));
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const f of files) expect(TestFile.safeParse(JSON.parse(await readFile(join(out, 'generated-tests', f), 'utf8'))).success, f).toBe(true);

    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
    expect(report.run.total).toBe(files.length);
    // The hash routes are pages, and the new-todo input became a create-item (CRUD) test that ran for real.
    const names: string[] = report.tests.map((r: { name: string }) => r.name);
    expect(names.some((n) => n.includes('#/active'))).toBe(true);
    const crud = report.tests.find((r: { name: string }) => r.name.startsWith('Create an item'));
    expect(crud?.status, JSON.stringify(crud?.error)).toBe('passed');
    expect(report.run.passed + report.run.healed + report.run.failed + report.run.skipped).toBe(report.run.total);
    expect(res.code).toBe(report.run.failed === 0 && report.run.skipped === 0 ? 0 : 1);
    for (const f of ['report.html', 'report.md', 'junit.xml']) expect((await readdir(out)).includes(f), f).toBe(true);
  });
});

describe('svc run --discover, bad input', () => {
  let app: FixtureApp;
  beforeAll(async () => {
    app = await startFixtureApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('skips the sign-in flow with a reason when no password secret is given, and runs the rest', async () => {
    const out = join(dir, 'fixture');
    const res = await svc(['run', '--url', app.url, '--discover', '--max-pages', '6', '--out', out, '--state-dir', join(dir, 'state-fx'), '--reporter', 'json']);
    expect(res.stdout).toMatch(/not generated: Sign in .*needs SVC_SECRET_USERNAME and SVC_SECRET_PASSWORD/);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
    expect(report.run.total).toBeGreaterThan(0);
    expect(res.stdout).not.toContain('s3cret!');

    // The files name the app's pages by path, so they run against any --url.
    const files = await readdir(join(out, 'generated-tests'));
    const definitions = await Promise.all(files.map(async (f) => JSON.parse(await readFile(join(out, 'generated-tests', f), 'utf8'))));
    const gotos = definitions.flatMap((d: { steps: Array<{ type: string; url?: string }> }) => d.steps.filter((s) => s.type === 'goto').map((s) => s.url!));
    expect(gotos.length).toBeGreaterThan(0);
    expect(gotos.every((u) => u.startsWith('/')), gotos.join(' ')).toBe(true);
    // A page that sends a signed-out visitor to the sign-in page is tested as doing so, not as loading.
    const guarded = definitions.find((d: { name: string }) => d.name.includes('(/dashboard → /login)'));
    expect(guarded, definitions.map((d: { name: string }) => d.name).join(' | ')).toBeTruthy();
    expect(guarded.steps[1]).toMatchObject({ type: 'assert', assertion: { type: 'url', matches: expect.stringContaining('/login') } });
    expect(report.tests.find((r: { name: string }) => r.name === guarded.name)?.status).toBe('passed');
  });

  it("with a test account's secrets the sign-in test runs and checks that it signed in: it passes with the right password and fails with a wrong one", async () => {
    const run = async (name: string, password: string) => {
      const out = join(dir, name);
      const res = await svc(['run', '--url', `${app.url}/login`, '--discover', '--max-pages', '1', '--out', out, '--state-dir', join(dir, `state-${name}`), '--reporter', 'json'], { SVC_SECRET_USERNAME: DEMO_USER.email, SVC_SECRET_PASSWORD: password });
      const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
      return { res, signIn: report.tests.find((r: { name: string }) => r.name === 'Sign in (/login)') };
    };
    const good = await run('signin-good', DEMO_USER.password);
    expect(good.signIn?.status, JSON.stringify(good.signIn?.error)).toBe('passed');
    const bad = await run('signin-bad', 'wrong-password');
    expect(bad.signIn?.status).toBe('failed');
    expect(bad.signIn?.error?.message).toMatch(/step 5 \(expect label="Password" hidden\): .*visible/);
    expect(bad.res.code).toBe(1);
    expect(good.res.stdout + bad.res.stdout).not.toContain(DEMO_USER.password);
  });

  it('refuses a bad --max-pages and an unreachable app clearly', async () => {
    const bad = await svc(['run', '--url', app.url, '--discover', '--max-pages', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-pages must be a whole number from 1 to 500');
    const down = await svc(['run', '--url', 'http://127.0.0.1:9/', '--discover', '--out', join(dir, 'down'), '--state-dir', join(dir, 'state-down')]);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/discovery (failed|found nothing)/);
  });
});
