import type { DiscoverySession } from '@svc/core/contracts/discovery';
import type { Store } from '@svc/core/store/index';
import type { Blobs } from '@svc/core/ports/blobs';
import type { Logger } from '@svc/core/ports/logger';
import type { PlaywrightDriver } from '../execution/browser/playwright-driver.ts';
import { crawl, type CrawlOptions, type CrawlResult } from './crawler.ts';
import { markSessionFailed, persistCrawl } from './persist.ts';

export interface DiscoveryRunnerOptions {
  store: Store;
  blobs?: Blobs;
  logger: Logger;
  /** Launches the browser on first use; one browser serves every crawl (a context each). */
  driver: () => Promise<PlaywrightDriver>;
  /** Hosts every crawl may visit besides the project's app_url origin (SVC_DISCOVERY_ALLOWED_HOSTS). */
  allowedHosts?: string[];
}

export type CrawlRequest = Omit<CrawlOptions, 'saveScreenshot' | 'signal'>;

/**
 * Runs crawls in this process: start() in the background for a stored session (status
 * pending → running → completed/failed), crawlNow() synchronously for /api/discover.
 */
export function createDiscoveryRunner(options: DiscoveryRunnerOptions): DiscoveryRunner {
  let driver: Promise<PlaywrightDriver> | undefined;
  const running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  const getDriver = () => (driver ??= options.driver().catch((e) => { driver = undefined; throw e; }));

  return {
    allowedHosts: options.allowedHosts ?? [],

    crawlNow(request: CrawlRequest, signal?: AbortSignal): Promise<CrawlResult> {
      return getDriver().then((d) => crawl(d, { ...request, signal }));
    },

    /** Starts the session's crawl in the background; resolves once it is under way. */
    async start(orgId: string, session: DiscoverySession, request: CrawlRequest): Promise<void> {
      const abort = new AbortController();
      const done = runDiscoverySession({ store: options.store, blobs: options.blobs, logger: options.logger, driver: getDriver }, orgId, session, request, abort.signal)
        .finally(() => running.delete(session.id));
      running.set(session.id, { abort, done });
    },

    /** Resolves when the session's background crawl has finished (tests, shutdown). */
    async settled(sessionId?: string): Promise<void> {
      await Promise.allSettled(sessionId ? [running.get(sessionId)?.done] : [...running.values()].map((r) => r.done));
    },

    async close(): Promise<void> {
      for (const r of running.values()) r.abort.abort();
      await Promise.allSettled([...running.values()].map((r) => r.done));
      const d = await driver?.catch(() => undefined);
      await d?.close();
    },
  };
}

/**
 * What the discovery routes need: this process's runner locally, the browser function on
 * AWS (browser-work/remote.ts). `start` resolves once the crawl is handed over (a Lambda
 * must not answer before its invocation of the browser function is accepted).
 */
export interface DiscoveryRunner {
  allowedHosts: string[];
  crawlNow(request: CrawlRequest, signal?: AbortSignal): Promise<CrawlResult>;
  start(orgId: string, session: DiscoverySession, request: CrawlRequest): Promise<void>;
  settled(sessionId?: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * One stored session's crawl, start to end: running, the crawl (page screenshots into the
 * blobs when there are any), then the pages and flows persisted and the session completed;
 * any failure marks it failed with the error's first line. Never throws.
 */
export async function runDiscoverySession(
  o: { store: Store; blobs?: Blobs; logger: Logger; driver: () => Promise<PlaywrightDriver> },
  orgId: string,
  session: DiscoverySession,
  request: CrawlRequest,
  signal?: AbortSignal,
): Promise<void> {
  try {
    // Lambda delivers an asynchronous job again when its container died; a session that
    // already finished is not crawled a second time.
    const current = await o.store.discovery.getSession(orgId, session.id);
    if (current?.status === 'completed' || current?.status === 'failed') {
      o.logger.info?.('discovery session already finished; a redelivered job is ignored', { session: session.id, status: current.status });
      return;
    }
    await o.store.discovery.updateSession(orgId, session.id, { status: 'running' });
    const result = await crawl(await o.driver(), {
      ...request,
      signal,
      saveScreenshot: o.blobs ? async (i, _url, png) => {
        const key = `discovery/${orgId}/${session.id}/page-${i}.png`;
        await o.blobs!.put(key, png, 'image/png');
        return key;
      } : undefined,
    });
    await persistCrawl(o.store, orgId, session, result);
  } catch (e) {
    o.logger.warn?.('discovery failed', { session: session.id, error: e instanceof Error ? e.message.split('\n')[0] : String(e) });
    await markSessionFailed(o.store, orgId, session.id, e);
  }
}
