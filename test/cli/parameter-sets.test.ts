import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseJUnit } from 'junit2json';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

/**
 * Parameterised tests with `svc run` as a user runs it: the real binary, the fixture app
 * in real Chromium, real HTTP. Each parameter set is a case with its own result, report
 * line and visual baseline; the Playwright export writes one test per set and Playwright
 * Test agrees on which pass.
 */
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'node_modules', '.bin', 'svc');
const suite = join(root, 'test', 'fixtures', 'suites', 'parameterised');

let app: FixtureApp;
let out: string;

beforeAll(async () => {
  app = await startFixtureApp();
  out = await mkdtemp(join(tmpdir(), 'svc-params-'));
});
afterAll(async () => {
  await app?.close();
  if (out) await rm(out, { recursive: true, force: true });
});

function run(file: string, args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(file, args, { cwd: out, timeout: 240_000, env: { ...process.env, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, output: stdout + stderr }));
  });
}

interface JsonReport {
  tests: Array<{ id: string; name: string; status: string; error?: { message: string } }>;
}

describe('svc run with parameter sets', () => {
  it('runs each set as a case: its own result, name and JUnit test case; one failing set fails the run', async () => {
    const dir = join(out, 'report');
    const res = await run(bin, ['run', '--url', app.url, '--tests', suite, '--out', dir, '--state-dir', join(out, 'state'), '--reporter', 'json,junit,md']);
    expect(res.code, res.output).toBe(1);
    expect(res.output).toMatch(/10\/11 passed, 1 failed/);

    const json = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as JsonReport;
    const byName = Object.fromEntries(json.tests.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual([
      'catalog when adding fails on the network',
      'catalog when the API is down',
      'device page [Android]',
      'device page [desktop]',
      'device page [iPhone]',
      'search items [q=g, total=4]',
      'search items [q=nothing like it, total=0]',
      'search items [q=widget, total=1]',
      'sign in [demo user]',
      'sign in [expects a welcome it never gets]',
      'sign in [wrong password]',
    ]);
    expect(byName['sign in [demo user]']).toMatchObject({ status: 'passed', id: expect.stringMatching(/sign-in\.json\[1\]$/) });
    expect(byName['sign in [wrong password]']).toMatchObject({ status: 'passed', id: expect.stringMatching(/sign-in\.json\[2\]$/) });
    // The set's values reached the page: the third case typed its wrong password and stayed on /login.
    expect(byName['sign in [expects a welcome it never gets]'].status).toBe('failed');
    expect(byName['sign in [expects a welcome it never gets]'].error?.message).toMatch(/expected the text of "h1" to equal "Welcome, Demo User!", received "Sign in"/);

    const junit = (await parseJUnit(await readFile(join(dir, 'junit.xml'), 'utf8'))) as { tests?: number; failures?: number };
    expect(junit).toMatchObject({ tests: 11, failures: 1 });
    // The device matrix: each set's device really shaped the browser (the page printed its width).
    // The mocks: the page showed the error states the canned answers make.
    for (const n of ['device page [iPhone]', 'device page [Android]', 'device page [desktop]', 'catalog when the API is down', 'catalog when adding fails on the network']) expect(byName[n].status, byName[n].error?.message).toBe('passed');
    expect(await readFile(join(dir, 'report.md'), 'utf8')).toContain('sign in \\[expects a welcome it never gets\\]');
  }, 240_000);

  it('--grep keeps the tests and the cases whose names match; --tag the tests with a tag; nothing matching is a usage error', async () => {
    const one = await run(bin, ['run', '--url', app.url, '--tests', suite, '--grep', 'wrong password', '--out', join(out, 'grep'), '--state-dir', join(out, 'state-grep'), '--reporter', 'json']);
    expect(one.code, one.output).toBe(0);
    const grep = JSON.parse(await readFile(join(out, 'grep', 'report.json'), 'utf8')) as JsonReport;
    // The case keeps its position in the test: same id, fingerprints and baselines as in a full run.
    expect(grep.tests.map((t) => [t.name, t.status, t.id.replace(/^.*\//, '')])).toEqual([['sign in [wrong password]', 'passed', 'sign-in.json[2]']]);

    const tagged = await run(bin, ['run', '--url', app.url, '--tests', suite, '--tag', 'auth', '--grep', '^sign in', '--out', join(out, 'tag'), '--state-dir', join(out, 'state-tag'), '--reporter', 'json']);
    expect(tagged.code, tagged.output).toBe(1);
    const tag = JSON.parse(await readFile(join(out, 'tag', 'report.json'), 'utf8')) as JsonReport;
    expect(tag.tests.map((t) => t.name).sort()).toEqual(['sign in [demo user]', 'sign in [expects a welcome it never gets]', 'sign in [wrong password]']);

    const none = await run(bin, ['run', '--url', app.url, '--tests', suite, '--tag', 'nope']);
    expect(none.code).toBe(2);
    expect(none.output).toContain('no test matches --tag nope (of 5 loaded)');
    const bad = await run(bin, ['run', '--url', app.url, '--tests', suite, '--grep', '(']);
    expect(bad.code).toBe(2);
    expect(bad.output).toContain('--grep is not a valid regular expression');
  }, 240_000);

  it('a number parameter is typed and expected as text; a set may take its password from a secret; the export agrees', async () => {
    const tests = join(out, 'typed-values');
    await mkdir(tests, { recursive: true });
    await writeFile(join(tests, 'typed.json'), JSON.stringify({
      name: 'typed values',
      type: 'ui',
      parameters: { count: 42 },
      parameter_sets: [{ name: 'demo', values: { password: '{{secrets.DEMO_PASSWORD}}' } }],
      steps: [
        { type: 'goto', url: '/form' },
        { type: 'fill', selector: '#name', value: '{{count}}' },
        { type: 'goto', url: '/login' },
        { type: 'fill', selector: { label: 'Email' }, value: 'demo@example.com' },
        { type: 'fill', selector: '#password', value: '{{password}}' },
        { type: 'click', selector: { role: 'button', name: 'Sign in' } },
      ],
      assertions: [{ type: 'url', contains: '/dashboard', timeout_ms: 3000 }],
    }));
    await writeFile(join(tests, 'counted.json'), JSON.stringify({
      name: 'counted', type: 'ui', parameters: { count: 42 },
      steps: [{ type: 'goto', url: '/form' }, { type: 'fill', selector: '#name', value: '{{count}}' }],
      assertions: [{ type: 'value', selector: '#name', equals: '{{count}}' }],
    }));
    const res = await run(bin, ['run', '--url', app.url, '--tests', tests, '--out', join(out, 'typed-report'), '--state-dir', join(out, 'state-typed'), '--reporter', 'json'], { SVC_SECRET_DEMO_PASSWORD: 's3cret!' });
    expect(res.code, res.output).toBe(0);
    const report = JSON.parse(await readFile(join(out, 'typed-report', 'report.json'), 'utf8')) as JsonReport;
    expect(report.tests.map((t) => [t.name, t.status]).sort()).toEqual([['counted', 'passed'], ['typed values [demo]', 'passed']]);
    // The secret reached the page and not the report.
    expect(JSON.stringify(report)).not.toContain('s3cret!');

    const exported = await run(bin, ['export', '--format', 'playwright', '--tests', tests, '--out', join(out, 'typed-export'), '--url', app.url]);
    expect(exported.code, exported.output).toBe(0);
    const spec = await readFile(join(out, 'typed-export', 'tests', 'typed-values.spec.ts'), 'utf8');
    expect(spec).toContain('SVC_SECRET_DEMO_PASSWORD');
    expect(spec).not.toContain('{{secrets.DEMO_PASSWORD}}');
  }, 240_000);

  it('a device Playwright does not know makes the test invalid, naming the file and field; it is not run', async () => {
    const tests = join(out, 'bad-device');
    await mkdir(tests, { recursive: true });
    await writeFile(join(tests, 'phone.json'), JSON.stringify({ name: 'phone', type: 'ui', browser: { device: 'iPhone 99' }, steps: [{ type: 'goto', url: '/device' }] }));
    const res = await run(bin, ['run', '--url', app.url, '--tests', tests, '--out', join(out, 'bad-device-report')]);
    expect(res.code, res.output).toBe(1);
    expect(res.output).toContain('FAIL phone — not run, the test is invalid');
    expect(res.output).toMatch(/phone\.json: browser\.device: unknown device "iPhone 99"; did you mean "iPhone 1\d/);
  }, 60_000);

  it('each case keeps a visual baseline of its own', async () => {
    const tests = join(out, 'visual-tests');
    await mkdir(tests, { recursive: true });
    await writeFile(join(tests, 'shop.json'), JSON.stringify({
      name: 'shop banner',
      type: 'ui',
      parameter_sets: [{ name: 'a', values: { variant: 'a' } }, { name: 'b', values: { variant: 'b' } }],
      steps: [{ type: 'goto', url: '/flag?variant={{variant}}' }],
      assertions: [{ type: 'visual', baseline: 'shop' }],
    }));
    const baselines = join(out, 'baselines');
    const args = ['run', '--url', app.url, '--tests', tests, '--baselines', baselines, '--state-dir', join(out, 'state-visual'), '--reporter', 'json'];
    const first = await run(bin, [...args, '--out', join(out, 'visual-1')]);
    expect(first.code, first.output).toBe(0);
    const [folder] = await readdir(baselines);
    expect((await readdir(join(baselines, folder))).sort()).toEqual(['shop_set_1.png', 'shop_set_2.png']);
    const a = await readFile(join(baselines, folder, 'shop_set_1.png'));
    const b = await readFile(join(baselines, folder, 'shop_set_2.png'));
    expect(a.equals(b)).toBe(false);
    // Had the sets shared one baseline, variant b would now differ from a's.
    const second = await run(bin, [...args, '--out', join(out, 'visual-2'), '--update-baselines', 'none']);
    expect(second.code, second.output).toBe(0);
    const report = JSON.parse(await readFile(join(out, 'visual-2', 'report.json'), 'utf8')) as { tests: Array<{ visual?: Array<{ status: string }> }> };
    expect(report.tests.flatMap((t) => t.visual ?? []).map((v) => v.status)).toEqual(['matched', 'matched']);
  }, 240_000);

  it('exports one Playwright test per set, and Playwright Test passes and fails the same cases', async () => {
    const dir = join(out, 'export');
    const exported = await run(bin, ['export', '--format', 'playwright', '--tests', suite, '--out', dir, '--url', app.url]);
    expect(exported.code, exported.output).toBe(0);
    const spec = await readFile(join(dir, 'tests', 'sign-in.spec.ts'), 'utf8');
    expect(spec.match(/^test\(/gm)).toHaveLength(3);
    expect(spec).toContain('test("sign in [wrong password]"');
    expect(spec).toContain('.fill("nope")');

    await symlink(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const chromium = (await import('@sparticuz/chromium')).default;
    const res = await run(process.execPath, [join(root, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', '--config', join(dir, 'playwright.config.ts')], {
      SVC_CHROMIUM_PATH: await chromium.executablePath(),
      SVC_CHROMIUM_ARGS: JSON.stringify(chromium.args.filter((a) => !['--single-process', '--disable-web-security', '--allow-running-insecure-content'].includes(a))),
      SVC_BASE_URL: app.url,
    });
    expect(res.code, res.output).toBe(1);
    expect(res.output).toMatch(/1 failed/);
    expect(res.output).toMatch(/sign in \[expects a welcome it never gets\]/);
    expect(res.output).toMatch(/10 passed/);
    const devicesSpec = await readFile(join(dir, 'tests', 'device-page.spec.ts'), 'utf8');
    expect(devicesSpec).toContain('test.use({ ...device("iPhone 13"), locale: "de-CH" });');
  }, 240_000);
});
