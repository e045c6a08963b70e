import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureApp } from '../fixtures/app/server.ts';

/**
 * Flows (shared steps) with `svc run` as a user runs it: the real binary, *.flow.json files
 * beside the tests, the fixture app in real Chromium, real HTTP. One "sign in" flow is used
 * by tests with different parameters, directly and through another flow; a flow's saved
 * value reaches the test; results name each step's flow; on v2 of the app the flow's
 * broken selectors heal in every test that uses it; bad uses are refused before running.
 */
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'node_modules', '.bin', 'svc');
const suite = join(root, 'test', 'fixtures', 'suites', 'flows');
const secrets = { SVC_SECRET_DEMO_PASSWORD: 's3cret!', SVC_SECRET_API_TOKEN: 'fixture-token' };
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-flows-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function svc(args: string[]) {
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(bin, args, { cwd: dir, timeout: 240_000, env: { ...process.env, ...secrets } }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, output: stdout + stderr }));
  });
}

interface Step { index: number; description: string; status: string; origin?: { flow: string; step: number; via?: string[] }; healed?: { original: string; healed: string } | null }
interface Report { tests: Array<{ name: string; status: string; steps: Step[]; error: { message: string } | null; healed_selectors: Array<{ step: number; original: string }> }> }

async function runOn(version: 'v1' | 'v2', out: string, tests: string, extra: string[] = []) {
  const app = await startFixtureApp({ version });
  try {
    const res = await svc(['run', '--url', app.url, '--tests', tests, '--out', join(dir, out), '--state-dir', join(dir, 'state'), '--reporter', 'json,html', ...extra]);
    const report = JSON.parse(await readFile(join(dir, out, 'report.json'), 'utf8')) as Report;
    return { res, report, byName: Object.fromEntries(report.tests.map((t) => [t.name, t])) };
  } finally {
    await app.close();
  }
}

