import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import sparticuz from '@sparticuz/chromium';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';
import { activeBrowserSessions } from '../../../packages/functions/src/execution/browser/active-sessions.ts';
import { startFixtureApp, type FixtureApp } from '../../fixtures/app/server.ts';
import { assertion, ctx, failure, run, step, type LogLine } from './helpers.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { TestDefinition } from '../../../packages/core/src/contracts/steps.ts';
import { runTest } from '../../../packages/core/src/execution/run-test.ts';
import { httpExchange } from '../../../packages/core/src/execution/api/http-exchange.ts';
import { FsArtifacts } from '../../../packages/functions/src/execution/fs-artifacts.ts';
import { renderMarkdownReport } from '../../../packages/core/src/reporting/markdown-report.ts';
import { renderHtmlReport } from '../../../packages/core/src/reporting/html-report.ts';
import { renderJsonReport } from '../../../packages/core/src/reporting/json-report.ts';

/** The driver's lifecycle: traces, diagnostics, the screenshot cap, and no Chromium left behind. */

let app: FixtureApp;
let driver: PlaywrightDriver;

beforeAll(async () => {
  app = await startFixtureApp();
  driver = await createPlaywrightDriver({ locateTimeoutMs: 750 });
});
afterAll(async () => {
  await driver?.close();
  await app?.close();
});

/** Every process as pid → { ppid, args }. */
function processes(): Map<number, { ppid: number; args: string }> {
  const out = new Map<number, { ppid: number; args: string }>();
  for (const line of execFileSync('ps', ['-eo', 'pid=,ppid=,stat=,args='], { encoding: 'utf8' }).split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    // a zombie (Z) still has a pid: it counts as left behind
    if (m) out.set(Number(m[1]), { ppid: Number(m[2]), args: `${m[3].startsWith('Z') ? '[zombie] ' : ''}${m[4]}` });
  }
  return out;
}

/** The browser process and all its descendants. */
function tree(root: number): Map<number, string> {
  const all = processes();
  const found = new Map<number, string>();
  const visit = (pid: number) => {
    const p = all.get(pid);
    if (!p || found.has(pid)) return;
    found.set(pid, p.args);
    for (const [child, c] of all) if (c.ppid === pid) visit(child);
  };
  visit(root);
  return found;
}

