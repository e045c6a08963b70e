import type { Page } from 'playwright-core';
import {
  allowedOrigins, assessQuality, classifyPage, elementImportance, elementsFromFingerprints, inferFlows, isAllowed, normaliseUrl, pageImportance, pageRisk,
  unsafeLinkReason, urlPattern, type ElementInfo, type InferredFlow, type PageSnapshot, type QualityReport,
} from '@svc/core/intelligence/discovery/index';
import type { PlaywrightDriver } from '../execution/browser/playwright-driver.ts';
import type { PlaywrightUiSession } from '../execution/browser/session.ts';
import { pageFingerprints } from '../execution/browser/fingerprint.ts';
import { readPage } from './page-reader.ts';
import { logIn, type LoginOptions } from './login.ts';
import { trackNetwork } from './network-quiet.ts';

export interface CrawlOptions {
  startUrl: string;
  /** Extra hosts (or origins) the crawl may visit besides the start URL's origin. */
  allowedHosts?: string[];
  maxPages?: number;
  maxDepth?: number;
  /** A page that has not loaded by then is recorded as partial and the crawl moves on. */
  pageTimeoutMs?: number;
  /** Visits per URL family (see urlPattern): stops infinite calendars and pagination. */
  maxPerPattern?: number;
  strategy?: 'breadth_first' | 'depth_first' | 'priority';
  /** Wall-clock bound for the whole crawl; pages not reached by then are reported as skipped. */
  deadlineMs?: number;
  login?: LoginOptions;
  /** Stores a page's PNG and returns its reference (the Blobs key); absent → no screenshots. */
  saveScreenshot?: (pageIndex: number, url: string, png: Uint8Array) => Promise<string | null>;
  signal?: AbortSignal;
}

export interface CrawledPage extends PageSnapshot {
  page_type: string;
  importance_score: number;
  risk_score: number;
  screenshot_url: string | null;
  elements: Array<ElementInfo & { importance_score: number; stability_score: number }>;
}

export interface CrawlResult {
  startUrl: string;
  pages: CrawledPage[];
  edges: Array<{ from: string; to: string }>;
  flows: Array<InferredFlow & { validated: boolean }>;
  skipped: Array<{ url: string; reason: string }>;
  quality: QualityReport;
  login?: { ok: boolean; url: string; landed_url?: string; message?: string };
  durationMs: number;
}

interface QueueItem {
  url: string;
  depth: number;
  priority: number;
}

const DOWNLOAD = 'download, not a page';
const PRIORITY_WORDS = /(login|sign|register|account|checkout|cart|new|create|add|edit|search|settings|dashboard|form)/i;

/** Races a promise against a timeout; the timer never keeps the process alive. */
async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms); })]);
  } finally {
    clearTimeout(timer);
  }
}

const firstLine = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0].slice(0, 300);

/**
 * Crawls a running app in one browser context (cookies from the optional login persist),
 * breadth-first by default, within the allowed origins. Never follows logout, destructive
 * or download links, never submits a form; every page read is bounded by pageTimeoutMs.
 */
