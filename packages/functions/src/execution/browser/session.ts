import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { UiStep, UiAssertion, ExtractField, Locator } from '@svc/core/contracts/steps';
import type { Fingerprint } from '@svc/core/contracts/fingerprint';
import { StepFailure, type AccessibilityScanRequest, type ExtractedValue, type PageHtml, type PageSnapshot, type StepContext, type UiDiagnostics, type UiSession, type UiSessionOptions, type VisualCapture } from '@svc/core/execution/types';
import type { AxeScan } from '@svc/core/contracts/accessibility';
import { performStep, type StepEnv } from './perform-step.ts';
import { contextOptionsFor, DEFAULT_VIEWPORT } from './context-options.ts';
import { checkAssertion, type AssertEnv } from './check-assertion.ts';
import { pageFingerprints } from './fingerprint.ts';
import { captureForComparison, pageScreenshot } from './capture.ts';
import { scanAccessibility } from './accessibility.ts';
import { extractField, pageSnapshot } from './extract.ts';
import type { ScreenshotBudget } from './screenshot-budget.ts';
import type { VisionLocator } from './vision.ts';
import { resolveLocator } from './locators.ts';
import { msLeft } from './failures.ts';

/** Settings a session takes from its driver. */
export interface SessionConfig {
  budget: ScreenshotBudget;
  locateTimeoutMs: number;
  assertTimeoutMs: number;
  vision?: VisionLocator;
  visionMinConfidence: number;
}

export { DEFAULT_VIEWPORT };
/** Diagnostics are for humans: keep the first ones, not an unbounded log. */
const MAX_DIAGNOSTICS = 200;
/**
 * Console errors kept per test for no_console_error (the diagnostics show the first
 * MAX_DIAGNOSTICS): an assertion looking for one error must not miss it behind 200 others.
 */
const MAX_CONSOLE_ERRORS = 2_000;
/** Distinct pages kept per test (coverage needs where a test went, not every hop). */
const MAX_PAGES_VISITED = 50;
/** How long reading a page's HTML may take before it is given up. */
const HTML_TIMEOUT_MS = 3000;

/** A new, never used browser context and its page, with tracing already started when asked for. */
export interface FreshPage {
  context: BrowserContext;
  page: Page;
}

export async function openFreshPage(browser: Browser, options: UiSessionOptions): Promise<FreshPage> {
  const context = await browser.newContext({
    // The test's device, viewport, locale…; a caller's viewport (discovery) wins.
    ...contextOptionsFor(options.browser),
    ...(options.viewport && { viewport: options.viewport }),
    ...(options.baseUrl !== undefined && { baseURL: options.baseUrl }),
    ignoreHTTPSErrors: false,
  });
  try {
    if (options.trace) await context.tracing.start({ screenshots: false, snapshots: true, sources: false });
    return { context, page: await context.newPage() };
  } catch (e) {
    await context.close().catch(() => {});
    throw e;
  }
}

/** One test's isolated browser context and page (UiSession on Playwright). */
export class PlaywrightUiSession implements UiSession {
  private tracing = false;
  private closed = false;
  private readonly consoleErrors: string[] = [];
  private readonly failedRequests: UiDiagnostics['failedRequests'] = [];
  private readonly pagesVisited = new Set<string>();
  /** Requests of the context in flight, and when that last changed (settle()). */
  private readonly inflight = new Set<unknown>();
  private lastNetworkChange = Date.now();
  private readonly env: StepEnv & AssertEnv;

