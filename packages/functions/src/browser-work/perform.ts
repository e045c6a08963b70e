import type { Store } from '@svc/core/store/index';
import type { Blobs } from '@svc/core/ports/blobs';
import type { Logger } from '@svc/core/ports/logger';
import type { PlaywrightDriver } from '../execution/browser/playwright-driver.ts';
import { crawl } from '../discovery/crawler.ts';
import { runDiscoverySession } from '../discovery/runner.ts';
import { chromiumProbe } from '../quality/chromium-probe.ts';
import type { BrowserJob, BrowserJobOutcome } from './protocol.ts';

export interface BrowserWorkDeps {
  store: Store;
  blobs?: Blobs;
  logger: Logger;
  /** The container's browser, launched on first use. */
  driver: () => Promise<PlaywrightDriver>;
}

/**
 * Does one browser job with the same code the local runtime runs in its own process
 * (discovery's runner and crawler, the audit's Chromium probe). A job's failure is its
 * outcome, never a thrown error, so the caller sees the error's name and message.
 */
export async function performBrowserJob(job: BrowserJob, deps: BrowserWorkDeps): Promise<BrowserJobOutcome> {
  try {
    switch (job.kind) {
      case 'discovery.session':
        // Records its own failure on the session (status failed, the error in insights).
        await runDiscoverySession(deps, job.organization_id, job.session, job.request);
        return { ok: true, value: null };
      case 'discovery.crawl':
        return { ok: true, value: await crawl(await deps.driver(), job.request) };
      case 'quality.observe':
        return { ok: true, value: await chromiumProbe(deps.driver).observe(job.url, { axeTags: job.axe_tags, timeoutMs: job.timeout_ms }) };
      default:
        return { ok: false, error: { name: 'UnknownBrowserJob', message: `no browser job of kind ${JSON.stringify((job as { kind?: unknown }).kind)}` } };
    }
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    deps.logger.warn?.('browser job failed', { kind: job.kind, error: e.message.split('\n')[0] });
    return { ok: false, error: { name: e.name, message: e.message } };
  }
}