export async function crawl(driver: PlaywrightDriver, options: CrawlOptions): Promise<CrawlResult> {
  const started = Date.now();
  const maxPages = options.maxPages ?? 50;
  const maxDepth = options.maxDepth ?? 5;
  const pageTimeoutMs = options.pageTimeoutMs ?? 15_000;
  const maxPerPattern = options.maxPerPattern ?? 5;
  const deadline = started + (options.deadlineMs ?? 10 * 60_000);
  const start = normaliseUrl(options.startUrl);
  if (!start) throw new Error(`start_url is not an http(s) URL: ${options.startUrl}`);
  const origins = allowedOrigins(start, options.allowedHosts);

  const snapshots: PageSnapshot[] = [];
  const screenshots = new Map<string, string | null>();
  const edges = new Map<string, { from: string; to: string }>();
  const skipped: Array<{ url: string; reason: string }> = [];
  const skippedUrls = new Set<string>();
  const queued = new Set<string>([start]);
  const perPattern = new Map<string, number>([[urlPattern(start), 1]]);
  const queue: QueueItem[] = [{ url: start, depth: 0, priority: 0 }];
  const skip = (url: string, reason: string) => {
    if (skippedUrls.has(url)) return;
    skippedUrls.add(url);
    skipped.push({ url, reason });
  };

  const session: PlaywrightUiSession = await driver.openSession({ trace: false });
  let login: CrawlResult['login'];
  let loginPage: PageSnapshot | undefined;
  try {
    const page = session.page;
    const network = trackNetwork(page);
    // A link that turns out to be a file (Content-Disposition: attachment) is cancelled, never saved.
    page.on('download', (download) => void download.cancel().catch(() => {}));
    if (options.login) {
      // The sign-in page as a signed-out visitor sees it: its form becomes the sign-in flow
      // (and the first steps of the tests of pages behind it) even when the crawl never
      // comes back to it, or comes back signed in and finds no form.
      network.reset();
      const form = await visit(page, { url: normaliseUrl(options.login.url) ?? options.login.url, depth: 0, priority: 0 }, pageTimeoutMs, network);
      if (!form.partial) loginPage = form;
      login = await logIn(page, options.login, pageTimeoutMs);
      if (!login.ok) throw new Error(`login failed: ${login.message}`);
    }
    while (queue.length && snapshots.length < maxPages) {
      if (options.signal?.aborted) throw new Error('discovery cancelled');
      if (Date.now() > deadline) {
        for (const q of queue) skip(q.url, 'crawl deadline reached');
        break;
      }
      const item = nextItem(queue, options.strategy ?? 'breadth_first');
      network.reset();
      const snapshot = await visit(page, item, pageTimeoutMs, network);
      if (snapshot.partial === DOWNLOAD) {
        skip(item.url, 'download (answered as a file)');
        continue;
      }
      if (snapshot.redirectedTo) {
        if (!isAllowed(snapshot.redirectedTo, origins)) {
          // Never read (or follow links of) a site outside the allowed hosts.
          snapshots.push({ ...snapshot, links: [], forms: [], elements: [], headings: [], partial: `redirected outside the allowed hosts to ${new URL(snapshot.redirectedTo).origin}` });
          continue;
        }
        // The target is this page's content: do not visit it again under its own URL.
        queued.add(snapshot.redirectedTo);
      }
      snapshots.push(snapshot);
      if (options.saveScreenshot && !snapshot.partial) {
        const png = await within(pageTimeoutMs, 'screenshot', page.screenshot({ type: 'png', timeout: pageTimeoutMs })).catch(() => undefined);
        screenshots.set(snapshot.url, png ? await options.saveScreenshot(snapshots.length - 1, snapshot.url, new Uint8Array(png)).catch(() => null) : null);
      }
      for (const link of snapshot.links) {
        const target = normaliseUrl(link.href, snapshot.url);
        if (!target || !isAllowed(target, origins)) continue;
        const unsafe = unsafeLinkReason(link);
        if (unsafe) {
          skip(target, unsafe === 'download' ? 'download link' : 'logout or destructive link not followed');
          continue;
        }
        if (target !== snapshot.url) edges.set(`${snapshot.url} ${target}`, { from: snapshot.url, to: target });
        if (queued.has(target)) continue;
        if (item.depth + 1 > maxDepth) {
          skip(target, `deeper than max_depth ${maxDepth}`);
          continue;
        }
        const pattern = urlPattern(target);
        const seen = perPattern.get(pattern) ?? 0;
        if (seen >= maxPerPattern) {
          skip(target, `more than ${maxPerPattern} pages like ${pattern}`);
          continue;
        }
        perPattern.set(pattern, seen + 1);
        queued.add(target);
        queue.push({ url: target, depth: item.depth + 1, priority: (PRIORITY_WORDS.test(`${target} ${link.text ?? ''}`) ? 10 : 0) - (item.depth + 1) * 5 });
      }
    }
    for (const q of queue) skip(q.url, `max_pages ${maxPages} reached`);
  } finally {
    await session.close().catch(() => {});
  }

  const inbound = new Map<string, number>();
  for (const e of edges.values()) inbound.set(e.to, (inbound.get(e.to) ?? 0) + 1);
  const pages: CrawledPage[] = snapshots.map((s) => {
    const page_type = classifyPage(s);
    const inForm = new Set(s.forms.flatMap((f) => f.fields.map((x) => x.label ?? x.placeholder ?? x.name ?? '')));
    return {
      ...s,
      page_type,
      importance_score: pageImportance(page_type, s.depth, inbound.get(s.url) ?? 0),
      risk_score: pageRisk(page_type, s),
      screenshot_url: screenshots.get(s.url) ?? null,
      elements: s.elements.map((e) => ({ ...e, importance_score: elementImportance(e, inForm.has(e.label ?? '\u0000')), stability_score: e.unique ? stabilityOf(e) : Math.max(0, stabilityOf(e) - 0.25) })),
    };
  });
  const importance = new Map(pages.map((p) => [p.url, p.importance_score]));
  const flows = inferFlows(loginPage ? [loginPage, ...pages] : pages, { username: options.login?.username, importance, ...(login?.landed_url && { signedIn: { loginUrl: normaliseUrl(login.url) ?? login.url, landedUrl: login.landed_url } }) }).map((f) => ({ ...f, validated: f.flow_type === 'authentication' && !!login?.ok && f.url === normaliseUrl(options.login!.url) }));
  const quality = assessQuality(pages, skipped, flows.length);
  return { startUrl: start, pages, edges: [...edges.values()], flows, skipped, quality, login, durationMs: Date.now() - started };
}