  private constructor(
    readonly context: BrowserContext,
    /** The Playwright page, for adapters that need it (e.g. an in-test VisionLocator). */
    readonly page: Page,
    private readonly config: SessionConfig,
    options: UiSessionOptions,
    private readonly onClose: (s: PlaywrightUiSession) => void,
  ) {
    this.env = {
      page,
      baseUrl: options.baseUrl,
      locateTimeoutMs: config.locateTimeoutMs,
      assertTimeoutMs: config.assertTimeoutMs,
      vision: config.vision,
      visionMinConfidence: config.visionMinConfidence,
      screenshot: (o, ctx) => this.budgetedScreenshot(o, ctx),
      consoleErrors: () => this.consoleErrors,
      settle: (o) => this.settle(o),
    };
    // One list for the diagnostics and the no_console_error assertion (check-assertion.ts).
    context.on('console', (msg) => {
      if (msg.type() === 'error') this.noteConsoleError(msg.text());
    });
    context.on('weberror', (err) => this.noteConsoleError(`Uncaught ${err.error().message}`));
    // Where the test went (coverage, docs/insights.md): main-frame navigations, same-document
    // ones (pushState, hash routes) included. Kept without query or credentials: a query may
    // hold a token, and coverage does not compare queries.
    page.on('framenavigated', (frame) => {
      if (frame !== page.mainFrame() || this.pagesVisited.size >= MAX_PAGES_VISITED) return;
      const visited = pageOf(frame.url());
      if (visited) this.pagesVisited.add(visited);
    });
    context.on('request', (req) => {
      this.inflight.add(req);
      this.lastNetworkChange = Date.now();
    });
    context.on('requestfinished', (req) => {
      this.inflight.delete(req);
      this.lastNetworkChange = Date.now();
    });
    context.on('requestfailed', (req) => {
      this.inflight.delete(req);
      this.lastNetworkChange = Date.now();
    });
    context.on('requestfailed', (req) => {
      const failure = req.failure()?.errorText ?? 'failed';
      // ERR_ABORTED is the page cancelling its own request (navigation, AbortController), not a network failure.
      if (failure === 'net::ERR_ABORTED') return;
      this.note(this.failedRequests, { url: req.url(), method: req.method(), failure });
    });
  }

  /** Wraps a page from openFreshPage (opened just now or ahead of time) as the session of one test. */
  static adopt(fresh: FreshPage, options: UiSessionOptions, config: SessionConfig, onClose: (s: PlaywrightUiSession) => void): PlaywrightUiSession {
    const session = new PlaywrightUiSession(fresh.context, fresh.page, config, options, onClose);
    session.tracing = options.trace;
    return session;
  }

  private note<T>(list: T[], item: T): void {
    if (list.length < MAX_DIAGNOSTICS) list.push(item);
  }

  private noteConsoleError(text: string): void {
    if (this.consoleErrors.length < MAX_CONSOLE_ERRORS) this.consoleErrors.push(text);
  }

  /** Screenshots asked for and not taken: the run's cap was reached (reported with the test). */
  private dropped = 0;

  screenshotsDropped(): number {
    return this.dropped;
  }

  private async budgetedScreenshot(o: { fullPage?: boolean; timeout: number }, ctx: StepContext): Promise<Uint8Array | undefined> {
    if (!this.config.budget.take()) {
      this.dropped++;
      ctx.log('warn', `screenshot skipped: the cap of ${this.config.budget.max} screenshots per run is reached`);
      return undefined;
    }
    return pageScreenshot(this.page, { fullPage: o.fullPage }, Date.now() + o.timeout);
  }

  perform(step: UiStep, ctx: StepContext): Promise<{ fingerprint?: Fingerprint; screenshot?: Uint8Array }> {
    return performStep(this.env, step, ctx);
  }

  check(assertion: UiAssertion, ctx: StepContext): Promise<{ fingerprint?: Fingerprint }> {
    return checkAssertion(this.env, assertion, ctx);
  }

  /** Not counted against the screenshot cap: it is an assertion's input, kept only when it differs. */
  capture(options: VisualCapture, ctx: StepContext): Promise<{ png: Uint8Array; fingerprint?: Fingerprint }> {
    return captureForComparison(this.page, options, ctx, this.config.locateTimeoutMs);
  }

  accessibility(scan: AccessibilityScanRequest, ctx: StepContext): Promise<{ scan: AxeScan; fingerprint?: Fingerprint }> {
    return scanAccessibility(this.page, scan, ctx, this.config.locateTimeoutMs);
  }