async function closedPort(): Promise<number> {
  const srv = createNetServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('traces', () => {
  it('a kept trace is a valid zip (PK…) containing the trace; a discarded one returns nothing', async () => {
    const s = await driver.openSession({ baseUrl: app.url, trace: true });
    try {
      await run(s, [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#email', value: 'a@b.c' }]);
      const zip = await s.stopTrace(true);
      expect(zip).toBeInstanceOf(Uint8Array);
      expect(Buffer.from(zip!.subarray(0, 4)).toString('hex')).toBe('504b0304');
      const text = Buffer.from(zip!).toString('latin1');
      expect(text).toContain('trace.trace');
      expect(text).toContain('trace.network');
      // end of central directory record: a complete archive
      expect(text.lastIndexOf('PK\u0005\u0006')).toBeGreaterThan(zip!.length - 100);
      expect(await s.stopTrace(true)).toBeUndefined(); // already stopped
    } finally {
      await s.close();
    }
    const s2 = await driver.openSession({ baseUrl: app.url, trace: true });
    await run(s2, [{ type: 'goto', url: '/' }]);
    expect(await s2.stopTrace(false)).toBeUndefined();
    await s2.close();
    const s3 = await driver.openSession({ baseUrl: app.url, trace: false });
    expect(await s3.stopTrace(true)).toBeUndefined();
    await s3.close();
  });
});

describe('diagnostics', () => {
  it('captures console errors (not other levels) and requests that failed on the network', async () => {
    const port = await closedPort();
    const s = await driver.openSession({ baseUrl: app.url, trace: false });
    try {
      await run(s, [{ type: 'goto', url: `/console?port=${port}` }]);
      await s.check(assertion({ type: 'text', selector: '#status', equals: 'fetch failed' }), ctx());
      const d = s.diagnostics();
      expect(d.consoleErrors).toContain('fixture: widget failed to render');
      expect(d.consoleErrors.join('\n')).not.toContain('a plain log line');
      expect(d.failedRequests).toContainEqual({ url: `http://127.0.0.1:${port}/unreachable`, method: 'GET', failure: 'net::ERR_CONNECTION_REFUSED' });
      // an HTTP error is an answer, not a network failure
      await run(s, [{ type: 'goto', url: '/missing-page' }]);
      expect(s.diagnostics().failedRequests.map((r) => r.url)).not.toContain(`${app.url}/missing-page`);
    } finally {
      await s.close();
    }
  });

  it('captures uncaught page errors', async () => {
    const s = await driver.openSession({ baseUrl: app.url, trace: false });
    try {
      await run(s, [{ type: 'goto', url: '/' }]);
      await s.page.evaluate(() => setTimeout(() => { throw new Error('boom from the page'); }, 0));
      await s.perform(step({ type: 'wait-for', ms: 200 }), ctx());
      expect(s.diagnostics().consoleErrors).toContain('Uncaught boom from the page');
    } finally {
      await s.close();
    }
  });

  it("reads the page's HTML as the DOM is now, cut at the cap and saying so", async () => {
    const s = await driver.openSession({ baseUrl: app.url, trace: false });
    try {
      await run(s, [{ type: 'goto', url: '/login' }]);
      await s.page.evaluate(() => document.body.append(Object.assign(document.createElement('p'), { id: 'added-late', textContent: 'added by a script' })));
      const whole = await s.html(2_000_000);
      expect(whole).toMatchObject({ url: `${app.url}/login`, truncated: false, chars: whole.html.length });
      expect(whole.html).toMatch(/^<!DOCTYPE html>/i);
      expect(whole.html).toContain('<p id="added-late">added by a script</p>');
      const cut = await s.html(100);
      expect(cut).toMatchObject({ truncated: true, chars: whole.chars });
      expect(cut.html).toBe(whole.html.slice(0, 100));
    } finally {
      await s.close();
    }
  });
});

describe('screenshot cap', () => {
  it('counts across sessions; beyond the cap a screenshot step is skipped with a warning', async () => {
    const capped = await createPlaywrightDriver({ maxScreenshotsPerRun: 2 });
    try {
      const a = await capped.openSession({ baseUrl: app.url, trace: false });
      const b = await capped.openSession({ baseUrl: app.url, trace: false });
      await run(a, [{ type: 'goto', url: '/' }]);
      await run(b, [{ type: 'goto', url: '/table' }]);
      expect((await a.perform(step({ type: 'screenshot' }), ctx())).screenshot?.length).toBeGreaterThan(1_000);
      expect((await b.perform(step({ type: 'screenshot' }), ctx())).screenshot?.length).toBeGreaterThan(1_000);
      const logs: LogLine[] = [];
      expect(await a.perform(step({ type: 'screenshot', label: 'third' }), ctx(10_000, logs))).toEqual({});
      expect(logs).toEqual([{ level: 'warn', message: 'screenshot skipped: the cap of 2 screenshots per run is reached' }]);
      const f = await failure(() => b.screenshot());
      expect(f.kind).toBe('configuration');
      expect(capped.screenshotsTaken()).toBe(2);
      // Each session counts what it did not take, for its test's result and the reports.
      expect(a.screenshotsDropped?.()).toBe(1);
      expect(b.screenshotsDropped?.()).toBe(1);
    } finally {
      await capped.close();
    }
  });

  it('a test past the cap says how many screenshots it did not take, and the reports say it of the run', async () => {
    const capped = await createPlaywrightDriver({ maxScreenshotsPerRun: 2 });
    const dir = await mkdtemp(join(tmpdir(), 'svc-cap-'));
    try {
      const test = TestDefinition.parse({ name: 'many shots', type: 'ui', steps: [{ type: 'goto', url: '/' }, { type: 'screenshot' }, { type: 'screenshot' }, { type: 'screenshot' }, { type: 'click', selector: '#no-such-button', timeout_ms: 1000 }] });
      const r = await runTest('many', test, { ui: async () => capped, http: httpExchange, artifacts: new FsArtifacts(dir), baseUrl: app.url, environment: {}, secrets: {} });
      expect(r.status).toBe('failed');
      // The third screenshot step and the failure screenshot.
      expect(r.screenshots_dropped).toBe(2);
      expect(r.screenshots).toHaveLength(2);
      const summary = { run_id: 'r', name: 'cap', started_at: r.started_at, finished_at: r.finished_at, duration_ms: r.duration_ms, workers: 1, total: 1, passed: 0, failed: 1, skipped: 0, healed: 0, results: [r] };
      const note = '2 screenshots were not taken: the run reached its cap of 100 screenshots (screenshot steps and failure screenshots together) — in many shots';
      expect(renderMarkdownReport(summary)).toContain(`> ⚠️ ${note}`);
      expect(renderHtmlReport(summary)).toContain(note);
      const json = JSON.parse(renderJsonReport(summary));
      expect(json.run.screenshots_dropped).toBe(2);
      expect(json.tests[0]!.screenshots_dropped).toBe(2);
    } finally {
      await capped.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the cap defaults to, and cannot exceed, the spec limit of 100', async () => {
    expect(driver.maxScreenshotsPerRun).toBe(100);
    const d = await createPlaywrightDriver({ maxScreenshotsPerRun: 1_000 });
    expect(d.maxScreenshotsPerRun).toBe(100);
    expect(d.browserPid()).toBeUndefined(); // creating a driver launches nothing
    await d.close();
  });
});

describe('process lifecycle', () => {
  it('launches lazily; close() leaves no Chromium process behind', async () => {
    const d = await createPlaywrightDriver({});
    expect(d.browserPid()).toBeUndefined(); // nothing launched yet
    const s = await d.openSession({ baseUrl: app.url, trace: false });
    await run(s, [{ type: 'goto', url: '/form' }]);
    const pid = d.browserPid()!;
    expect(pid).toBeGreaterThan(0);
    const before = tree(pid);
    const exe = before.get(pid)!.split(' ')[0];
    expect(exe).toMatch(/chrom/i);
    expect(before.size).toBeGreaterThan(1); // browser + renderer/utility processes
    for (const args of before.values()) expect(args.startsWith(exe)).toBe(true);

    await d.close();
    const after = processes();
    const survivors = [...before.keys()].filter((p) => after.has(p) && after.get(p)!.args.includes(exe));
    expect(survivors).toEqual([]);
    // a closed driver does not relaunch
    expect((await failure(() => d.openSession({ trace: false }))).kind).toBe('internal');
    await d.close(); // idempotent
  });

  it('a browser that hangs on close is killed after closeTimeoutMs', async () => {
    const d = await createPlaywrightDriver({ closeTimeoutMs: 500 });
    const s = await d.openSession({ baseUrl: app.url, trace: false });
    await run(s, [{ type: 'goto', url: '/' }]);
    const pid = d.browserPid()!;
    const before = tree(pid);
    const exe = before.get(pid)!.split(' ')[0];
    process.kill(pid, 'SIGSTOP'); // a frozen browser never answers the close request
    const t = Date.now();
    await d.close();
    expect(Date.now() - t).toBeGreaterThanOrEqual(450);
    const after = processes();
    expect([...before.keys()].filter((p) => after.has(p) && after.get(p)!.args.includes(exe))).toEqual([]);
  });

  it('a process that exits without close() takes its browser with it', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'exit-child.ts')], { timeout: 60_000 });
    const pids = stdout.trim().split(' ').map(Number);
    expect(pids.length).toBeGreaterThan(1); // the browser and its helper processes
    // Killed at exit; once orphaned, zombie entries are reaped by init (pid 1), which may take a moment.
    const until = Date.now() + 10_000;
    const alive = () => { const all = processes(); return pids.filter((p) => all.has(p)); };
    while (alive().length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(alive()).toEqual([]);
  });

  it('renderers fork from the zygote by default; zygote: false keeps @sparticuz/chromium\'s --no-zygote', async () => {
    for (const zygote of [true, false]) {
      const d = await createPlaywrightDriver(zygote ? {} : { zygote: false });
      try {
        const s = await d.openSession({ baseUrl: app.url, trace: false });
        await run(s, [{ type: 'goto', url: '/' }]);
        await s.check(assertion({ type: 'title', equals: 'Fixture Shop' }), ctx());
        const pid = d.browserPid()!;
        const helpers = [...tree(pid).values()];
        expect(processes().get(pid)!.args.includes('--no-zygote')).toBe(!zygote);
        expect(helpers.some((a) => a.includes('--type=zygote'))).toBe(zygote);
        expect(helpers.some((a) => a.includes('--type=renderer'))).toBe(true);
        await s.close();
      } finally {
        await d.close();
      }
    }
  });

  it('a configured system Chromium is launched with the system switches', async () => {
    const executablePath = await sparticuz.executablePath(); // stands in for a system install
    const d = await createPlaywrightDriver({ executablePath });
    try {
      const s = await d.openSession({ baseUrl: app.url, trace: false });
      await run(s, [{ type: 'goto', url: '/' }]);
      await s.check(assertion({ type: 'title', equals: 'Fixture Shop' }), ctx());
      const args = processes().get(d.browserPid()!)!.args;
      for (const flag of ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']) expect(args).toContain(flag);
      expect(args).not.toContain('--single-process');
    } finally {
      await d.close();
    }
  });
});

describe('sessions', () => {
  it('counts the sessions open in the process (browser_pool_active_sessions): each open one, until it is closed or its driver is', async () => {
    const before = activeBrowserSessions();
    const a = await driver.openSession({ baseUrl: app.url, trace: false });
    const other = await createPlaywrightDriver({ locateTimeoutMs: 750 });
    try {
      await other.openSession({ baseUrl: app.url, trace: false });
      expect(activeBrowserSessions()).toBe(before + 2);
      await a.close();
      await a.close(); // twice is once
      expect(activeBrowserSessions()).toBe(before + 1);
    } finally {
      await other.close();
    }
    expect(activeBrowserSessions()).toBe(before);
  });
});
