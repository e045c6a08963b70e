import { randomUUID } from 'node:crypto';
import { METADATA_HOST_RESOLVER_RULES } from '@svc/core/net/metadata-hosts';
import { chromium as pwChromium, type Browser } from 'playwright-core';
import { limits } from '@svc/core/contracts/limits';
import { StepFailure, type UiDriver, type UiSessionOptions } from '@svc/core/execution/types';
import { openFreshPage, PlaywrightUiSession } from './session.ts';
import { SparePages } from './spare-pages.ts';
import { ScreenshotBudget } from './screenshot-budget.ts';
import { findBrowserPid, killBrowser, waitForExit } from './browser-process.ts';
import { registerFingerprintEngine } from './fingerprint.ts';
import type { VisionLocator } from './vision.ts';

import { browserSessionClosed, browserSessionOpened } from './active-sessions.ts';
import { guardClosedTargetRace } from './connection-guard.ts';

export interface PlaywrightDriverOptions {
  /** A system Chromium to use instead of @sparticuz/chromium. */
  executablePath?: string;
  /** Default true. */
  headless?: boolean;
  /** Screenshots allowed per run, across sessions (default and maximum: the spec's MAX_SCREENSHOTS_PER_RUN, 100). */
  maxScreenshotsPerRun?: number;
  /** Vision model for the hybrid-execution fallback; without it a locator failure stays a failure. */
  vision?: VisionLocator;
  /** Minimum confidence of a vision answer to act on it (default 0.5). */
  visionMinConfidence?: number;
  /** How long a step waits for its element to appear before failing with 'locator' (default 10 s, bounded by the step's deadline). */
  locateTimeoutMs?: number;
  /** How long an assertion retries when it has no timeout_ms (default 5 s, as Playwright's expect). */
  assertTimeoutMs?: number;
  /** How long close() waits for the browser before killing it (default 5 s). */
  closeTimeoutMs?: number;
  /**
   * Fresh contexts kept open ahead of the next openSession (default 0). Worth it when one
   * driver runs many tests in a row (`svc run`, the local server); a driver that runs a single
   * test (a Lambda invocation) would open one for nothing.
   */
  prewarm?: number;
  /**
   * Start renderers by forking Chromium's zygote (default true) instead of launching each
   * one from scratch, which @sparticuz/chromium's `--no-zygote` asks for. Every test opens a
   * fresh context and so a new renderer: forking one saves ~10% of a UI suite's CPU and wall
   * time here (docs/decisions.md). What the app sees does not change. The Lambda task keeps
   * `--no-zygote` (false): the zygote is reported to fail there at times, and a Lambda
   * invocation runs one test.
   */
  zygote?: boolean;
  /**
   * Let Playwright close the browser and exit the process on SIGINT, SIGTERM and SIGHUP
   * (default true: a server killed by a signal leaves no Chromium behind). A command that
   * handles the signals itself passes false: `svc run` stops the run on Ctrl-C and writes
   * its reports, and Playwright's handler exited with 130 first (found by QA); its driver
   * is closed on the way out, and the process' exit kills the browser too.
   */
  handleSignals?: boolean;
}

export interface PlaywrightDriver extends UiDriver {
  openSession(options: UiSessionOptions): Promise<PlaywrightUiSession>;
  /**
   * Starts launching Chromium now instead of at the first openSession, so a caller can
   * overlap the launch with its own set-up. Never rejects: a launch error is reported by the
   * next openSession, as without warmUp.
   */
  warmUp(): Promise<void>;
  /** The browser's main process id once launched (diagnostics and tests). */
  browserPid(): number | undefined;
  /** Screenshots taken so far in this run (counted against maxScreenshotsPerRun). */
  screenshotsTaken(): number;
  /** The effective per-run screenshot cap. */
  readonly maxScreenshotsPerRun: number;
  /** Contexts opened ahead of time and not yet handed out (diagnostics and tests). */
  spareContexts(): number;
}

/** Switches for a system Chromium (the sparticuz build brings its own). */
export const SYSTEM_CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Switches of @sparticuz/chromium we drop: they change what the app under test sees
 * (no same-origin policy, mixed content allowed), and one browser shared by several
 * contexts is not stable in --single-process mode.
 */
const DROPPED_SPARTICUZ_ARGS = new Set(['--disable-web-security', '--allow-running-insecure-content', '--single-process']);

interface Launched {
  browser: Browser;
  pid?: number;
  onExit: () => void;
}

/**
 * The UiDriver on Playwright and Chromium: ONE browser, launched lazily on the first
 * session and shared by all; a fresh BrowserContext per test. close() guarantees no
 * Chromium process outlives the driver (kill after closeTimeoutMs, and on process exit).
 */