describe('svc run with flows', () => {
  it('runs a flow where tests use it, with each test\'s parameters; results name the flow step', async () => {
    const { res, byName } = await runOn('v1', 'v1', suite);
    expect(res.code, res.output).toBe(0);
    expect(Object.keys(byName).sort()).toEqual(['created item reads back', 'demo user signs in', 'signed-in user signs out', 'wrong password is refused']);
    for (const t of Object.values(byName)) expect(t.status, t.error?.message).toBe('passed');

    // Two tests, one flow, different values: the secret reached one, {{who}} (a test parameter) the other.
    const demo = byName['demo user signs in'];
    expect(demo.steps.map((s) => [s.description, s.origin])).toEqual([
      ['goto /login', { flow: 'sign in', step: 1 }],
      ['fill #email with "demo@example.com"', { flow: 'sign in', step: 2 }],
      ['fill #password with "***"', { flow: 'sign in', step: 3 }],
      ['click #login-submit', { flow: 'sign in', step: 4 }],
    ]);
    const wrong = byName['wrong password is refused'];
    expect(wrong.steps.map((s) => s.description)).toEqual(['goto /login', 'fill #email with "someone@example.com"', 'fill #password with "nope"', 'click #login-submit']);

    // A flow using a flow: the inner steps say which flow used them; the test's own step has no origin.
    const out = byName['signed-in user signs out'];
    expect(out.steps.map((s) => s.origin ?? null)).toEqual([
      { flow: 'sign in', step: 1, via: ['open dashboard'] },
      { flow: 'sign in', step: 2, via: ['open dashboard'] },
      { flow: 'sign in', step: 3, via: ['open dashboard'] },
      { flow: 'sign in', step: 4, via: ['open dashboard'] },
      { flow: 'open dashboard', step: 2 },
      null,
    ]);

    // The flow saved {{item_id}}; the test's own request read it, and the number parameter stayed a number.
    const item = byName['created item reads back'];
    expect(item.steps[2].description).toMatch(/^GET \/api\/items\/\d+$/);
    expect(item.steps.map((s) => s.status)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed']);
    expect(await readFile(join(dir, 'v1', 'report.html'), 'utf8')).toContain('open dashboard › sign in › step 2');
  }, 240_000);

  it('on v2 the flow\'s broken selectors heal in the test that uses it, each heal on the flow step', async () => {
    const { res, byName } = await runOn('v2', 'v2', suite, ['--grep', 'demo user']);
    expect(res.code, res.output).toBe(0);
    const demo = byName['demo user signs in'];
    expect(demo.status, demo.error?.message).toBe('healed');
    const healed = demo.steps.filter((s) => s.healed).map((s) => [s.origin, s.healed!.original]);
    expect(healed).toEqual([
      [{ flow: 'sign in', step: 2 }, '#email'],
      [{ flow: 'sign in', step: 3 }, '#password'],
      [{ flow: 'sign in', step: 4 }, '#login-submit'],
    ]);
    // What healing learned (its memory of the failure) names the flow step, where the fix belongs.
    const learned = JSON.stringify(JSON.parse(await readFile(join(dir, 'state', 'healing.json'), 'utf8')));
    expect(learned).toContain('"flow":{"flow":"sign in","step":2}');
  }, 240_000);

  it('a failing flow step is named by the flow and its step', async () => {
    const folder = join(dir, 'failing');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'broken.flow.json'), JSON.stringify({ name: 'open admin', steps: [{ type: 'goto', url: '/' }, { type: 'click', selector: '#admin-link', timeout_ms: 1000 }] }));
    await writeFile(join(folder, 'admin.json'), JSON.stringify({ name: 'admin', type: 'ui', steps: [{ type: 'goto', url: '/login' }, { type: 'use', flow: 'open admin' }] }));
    const { res, report } = await runOn('v1', 'failing-out', folder, ['--no-heal']);
    expect(res.code).toBe(1);
    expect(report.tests[0].error?.message).toMatch(/^step 3 \(open admin › step 2: click #admin-link\): /);
    expect(report.tests[0].steps.map((s) => s.status)).toEqual(['passed', 'passed', 'failed']);
  }, 240_000);

  it('svc export writes each flow inline where a test uses it', async () => {
    const res = await svc(['export', '--format', 'playwright', '--tests', suite, '--out', join(dir, 'export')]);
    expect(res.code, res.output).toBe(0);
    const spec = await readFile(join(dir, 'export', 'tests', 'signed-in-user-signs-out.spec.ts'), 'utf8');
    expect(spec).toContain('// 2. fill #email (flow open dashboard › sign in › step 2)');
    expect(spec).toContain('await page.locator("#password").fill("s3cret!");');
    expect(spec).not.toContain('*.flow.json');
  }, 60_000);

  it('reports unknown flows, missing and unknown parameters and cycles as invalid tests, naming each field and step', async () => {
    const folder = join(dir, 'invalid');
    const flows = join(dir, 'more-flows');
    await mkdir(folder, { recursive: true });
    await mkdir(flows, { recursive: true });
    await writeFile(join(flows, 'a.flow.json'), JSON.stringify({ name: 'a', steps: [{ type: 'use', flow: 'b' }] }));
    await writeFile(join(flows, 'b.flow.json'), JSON.stringify({ name: 'b', steps: [{ type: 'use', flow: 'A' }] }));
    await writeFile(join(folder, 'login.flow.json'), JSON.stringify({ name: 'login', parameters: [{ name: 'password' }], steps: [{ type: 'goto', url: '/login' }] }));
    await writeFile(join(folder, 'bad.json'), JSON.stringify({ name: 'bad', type: 'ui', steps: [
      { type: 'goto', url: '/' },
      { type: 'use', flow: 'nowhere' },
      { type: 'use', flow: 'login', with: { pasword: 'x' } },
    ] }));
    const res = await svc(['run', '--url', 'http://127.0.0.1:9', '--tests', folder, '--flows', flows, '--out', join(dir, 'invalid-out')]);
    // Nothing valid to run: every invalid test and flow file is reported as a failed test (exit 1), with the reports.
    expect(res.code, res.output).toBe(1);
    expect(res.output).toContain('bad.json: steps.1.flow (step 2): unknown flow "nowhere" (flows: login)');
    expect(res.output).toContain('b.flow.json: steps.0.flow: flows use each other in a cycle: b → a → b');
    expect(res.output).toContain('bad.json: steps.2.with.pasword (step 3): flow "login" has no parameter pasword (parameters: password)');
    expect(res.output).toContain('bad.json: steps.2.with.password (step 3): required: flow "login" needs password (it has no default)');
    expect(res.output).toContain('a.flow.json: steps.0.flow: flows use each other in a cycle: a → b → a');
    expect(res.output).toMatch(/0\/3 passed, 3 failed/);
    expect(await readFile(join(dir, 'invalid-out', 'junit.xml'), 'utf8')).toContain('flow file');
  }, 60_000);

  it('a flow file given as --tests is a usage error saying how flows are given; a test file alone that uses a flow says where flows come from', async () => {
    const folder = join(dir, 'alone');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'sign-in.flow.json'), JSON.stringify({ name: 'sign in', steps: [{ type: 'goto', url: '/login' }] }));
    await writeFile(join(folder, 'uses.json'), JSON.stringify({ name: 'uses', type: 'ui', steps: [{ type: 'use', flow: 'sign in' }] }));
    const asTests = await svc(['run', '--url', 'http://127.0.0.1:9', '--tests', join(folder, 'sign-in.flow.json')]);
    expect(asTests.code).toBe(2);
    expect(asTests.output).toContain('sign-in.flow.json: a flow file, not a test: give the tests that use it with --tests and it with --flows');
    const alone = await svc(['run', '--url', 'http://127.0.0.1:9', '--tests', join(folder, 'uses.json'), '--out', join(dir, 'alone-out')]);
    expect(alone.code).toBe(1);
    expect(alone.output).toContain('unknown flow "sign in" (no flows are known: on a server, the project has none; for svc run, give --flows or put the *.flow.json files in the --tests folder)');
    const maxPages = await svc(['run', '--url', 'http://127.0.0.1:9', '--tests', folder, '--max-pages', '3']);
    expect([maxPages.code, maxPages.output]).toEqual([2, expect.stringContaining('--max-pages goes with --discover')]);
  }, 60_000);
});