  /** Counts against the per-run cap; beyond it, throws StepFailure('configuration'). */
  async firstPresent(selectors: Locator[], ctx: StepContext): Promise<number> {
    const locators = selectors.map((selector) => resolveLocator(this.env.page, selector));
    const until = Math.min(ctx.deadline, Date.now() + this.config.locateTimeoutMs);
    try {
      await locators.reduce((a, b) => a.or(b)).first().waitFor({ state: 'attached', timeout: msLeft(until) });
    } catch {
      return -1; // none in time, or a bad selector: the step's own locate says which
    }
    for (const [i, locator] of locators.entries()) if ((await locator.count().catch(() => 0)) > 0) return i;
    return -1;
  }

  async screenshot(options?: { fullPage?: boolean; timeoutMs?: number }): Promise<Uint8Array> {
    if (!this.config.budget.take()) {
      this.dropped++;
      throw new StepFailure('configuration', `screenshot skipped: the cap of ${this.config.budget.max} screenshots per run is reached`);
    }
    return pageScreenshot(this.page, { fullPage: options?.fullPage }, Date.now() + (options?.timeoutMs ?? 30_000));
  }

  /**
   * Chromium's Page.stopLoading (the Stop button): a page still navigating blocks a
   * screenshot until it loads and page.content() for as long (measured: a goto cut off at
   * 4 s left the screenshot waiting out its whole timeout). A finished page is unaffected.
   */
  async stopLoading(): Promise<void> {
    const cdp = await this.context.newCDPSession(this.page);
    try {
      await cdp.send('Page.stopLoading');
    } finally {
      await cdp.detach().catch(() => undefined);
    }
  }

  extractField(name: string, field: ExtractField, ctx: StepContext): Promise<{ value: ExtractedValue; fingerprint?: Fingerprint }> {
    return extractField(this.page, name, field, ctx, this.config.locateTimeoutMs);
  }

  snapshot(maxChars: number, ctx: StepContext): Promise<PageSnapshot> {
    return pageSnapshot(this.page, maxChars, ctx);
  }

  pageFingerprints(): Promise<Fingerprint[]> {
    return pageFingerprints(this.page);
  }

  /** page.content() waits for nothing but can hang on a page stuck mid-navigation: bounded by HTML_TIMEOUT_MS. */
  async html(maxChars: number): Promise<PageHtml> {
    const url = this.page.url();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the page's HTML could not be read within ${HTML_TIMEOUT_MS} ms`)), HTML_TIMEOUT_MS);
    });
    try {
      const html = await Promise.race([this.page.content(), timeout]);
      return { html: html.length > maxChars ? html.slice(0, maxChars) : html, url, chars: html.length, truncated: html.length > maxChars };
    } finally {
      clearTimeout(timer);
    }
  }

  url(): string {
    return this.page.url();
  }

  title(): Promise<string> {
    return this.page.title();
  }

  /**
   * No request in flight for quietMs, at most maxMs. The quiet period counts from the call
   * at the earliest, so a page that is already quiet still gets quietMs for its timers.
   */
  async settle(o: { quietMs: number; maxMs: number }): Promise<void> {
    const start = Date.now();
    const until = start + o.maxMs;
    while (Date.now() < until && !this.closed) {
      if (this.inflight.size === 0 && Date.now() - Math.max(this.lastNetworkChange, start) >= o.quietMs) return;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  diagnostics(): UiDiagnostics {
    return { consoleErrors: this.consoleErrors.slice(0, MAX_DIAGNOSTICS), failedRequests: this.failedRequests.map((r) => ({ ...r })), pagesVisited: [...this.pagesVisited] };
  }

  async stopTrace(keep: boolean): Promise<Uint8Array | undefined> {
    if (!this.tracing) return undefined;
    this.tracing = false;
    if (!keep) {
      await this.context.tracing.stop();
      return undefined;
    }
    const path = join(tmpdir(), `svc-trace-${randomUUID()}.zip`);
    try {
      await this.context.tracing.stop({ path });
      return new Uint8Array(await readFile(path));
    } finally {
      await rm(path, { force: true });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.context.close();
    } finally {
      this.onClose(this);
    }
  }
}

/** A visited URL as kept: origin, path and fragment; nothing for about:blank, data: and the like. */
function pageOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    return `${u.origin}${u.pathname}${u.hash}`;
  } catch {
    return undefined;
  }
}
