import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { distIsFresh } from '../../packages/functions/bin/cli-build.mjs';

/**
 * The built CLI (packages/functions/bin/build.mjs, run by `npm run build` and the root
 * `prepare`): it is a faithful bundle of the sources — it runs a real suite in Chromium —
 * and bin/svc.js only trusts it while every input is unchanged. Built into a temporary
 * folder, so the repo's own dist (and the sources) are never touched.
 */
const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const buildScript = join(root, 'packages', 'functions', 'bin', 'build.mjs');

let tmp: string;
let dist: string;
let app: FixtureApp;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'svc-cli-build-'));
  dist = join(tmp, 'dist');
  await run(process.execPath, [buildScript, '--out', dist], { cwd: root });
  app = await startFixtureApp();
}, 120_000);

afterAll(async () => {
  await app?.close();
  await rm(tmp, { recursive: true, force: true });
});

/** Runs the built CLI's main() in a fresh Node process, as bin/svc.js does. */
async function builtCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = `const { main } = await import(${JSON.stringify(pathToFileURL(join(dist, 'cli', 'main.js')).href)}); process.exitCode = await main(${JSON.stringify(args)});`;
  try {
    const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? -1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

describe('the built CLI', () => {
  it('records every bundled source and external dependency file in its manifest', async () => {
    const manifest = JSON.parse(await readFile(join(dist, 'manifest.json'), 'utf8'));
    expect(manifest.inputs['packages/functions/src/cli/main.ts']).toEqual([expect.any(Number), expect.any(Number)]);
    expect(manifest.inputs['packages/functions/src/execution/browser/session.ts']).toBeTruthy();
    expect(Object.keys(manifest.inputs).some((p) => p.startsWith('node_modules/playwright-core/'))).toBe(true);
    expect(distIsFresh(dist)).toBe(true);
  });

  it('is stale as soon as one input differs from the build (bin/svc.js then runs the sources)', async () => {
    const copy = join(tmp, 'stale');
    await mkdir(join(copy, 'cli'), { recursive: true });
    const manifest = JSON.parse(await readFile(join(dist, 'manifest.json'), 'utf8'));
    await writeFile(join(copy, 'cli', 'main.js'), '');
    await writeFile(join(copy, 'manifest.json'), JSON.stringify(manifest));
    expect(distIsFresh(copy)).toBe(true);
    const [size, mtime] = manifest.inputs['packages/functions/src/cli/main.ts'];
    await writeFile(join(copy, 'manifest.json'), JSON.stringify({ ...manifest, inputs: { ...manifest.inputs, 'packages/functions/src/cli/main.ts': [size, mtime - 1] } }));
    expect(distIsFresh(copy)).toBe(false);
    await writeFile(join(copy, 'manifest.json'), JSON.stringify({ ...manifest, inputs: { ...manifest.inputs, 'packages/functions/src/cli/gone.ts': [1, 1] } }));
    expect(distIsFresh(copy)).toBe(false);
    expect(distIsFresh(join(tmp, 'no-build-here'))).toBe(false);
  });

  it('runs a suite in Chromium: a pass, a failure with its trace zip, exit code 1', async () => {
    const tests = join(tmp, 'tests');
    await mkdir(tests, { recursive: true });
    await writeFile(join(tests, 'suite.json'), JSON.stringify({
      tests: [
        { id: 'sign-in', name: 'sign in', type: 'ui', steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: { label: 'Email' }, value: 'demo@example.com' }, { type: 'fill', selector: '#password', value: 's3cret!' }, { type: 'click', selector: { role: 'button', name: 'Sign in' } }, { type: 'wait-for', url: '**/dashboard' }], assertions: [{ type: 'text', selector: '#welcome', equals: 'Welcome, Demo User!' }] },
        { id: 'wrong-welcome', name: 'wrong welcome', type: 'ui', steps: [{ type: 'goto', url: '/login' }], assertions: [{ type: 'text', selector: 'h1', equals: 'Not the heading', timeout_ms: 500 }] },
      ],
    }));
    const out = join(tmp, 'out');
    const res = await builtCli(['run', '--url', app.url, '--tests', tests, '--out', out, '--reporter', 'json', '--state-dir', join(tmp, 'state')]);
    expect(res.code, res.stdout + res.stderr).toBe(1);
    const json = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
    expect(json.run).toMatchObject({ total: 2, passed: 1, failed: 1 });
    const failed = json.tests.find((t: { name: string }) => t.name === 'wrong welcome');
    expect(failed.error).toMatchObject({ kind: 'assertion' });
    expect(failed.trace).toMatch(/trace\.zip$/);
    const zip = await readFile(join(out, 'artifacts', failed.trace));
    expect(zip.subarray(0, 2).toString()).toBe('PK');
    // A passing test leaves no trace behind.
    expect(json.tests.find((t: { name: string }) => t.name === 'sign in').trace ?? null).toBeNull();
  }, 180_000);

  it('bin/svc.js runs from the sources when asked (SVC_CLI_FROM_SOURCE=1), and from whatever is current otherwise', async () => {
    const bin = join(root, 'packages', 'functions', 'bin', 'svc.js');
    for (const env of [{ SVC_CLI_FROM_SOURCE: '1' }, {}]) {
      const { stdout } = await run(process.execPath, [bin, '--version'], { cwd: root, env: { ...process.env, ...env } });
      expect(stdout).toBe('svc 0.1.0\n');
    }
  });

  it('refuses to build into a folder that holds something else', async () => {
    const busy = join(tmp, 'busy');
    await mkdir(busy, { recursive: true });
    await writeFile(join(busy, 'keep.txt'), 'mine');
    await expect(run(process.execPath, [buildScript, '--out', busy], { cwd: root })).rejects.toMatchObject({ stderr: expect.stringContaining('holds no CLI build') });
    expect(await readFile(join(busy, 'keep.txt'), 'utf8')).toBe('mine');
  });
});
