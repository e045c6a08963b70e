import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, readFile, readdir, writeFile, copyFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import mysql from 'mysql2/promise';
import { parse as parseJUnit } from 'junit2json';
import { MAX_SLOW_MS, startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { startTarget } from '../run-graph/support/target.ts';

/**
 * `svc run` as a user runs it: the real binary, the fixture app in real Chromium, real
 * HTTP, PostgreSQL and MariaDB on this machine; all four reports; the exit code; and no
 * Chromium left behind.
 */
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'node_modules', '.bin', 'svc');
const suites = join(root, 'test', 'fixtures', 'suites');
const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';
const MYSQL_URL = 'mysql://root@127.0.0.1:3306/test';
const table = `svc_e2e_${process.pid}_${Date.now() % 100000}`;

let app: FixtureApp;
let out: string;

beforeAll(async () => {
  app = await startFixtureApp();
  out = await mkdtemp(join(tmpdir(), 'svc-run-'));
  const pgClient = new pg.Client(PG_URL);
  await pgClient.connect();
  await pgClient.query(`CREATE TABLE ${table} (id serial primary key, customer text not null, total numeric(10,2) not null)`);
  await pgClient.end();
  const my = await mysql.createConnection(MYSQL_URL);
  await my.query(`CREATE TABLE ${table} (id int auto_increment primary key, customer varchar(100) not null, total decimal(10,2) not null)`);
  await my.end();
});

afterAll(async () => {
  await app?.close();
  if (out) await rm(out, { recursive: true, force: true });
  const pgClient = new pg.Client(PG_URL);
  await pgClient.connect();
  await pgClient.query(`DROP TABLE IF EXISTS ${table}`);
  await pgClient.end();
  const my = await mysql.createConnection(MYSQL_URL);
  await my.query(`DROP TABLE IF EXISTS ${table}`);
  await my.end();
});

function svc(args: string[], marker: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(bin, args, {
      cwd: root,
      timeout: 240_000,
      env: {
        ...process.env,
        SVC_RUN_MARKER: marker,
        SVC_SECRET_DEMO_PASSWORD: 's3cret!',
        SVC_SECRET_API_TOKEN: 'fixture-token',
        DATABASE_URL: PG_URL,
        MYSQL_URL,
        REFUSED_DATABASE_URL: 'postgres://postgres:hunter2@127.0.0.1:9/test',
        SVC_E2E_TABLE: table,
      },
    }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
  });
}

/** Processes (Chromium included) that inherited this run's marker and are still alive. */
function survivors(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(`SVC_RUN_MARKER=${marker}`)) {
        const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
        if (!/\) Z /.test(stat)) pids.push(Number(entry));
      }
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