const STABILITY: Record<string, number> = { testId: 0.95, role: 0.85, label: 0.85, id: 0.8, text: 0.65, css: 0.45, xpath: 0.2 };
const stabilityOf = (e: ElementInfo) => STABILITY[e.strategy] ?? 0.3;

function nextItem(queue: QueueItem[], strategy: NonNullable<CrawlOptions['strategy']>): QueueItem {
  if (strategy === 'depth_first') return queue.pop()!;
  if (strategy === 'priority') {
    let best = 0;
    for (let i = 1; i < queue.length; i++) if (queue[i].priority > queue[best].priority) best = i;
    return queue.splice(best, 1)[0];
  }
  return queue.shift()!;
}

/** Loads one page and reads it; never throws — failures become a partial page with the reason. */
async function visit(page: Page, item: QueueItem, timeoutMs: number, network: ReturnType<typeof trackNetwork>): Promise<PageSnapshot> {
  const empty: PageSnapshot = { url: item.url, title: '', depth: item.depth, headings: [], links: [], forms: [], elements: [], lists: 0, listItems: 0, textLength: 0 };
  let status: number | undefined;
  try {
    const response = await page.goto(item.url, { waitUntil: 'load', timeout: timeoutMs });
    status = response?.status();
  } catch (e) {
    const message = firstLine(e);
    if (/download is starting/i.test(message)) return { ...empty, partial: DOWNLOAD };
    const reason = /timeout/i.test(message) ? `did not finish loading within ${timeoutMs} ms` : `navigation failed: ${message}`;
    // Whatever rendered before the timeout is still worth reading (bounded again).
    const partial = await within(Math.min(2_000, timeoutMs), 'reading a partial page', readSnapshot(page, item, undefined)).catch(() => undefined);
    return { ...(partial ?? empty), url: item.url, depth: item.depth, partial: reason };
  }
  // Client-rendered apps fill the DOM after load: wait for the network to settle (bounded).
  await network.quiet(50, Math.min(2_000, timeoutMs));
  try {
    return await within(timeoutMs, 'reading the page', readSnapshot(page, item, status));
  } catch (e) {
    return { ...empty, status, partial: `could not read the page: ${firstLine(e)}` };
  }
}

async function readSnapshot(page: Page, item: QueueItem, status: number | undefined): Promise<PageSnapshot> {
  const landed = normaliseUrl(page.url());
  const reading = await readPage(page);
  const fps = await pageFingerprints(page, 5_000);
  return { url: item.url, depth: item.depth, status, ...reading, elements: elementsFromFingerprints(fps), ...(landed && landed !== item.url && { redirectedTo: landed }) };
}