export async function createPlaywrightDriver(options: PlaywrightDriverOptions = {}): Promise<PlaywrightDriver> {
  const budget = new ScreenshotBudget(Math.min(options.maxScreenshotsPerRun ?? limits.MAX_SCREENSHOTS_PER_RUN, limits.MAX_SCREENSHOTS_PER_RUN));
  const config = {
    budget,
    locateTimeoutMs: options.locateTimeoutMs ?? 10_000,
    assertTimeoutMs: options.assertTimeoutMs ?? 5_000,
    vision: options.vision,
    visionMinConfidence: options.visionMinConfidence ?? 0.5,
  };
  const closeTimeoutMs = options.closeTimeoutMs ?? 5_000;
  const sessions = new Set<PlaywrightUiSession>();
  const spares = new SparePages(Math.max(0, options.prewarm ?? 0));
  let launching: Promise<Launched> | undefined;
  let closed = false;

  async function launch(): Promise<Launched> {
    const headless = options.headless ?? true;
    const marker = `--svc-driver=${randomUUID()}`;
    let executablePath: string;
    let args: string[];
    if (options.executablePath) {
      executablePath = options.executablePath;
      args = SYSTEM_CHROMIUM_ARGS.filter((a) => headless || a !== '--headless');
    } else {
      const { default: sparticuz } = await import('@sparticuz/chromium');
      executablePath = await sparticuz.executablePath();
      const zygote = options.zygote ?? true;
      args = sparticuz.args.filter((a) => !DROPPED_SPARTICUZ_ARGS.has(a) && (headless || !a.startsWith('--headless')) && !(zygote && a === '--no-zygote'));
    }
    await registerFingerprintEngine(); // before any context: a context only has the engines registered before it
    const signals = options.handleSignals ?? true;
    // Metadata addresses resolve to nothing for every request of the browser (redirects, subresources), not only a goto's URL.
    const blocked = `--host-resolver-rules=${METADATA_HOST_RESOLVER_RULES}`;
    const browser = await pwChromium.launch({ executablePath, args: [...args, blocked, marker], headless, handleSIGINT: signals, handleSIGTERM: signals, handleSIGHUP: signals });
    guardClosedTargetRace(browser); // cancel and timeout close contexts mid-command; see connection-guard.ts
    const pid = await findBrowserPid(marker);
    const onExit = () => {
      if (pid !== undefined) killBrowser(pid);
    };
    process.on('exit', onExit);
    const launched: Launched = { browser, pid, onExit };
    browser.on('disconnected', () => {
      // A crashed browser is relaunched by the next openSession; make sure nothing of it lingers.
      if (launching && !closed) {
        launching = undefined;
        void spares.clear();
        process.off('exit', onExit);
        if (pid !== undefined) killBrowser(pid);
      }
    });
    return launched;
  }

  const browserFor = (): Promise<Launched> => {
    if (!launching) {
      launching = launch();
      launching.catch(() => {
        launching = undefined;
      });
    }
    return launching;
  };

  let pidSeen: number | undefined;

  return {
    async openSession(sessionOptions: UiSessionOptions): Promise<PlaywrightUiSession> {
      if (closed) throw new StepFailure('internal', 'the browser driver is closed');
      let launched: Launched;
      try {
        launched = await browserFor();
      } catch (e) {
        throw new StepFailure('configuration', `could not launch Chromium: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
      }
      pidSeen = launched.pid;
      const { browser } = launched;
      const fresh = (await spares.take(browser, sessionOptions)) ?? (await openFreshPage(browser, sessionOptions));
      // Opened once this test has its own page, so it never delays this test's start; it
      // opens while the test runs and is ready for the next one.
      if (!closed) spares.refill(browser, sessionOptions);
      const session = PlaywrightUiSession.adopt(fresh, sessionOptions, config, (s) => {
        if (sessions.delete(s)) browserSessionClosed();
      });
      if (closed) {
        await session.close().catch(() => {});
        throw new StepFailure('internal', 'the browser driver is closed');
      }
      sessions.add(session);
      browserSessionOpened();
      return session;
    },

    async warmUp(): Promise<void> {
      if (closed) return;
      const launched = await browserFor().catch(() => undefined);
      if (launched) pidSeen = launched.pid;
    },

    browserPid: () => pidSeen,
    screenshotsTaken: () => budget.count,
    maxScreenshotsPerRun: budget.max,
    spareContexts: () => spares.count,

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      const pending = launching;
      launching = undefined;
      const launched = await pending?.catch(() => undefined);
      if (!launched) return;
      const graceful = (async () => {
        await Promise.allSettled([spares.clear(), ...[...sessions].map((s) => s.close())]);
        await launched.browser.close();
      })();
      let timer: NodeJS.Timeout | undefined;
      const inTime = await Promise.race([
        graceful.then(() => true, () => false),
        new Promise<boolean>((r) => {
          timer = setTimeout(() => r(false), closeTimeoutMs);
        }),
      ]);
      clearTimeout(timer);
      if (launched.pid !== undefined) {
        if (!inTime) killBrowser(launched.pid);
        if (!(await waitForExit(launched.pid, 2_000))) {
          killBrowser(launched.pid);
          await waitForExit(launched.pid, 2_000);
        }
      }
      process.off('exit', launched.onExit);
    },
  };
}