describe('svc run', () => {
  it('runs UI, API and DB tests, writes all four reports, exits 0, and leaves no browser behind', async () => {
    const marker = randomUUID();
    const dir = join(out, 'pass');
    const state = join(out, 'state');
    const res = await svc(['run', '--url', app.url, '--tests', join(suites, 'pass'), '--workers', '2', '--out', dir, '--state-dir', state], marker);
    expect(res.stderr).toBe('');
    expect(res.code, res.stdout).toBe(0);
    expect(res.stdout).toMatch(/PASS \[\d+\/6\]/);
    expect(res.stdout).toContain('6/6 passed');

    const files = await readdir(dir);
    for (const f of ['report.html', 'report.json', 'report.md', 'junit.xml']) expect(files).toContain(f);
    const json = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
    expect(json.run).toMatchObject({ total: 6, passed: 6, failed: 0 });
    const junit = (await parseJUnit(await readFile(join(dir, 'junit.xml'), 'utf8'))) as { tests?: number; failures?: number };
    expect(junit.tests).toBe(6);
    expect(junit.failures).toBe(0);
    const html = await readFile(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('data:image/png;base64,'); // the on-demand screenshot, embedded
    expect(html).not.toContain('s3cret!'); // secrets never reach a report
    expect(await readFile(join(dir, 'report.md'), 'utf8')).toContain('| 6 |');

    // The latest fingerprint of each located element is kept for self-healing in later runs.
    const { FileFingerprintStore } = await import('../../packages/functions/src/execution/file-fingerprints.ts');
    const loginId = json.tests.find((t: { name: string }) => t.name === 'sign in and see the dashboard').id;
    const prints = await new FileFingerprintStore(state).get(loginId);
    expect(prints[1]).toMatchObject({ tag: 'input', id: 'email', type: 'email' });
    expect(prints[4]).toMatchObject({ tag: 'button', role: 'button', id: 'login-submit' });
    expect(prints[4].box?.width).toBeGreaterThan(0);

    await expect.poll(() => survivors(marker), { timeout: 10_000 }).toEqual([]);
  }, 300_000);

  it('reports each failure precisely, keeps running the rest, and exits 1', async () => {
    const marker = randomUUID();
    const dir = join(out, 'fail');
    const res = await svc(['run', '--url', app.url, '--tests', join(suites, 'fail'), '--out', dir, '--reporter', 'json,junit', '--state-dir', join(out, 'state-fail')], marker);
    expect(res.code, res.stdout + res.stderr).toBe(1);
    const json = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
    const byId = Object.fromEntries(json.tests.map((t: { id: string }) => [t.id, t]));
    const errorOf = (id: string) => byId[id].error;
    expect(errorOf('missing-element')).toMatchObject({ kind: 'locator' });
    expect(errorOf('missing-element').message).toContain('#no-such-button');
    expect(errorOf('wrong-text')).toMatchObject({ kind: 'assertion' });
    expect(errorOf('wrong-text').message).toContain('Some other shop');
    expect(errorOf('unreachable')).toMatchObject({ kind: 'navigation' });
    expect(errorOf('unreachable').message).toContain('127.0.0.1:9');
    expect(errorOf('html-api')).toMatchObject({ kind: 'http' });
    expect(errorOf('html-api').message).toMatch(/JSON/);
    expect(errorOf('bad-sql')).toMatchObject({ kind: 'database' });
    expect(errorOf('bad-sql').message).toContain('42601');
    expect(errorOf('db-refused')).toMatchObject({ kind: 'database' });
    expect(errorOf('db-refused').message).not.toContain('hunter2');
    expect(byId['still-runs'].status).toBe('passed');
    expect(json.run).toMatchObject({ total: 7, passed: 1, failed: 6 });
    const junit = (await parseJUnit(await readFile(join(dir, 'junit.xml'), 'utf8'))) as { failures?: number };
    expect(junit.failures).toBe(6);
    // A failed UI test keeps a Playwright trace next to the reports.
    expect(byId['missing-element'].trace).toMatch(/trace\.zip$/);
    const trace = await readFile(join(dir, 'artifacts', byId['missing-element'].trace));
    expect(trace.subarray(0, 2).toString()).toBe('PK');
    await expect.poll(() => survivors(marker), { timeout: 10_000 }).toEqual([]);
  }, 300_000);

  it('svc export --format playwright writes specs that pass with Playwright Test against the same app', async () => {
    const fresh = await startFixtureApp(); // its own item store, as a fresh app under test
    const dir = join(out, 'export');
    try {
      const tests = join(out, 'exportable');
      const fs = await import('node:fs/promises');
      await fs.mkdir(tests, { recursive: true });
      for (const f of ['login.json', 'contact-form.json', 'products-table.json', 'items-api.json']) await fs.copyFile(join(suites, 'pass', f), join(tests, f));
      const exported = await svc(['export', '--format', 'playwright', '--tests', tests, '--out', dir, '--url', fresh.url], randomUUID());
      expect(exported.code, exported.stderr).toBe(0);
      const specs = await readdir(join(dir, 'tests'));
      expect(specs.filter((f) => f.endsWith('.spec.ts'))).toHaveLength(4);

      // A user's project has @playwright/test installed; here it comes from the repository.
      await fs.symlink(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
      const chromium = (await import('@sparticuz/chromium')).default;
      const executablePath = await chromium.executablePath();
      const withBrowser = await new Promise<{ code: number; output: string }>((resolve) => {
        execFile(process.execPath, [join(root, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', '--config', join(dir, 'playwright.config.ts')], {
          cwd: dir,
          timeout: 240_000,
          env: {
            ...process.env,
            SVC_CHROMIUM_PATH: executablePath,
            // The same flags svc's own driver uses: several contexts are unstable with --single-process.
            SVC_CHROMIUM_ARGS: JSON.stringify(chromium.args.filter((a) => !['--single-process', '--disable-web-security', '--allow-running-insecure-content'].includes(a))),
            SVC_BASE_URL: fresh.url,
            SVC_SECRET_DEMO_PASSWORD: 's3cret!',
            SVC_SECRET_API_TOKEN: 'fixture-token',
          },
        }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, output: stdout + stderr }));
      });
      expect(withBrowser.code, withBrowser.output).toBe(0);
      expect(withBrowser.output).toMatch(/4 passed/);
    } finally {
      await fresh.close();
    }
  }, 300_000);

  it('svc export into a folder it exported to before: specs of tests no longer exported go, a person\'s own spec stays; a package.json names @playwright/test; a file as --out is a usage error', async () => {
    const fs = await import('node:fs/promises');
    const tests = join(out, 'reexport-tests');
    const dir = join(out, 'reexport');
    await fs.mkdir(tests, { recursive: true });
    for (const f of ['login.json', 'contact-form.json']) await fs.copyFile(join(suites, 'pass', f), join(tests, f));
    expect((await svc(['export', '--format', 'playwright', '--tests', tests, '--out', dir], randomUUID())).code).toBe(0);
    const manifest = JSON.parse(await fs.readFile(join(dir, 'package.json'), 'utf8'));
    expect(manifest.devDependencies['@playwright/test']).toMatch(/^\^1\.\d+/);
    const first = (await readdir(join(dir, 'tests'))).sort();
    expect(first).toHaveLength(2);
    await fs.writeFile(join(dir, 'tests', 'mine.spec.ts'), "import { test } from '@playwright/test';\ntest('mine', async () => {});\n");
    await fs.rm(join(tests, 'contact-form.json'));
    const again = await svc(['export', '--format', 'playwright', '--tests', tests, '--out', dir], randomUUID());
    expect(again.code, again.stderr).toBe(0);
    const kept = (await readdir(join(dir, 'tests'))).filter((f) => f !== 'mine.spec.ts');
    expect(kept).toHaveLength(1);
    const gone = first.filter((f) => !kept.includes(f));
    expect(again.stdout).toContain(`removed 1 spec file(s) an earlier export wrote for tests no longer exported (${gone[0]})`);
    expect(await readdir(join(dir, 'tests'))).toContain('mine.spec.ts');

    await fs.writeFile(join(out, 'a-file'), 'x');
    const onFile = await svc(['export', '--format', 'playwright', '--tests', tests, '--out', join(out, 'a-file')], randomUUID());
    expect(onFile.code).toBe(2);
    expect(onFile.stderr).toContain('cannot write there: a file is in the way (not a folder)');
    expect(onFile.stderr).not.toMatch(/\bat async\b/);
  });

  it('runs a suite kept outside the working directory with --workers 2 (through the run graph)', async () => {
    // A regression: a 1-test suite in /tmp run with 2 workers came back all skipped.
    const elsewhere = await mkdtemp(join(tmpdir(), 'svc-suite-'));
    try {
      await copyFile(join(suites, 'pass', 'login.json'), join(elsewhere, 'login.json'));
      const dir = join(out, 'outside');
      const res = await svc(['run', '--url', app.url, '--tests', join(elsewhere, 'login.json'), '--workers', '2', '--out', dir, '--reporter', 'json', '--state-dir', join(out, 'state-outside')], randomUUID());
      expect(res.code, res.stdout + res.stderr).toBe(0);
      expect(res.stdout).toMatch(/PASS \[1\/1\] sign in and see the dashboard \(\d+ ms\)/);
      const json = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
      expect(json.run).toMatchObject({ total: 1, passed: 1, skipped: 0 });
      expect(json.tests[0].steps.every((s: { status: string }) => s.status === 'passed')).toBe(true);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('a killed svc run is continued with --resume from its checkpoints in --state-dir; finished tests are not run again', async () => {
    const target = await startTarget();
    try {
      const suite = join(out, 'resumable.json');
      const api = (id: string, path: string) => ({ id, name: id, type: 'api', steps: [{ type: 'request', url: path }], assertions: [{ type: 'status', equals: 200 }] });
      await writeFile(suite, JSON.stringify({ name: 'resumable', tests: [api('done-first', '/ok?id=k1'), api('held', '/gate?id=k2'), api('after', '/ok?id=k3')] }));
      const state = join(out, 'state-resume');
      const dir = join(out, 'resume');
      target.closeGate();
      const child = spawn(bin, ['run', '--url', target.url, '--tests', suite, '--out', dir, '--state-dir', state], { cwd: root });
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      await expect.poll(() => target.hits('/gate?id=k2'), { timeout: 60_000 }).toBe(1);
      // "run <id> (if it is interrupted: svc run --resume <id>)": the run's id, the one its reports carry.
      const runId = /^run (\S+) /m.exec(stdout)?.[1];
      expect(runId, stdout).toBeDefined();
      expect(stdout).toContain(`run ${runId} (if it is interrupted: svc run --resume ${runId})`);
      child.kill('SIGKILL');
      await exited;
      target.openGate();

      // Another --out would leave the first part's artifacts behind: refused, nothing run.
      const elsewhere = await svc(['run', '--resume', runId!, '--out', join(out, 'not-there'), '--state-dir', state], randomUUID());
      expect(elsewhere.code).toBe(2);
      expect(elsewhere.stderr).toContain(`--resume writes its reports where the run began (${dir}`);
      // No --out: the reports go where the run began.
      const res = await svc(['run', '--resume', runId!, '--state-dir', state, '--reporter', 'json'], randomUUID());
      expect(res.code, res.stdout + res.stderr).toBe(0);
      const json = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
      expect(json.tests.map((t: { id: string; status: string }) => [t.id, t.status])).toEqual([['done-first', 'passed'], ['held', 'passed'], ['after', 'passed']]);
      expect(json.run.id).toBe(runId);
      expect(res.stdout).toContain(`run ${runId} (if it is interrupted`);
      expect(target.hits('/ok?id=k1')).toBe(1); // finished before the kill
      expect(target.hits('/gate?id=k2')).toBe(2); // in flight at the kill: run again
      expect(target.hits('/ok?id=k3')).toBe(1);
      expect(await readdir(join(state, 'runs'))).toEqual([]); // finished: nothing left to resume
    } finally {
      await target.stop();
    }
  }, 120_000);

  it('--resume heals and traces as the run began (a resumed run took the defaults: a trace where the run said --trace off, healing at 0.8 where it said 0.95; found by QA)', async () => {
    const target = await startTarget();
    try {
      const suite = join(out, 'resumable-ui.json');
      // A UI test held on a gated page, then failing: the resumed part records a trace only if the run said so.
      const ui = (id: string, path: string) => ({ id, name: id, type: 'ui', steps: [{ type: 'goto', url: path }], assertions: [{ type: 'text', selector: 'body', contains: 'never there', timeout_ms: 500 }] });
      await writeFile(suite, JSON.stringify({ name: 'resumable ui', tests: [ui('held-ui', '/gate?id=u1')] }));
      const state = join(out, 'state-resume-ui');
      const dir = join(out, 'resume-ui');
      target.closeGate();
      const child = spawn(bin, ['run', '--url', target.url, '--tests', suite, '--out', dir, '--state-dir', state, '--trace', 'off', '--heal-threshold', '0.95'], { cwd: root });
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      await expect.poll(() => target.hits('/gate?id=u1'), { timeout: 60_000 }).toBe(1);
      const runId = /^run (\S+) /m.exec(stdout)?.[1];
      child.kill('SIGKILL');
      await exited;
      target.openGate();

      const again = await svc(['run', '--resume', runId!, '--state-dir', state, '--trace', 'on-failure'], randomUUID());
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('--resume continues a run with the healing and trace settings it started with');
      const res = await svc(['run', '--resume', runId!, '--state-dir', state, '--reporter', 'json'], randomUUID());
      expect(res.code, res.stdout + res.stderr).toBe(1);
      const json = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
      expect(json.tests[0]).toMatchObject({ id: 'held-ui', status: 'failed', trace: null });
      expect(target.hits('/gate?id=u1')).toBe(2);
    } finally {
      await target.stop();
    }
  }, 120_000);

  it('masks a secret in every spelling the traffic carries: a Basic credential (base64), percent-encoded, a connection URL\'s password', async () => {
    // An endpoint that answers with what it was sent, as a debugging echo would.
    const echo = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ authorization: req.headers.authorization ?? null, url: req.url }));
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
      const suite = join(out, 'masked.json');
      await writeFile(suite, JSON.stringify({
        name: 'masked',
        tests: [{
          name: 'masked db', type: 'db',
          steps: [{ type: 'sql', connection: { driver: 'postgres', url_env: 'DB_WITH_PASSWORD' }, statement: "SELECT 'pw-0c4e7a19' AS leaked" }],
          assertions: [{ type: 'cell', column: 'leaked', equals: 'something else' }],
        }, {
          name: 'masked api', type: 'api',
          steps: [{ type: 'request', url: '/echo', query: { p: '{{secrets.AT_PASSWORD}}' }, auth: { type: 'basic', username: 'bob', password: '{{secrets.DEMO_PASSWORD}}' } }],
          assertions: [{ type: 'json', path: '$.authorization', equals: 'Basic nothing' }, { type: 'json', path: '$.url', equals: '/nothing' }],
        }],
      }));
      const dir = join(out, 'masked-out');
      const res = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(bin, ['run', '--url', url, '--tests', suite, '--out', dir, '--state-dir', join(out, 'state-masked')], {
          cwd: root, timeout: 120_000,
          env: { ...process.env, SVC_SECRET_DEMO_PASSWORD: 's3cret!', SVC_SECRET_AT_PASSWORD: 'p@ss w0rd', SVC_SECRET_DB_WITH_PASSWORD: 'postgres://postgres:pw-0c4e7a19@127.0.0.1:5432/test' },
        }, (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stdout, stderr }));
      });
      expect(res.code, res.stdout + res.stderr).toBe(1);
      const basic = Buffer.from('bob:s3cret!').toString('base64');
      for (const file of ['report.json', 'report.md', 'junit.xml', 'report.html']) {
        const text = await readFile(join(dir, file), 'utf8');
        for (const leak of [basic, 's3cret!', 'p%40ss%20w0rd', 'p%40ss+w0rd', 'p@ss w0rd', 'pw-0c4e7a19']) expect(text, `${file} holds ${leak}`).not.toContain(leak);
      }
      const json = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
      const messages = json.tests.map((t: { error?: { message: string } }) => t.error?.message ?? '').join('\n');
      expect(messages).toContain('got "Basic ***"');
      expect(messages).toContain('got "/echo?p=***"');
      expect(messages).toContain('got "***"');
    } finally {
      echo.close();
    }
  }, 120_000);

  it('SIGTERM (a CI job cancelled or timed out) stops svc run as Ctrl-C does: the reports are written, and it says how to continue', async () => {
    const target = await startTarget();
    try {
      const suite = join(out, 'terminated.json');
      const api = (id: string, path: string) => ({ id, name: id, type: 'api', steps: [{ type: 'request', url: path }], assertions: [{ type: 'status', equals: 200 }] });
      await writeFile(suite, JSON.stringify({ name: 'terminated', tests: [api('first', '/ok?id=t1'), api('held', '/gate?id=t2')] }));
      const state = join(out, 'state-term');
      const dir = join(out, 'term');
      target.closeGate();
      const child = spawn(bin, ['run', '--url', target.url, '--tests', suite, '--out', dir, '--state-dir', state, '--reporter', 'json,junit'], { cwd: root });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      await expect.poll(() => target.hits('/gate?id=t2'), { timeout: 60_000 }).toBe(1);
      const runId = /^run (\S+) /m.exec(stdout)?.[1];
      child.kill('SIGTERM');
      const code = await exited;
      expect(code, stdout + stderr).toBe(1);
      expect(stderr).toContain(`svc run: interrupted; continue with: svc run --resume ${runId} --state-dir ${state}`);
      const json = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
      expect(json.run.id).toBe(runId);
      expect(json.tests.find((t: { id: string }) => t.id === 'first')).toMatchObject({ status: 'passed' });
      // The test not run names the same id to resume with as the console does (it named the run's thread).
      // It was running when the signal came: cut off, not "not executed".
      expect(json.tests.find((t: { id: string }) => t.id === 'held').error.message).toBe(`not finished: the run was interrupted while this test ran; resume it with svc run --resume ${runId} (it runs again from its start)`);
      expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('<testsuites');
      target.openGate();
      const res = await svc(['run', '--resume', runId!, '--out', dir, '--state-dir', state, '--reporter', 'json'], randomUUID());
      expect(res.code, res.stdout + res.stderr).toBe(0);
      expect(target.hits('/ok?id=t1')).toBe(1);
    } finally {
      await target.stop();
    }
  }, 120_000);

  it('Ctrl-C during a UI test stops the run and writes the reports, exit 1 (Playwright\'s own handler exited with 130 first)', async () => {
    const suite = join(out, 'ctrl-c.json');
    const ui = (id: string, path: string) => ({ id, name: id, type: 'ui', steps: [{ type: 'goto', url: path }], assertions: [{ type: 'visible', selector: 'h1' }] });
    await writeFile(suite, JSON.stringify({ name: 'ctrl-c', tests: [ui('home', '/'), ui('slow', `/slow?ms=${MAX_SLOW_MS}`)] }));
    const dir = join(out, 'ctrl-c');
    const child = spawn(bin, ['run', '--url', app.url, '--tests', suite, '--out', dir, '--state-dir', join(out, 'state-ctrl-c'), '--reporter', 'json,md'], { cwd: root });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    // The first test passed in the browser; the second is loading its slow page.
    await expect.poll(() => /^PASS \[1\/2\] home/m.test(stdout), { timeout: 60_000 }).toBe(true);
    child.kill('SIGINT');
    const code = await exited;
    expect(code, stdout + stderr).toBe(1);
    expect(stderr).toContain('svc run: interrupted; continue with: svc run --resume');
    const json = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
    expect(json.tests.find((t: { id: string }) => t.id === 'home')).toMatchObject({ status: 'passed' });
    expect(json.run.unfinished).toBe('interrupted');
    // The headline judges the run as the exit code does: it did not pass.
    expect(await readFile(join(dir, 'report.md'), 'utf8')).toMatch(/^## ⏸️ Interrupted/m);
  }, 120_000);

  it('an --out that cannot hold the reports, or an empty --reporter, is bad usage before anything runs; a report that cannot be written is said, the others still are (exit 1)', async () => {
    const marker = randomUUID();
    // A test that passes whatever earlier tests did to the app's data: the exit code below is the unwritten report's.
    const suite = join(out, 'home.json');
    await writeFile(suite, JSON.stringify({ name: 'home answers', type: 'api', steps: [{ type: 'request', url: '/' }], assertions: [{ type: 'status', equals: 200 }] }));
    const file = join(out, 'a-file');
    await writeFile(file, 'not a folder');
    const inTheWay = await svc(['run', '--url', app.url, '--tests', suite, '--out', file, '--state-dir', join(out, 'state-out')], marker);
    expect(inTheWay.code).toBe(2);
    expect(inTheWay.stderr).toBe(`svc run: --out ${file} cannot hold the reports: a file is in the way (not a folder)\nRun "svc run --help" for its options.\n`);
    const none = await svc(['run', '--url', app.url, '--tests', suite, '--reporter', '', '--out', join(out, 'none')], marker);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('svc run: --reporter names no reporter; use any of html,json,md,junit,pdf');

    const dir = join(out, 'html-blocked');
    await import('node:fs/promises').then((fs) => fs.mkdir(join(dir, 'report.html'), { recursive: true }));
    const blocked = await svc(['run', '--url', app.url, '--tests', suite, '--out', dir, '--state-dir', join(out, 'state-blocked')], marker);
    expect(blocked.code, blocked.stdout).toBe(1);
    expect(blocked.stderr).toMatch(/^svc run: could not write report\.html: EISDIR/m);
    expect((await readdir(dir)).sort()).toEqual(expect.arrayContaining(['junit.xml', 'report.json', 'report.md']));
    expect(JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')).run.failed).toBe(0);
  }, 120_000);

  it('an invalid test is reported as a failed test naming file, field and step; the others still run (exit 1)', async () => {
    const folder = join(out, 'mixed-tests');
    const items = (name: string) => ({ name, type: 'api', steps: [{ type: 'request', method: 'GET', url: '/api/html' }], assertions: [{ type: 'status', equals: 200 }] });
    await import('node:fs/promises').then((fs) => fs.mkdir(folder, { recursive: true }));
    await writeFile(join(folder, 'a-good.json'), JSON.stringify(items('first')));
    // A suite: its valid test runs; only the bad one is invalid.
    await writeFile(join(folder, 'b-suite.json'), JSON.stringify({ tests: [items('second'), { name: 'typo', type: 'ui', steps: [{ type: 'goto', url: '/' }, { type: 'clik', selector: 'role=buton' }] }] }));
    await writeFile(join(folder, 'c-broken.json'), '{ "name": "broken",');
    const dir = join(out, 'mixed-report');
    const res = await svc(['run', '--url', app.url, '--tests', folder, '--out', dir, '--reporter', 'json,junit', '--state-dir', join(out, 'state-mixed')], randomUUID());
    expect(res.code, res.stdout + res.stderr).toBe(1);
    expect(res.stdout).toContain('FAIL typo — not run, the test is invalid:');
    expect(res.stdout).toMatch(/b-suite\.json: tests\.1\.steps\.1\.type \(step 2\): unknown type "clik"; did you mean "click"\?/);
    expect(res.stdout).toMatch(/c-broken\.json: not valid JSON/);
    expect(res.stdout).toMatch(/2\/4 passed, 2 failed/);

    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as { tests: Array<{ name: string; status: string; duration_ms: number; error: { kind: string; message: string } | null }> };
    // In the files' order, the invalid ones where they are.
    expect(report.tests.map((t) => [t.name, t.status])).toEqual([['first', 'passed'], ['second', 'passed'], ['typo', 'failed'], [expect.stringContaining('c-broken.json'), 'failed']]);
    expect(report.tests[2]).toMatchObject({ duration_ms: 0, error: { kind: 'configuration', message: expect.stringMatching(/^not run: the test is invalid\n.*unknown type "clik"/) } });
    const junit = (await parseJUnit(await readFile(join(dir, 'junit.xml'), 'utf8'))) as { tests?: number; failures?: number };
    expect(junit).toMatchObject({ tests: 4, failures: 2 });
  }, 120_000);

  it("a new run into the same --out leaves none of the earlier run's artifacts; a folder of the user's own is never emptied", async () => {
    const folder = join(out, 'stale-tests');
    const dir = join(out, 'stale-report');
    await import('node:fs/promises').then((fs) => fs.mkdir(folder, { recursive: true }));
    const test = (title: string) => JSON.stringify({ id: 'home', name: 'home', type: 'ui', steps: [{ type: 'goto', url: '/' }], assertions: [{ type: 'title', contains: title, timeout_ms: 500 }] });
    await writeFile(join(folder, 'home.json'), test('no such title'));
    const failed = await svc(['run', '--url', app.url, '--tests', folder, '--out', dir, '--reporter', 'json', '--state-dir', join(out, 'state-stale')], randomUUID());
    expect(failed.code, failed.stdout + failed.stderr).toBe(1);
    // One folder per failed test, named by the test's id in its file (docs/visual.md: --out/artifacts/<test>/).
    const folders = (await readdir(join(dir, 'artifacts'))).filter((f) => f !== '.svc-artifacts');
    expect(folders).toEqual(['home']);
    expect(await readdir(join(dir, 'artifacts', folders[0]!))).toEqual(expect.arrayContaining(['failure.png', 'trace.zip']));

    // Every page of the fixture app has a title (layout.ts); an empty substring is in any.
    await writeFile(join(folder, 'home.json'), test(''));
    const passed = await svc(['run', '--url', app.url, '--tests', folder, '--out', dir, '--reporter', 'json', '--state-dir', join(out, 'state-stale')], randomUUID());
    expect(passed.code, passed.stdout + passed.stderr).toBe(0);
    expect(await readdir(join(dir, 'artifacts'))).toEqual(['.svc-artifacts']);

    // --out . beside a folder of the user's own named artifacts: written into, never emptied.
    const mine = join(out, 'mine');
    await import('node:fs/promises').then((fs) => fs.mkdir(join(mine, 'artifacts'), { recursive: true }));
    await writeFile(join(mine, 'artifacts', 'keep.txt'), 'the user\'s');
    await svc(['run', '--url', app.url, '--tests', folder, '--out', mine, '--reporter', 'json', '--state-dir', join(out, 'state-stale')], randomUUID());
    await svc(['run', '--url', app.url, '--tests', folder, '--out', mine, '--reporter', 'json', '--state-dir', join(out, 'state-stale')], randomUUID());
    expect(await readdir(join(mine, 'artifacts'))).toEqual(['keep.txt']);
  }, 180_000);

  it('a path with no test file is still bad usage (exit 2): there is nothing to report', async () => {
    const res = await svc(['run', '--url', app.url, '--tests', join(out, 'no-such-folder'), '--state-dir', join(out, 'state-none')], randomUUID());
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/no-such-folder: no such file or folder/);
  });
});
