import type { Request, Response } from 'playwright-core';
import { PageLoadError, type ObservedRequest, type PageObservation, type PageProbe, type ProbeOptions } from '@svc/core/quality/page-probe';
import type { PlaywrightDriver } from '../execution/browser/playwright-driver.ts';
import { runAxe } from '../execution/browser/axe.ts';
import { evaluateIsolated } from '../execution/browser/isolated-world.ts';
import { raceAbort } from '../shared/race-abort.ts';
import { shortMessage } from '../execution/browser/failures.ts';

/** Requests kept per page (a page that makes thousands is reported on its first ones). */
const MAX_REQUESTS = 500;
/** After load, how long late layout shifts and paints may still come in. */
const SETTLE_MS = 500;

/**
 * Reads the navigation entry, the latest Largest Contentful Paint candidate and the sum of
 * layout shifts not caused by input, from the page's buffered performance timeline. It runs
 * in an isolated world like axe-core: the page's scripts cannot tamper with it.
 */
const TIMING = `new Promise((resolve) => {
  const out = { ttfb_ms: null, dom_content_loaded_ms: null, load_ms: null, lcp_ms: null, cls: 0 };
  const nav = performance.getEntriesByType('navigation')[0];
  if (nav) {
    out.ttfb_ms = nav.responseStart > 0 ? nav.responseStart - nav.requestStart : null;
    out.dom_content_loaded_ms = nav.domContentLoadedEventEnd || null;
    out.load_ms = nav.loadEventEnd || null;
  }
  try {
    new PerformanceObserver((list) => { const e = list.getEntries(); if (e.length) out.lcp_ms = e[e.length - 1].startTime; }).observe({ type: 'largest-contentful-paint', buffered: true });
    new PerformanceObserver((list) => { for (const e of list.getEntries()) if (!e.hadRecentInput) out.cls += e.value; }).observe({ type: 'layout-shift', buffered: true });
  } catch (e) {}
  setTimeout(() => resolve(out), 50);
})`;

/**
 * The quality audit's PageProbe on Chromium: a fresh context per page (the driver's
 * session, no trace), every request and response noted while the page loads, then the
 * performance timeline and axe-core read in an isolated world.
 */
export function chromiumProbe(driver: () => Promise<PlaywrightDriver>): PageProbe {
  return {
    async observe(url: string, o: ProbeOptions): Promise<PageObservation> {
      const session = await (await driver()).openSession({ trace: false });
      const page = session.page;
      const requests = new Map<Request, ObservedRequest>();
      const consoleErrors: string[] = [];
      const mixed: string[] = [];
      const note = (req: Request) => {
        if (!requests.has(req) && requests.size < MAX_REQUESTS) requests.set(req, { url: req.url(), resource_type: req.resourceType(), status: null, transfer_bytes: 0, set_cookies: [] });
        return requests.get(req);
      };
      const responded: Array<Promise<void>> = [];
      page.on('request', note);
      page.on('response', (res: Response) => {
        const r = note(res.request());
        if (!r) return;
        r.status = res.status();
        responded.push((async () => {
          const headers = await res.headersArray().catch(() => []);
          r.set_cookies = headers.filter((h) => h.name.toLowerCase() === 'set-cookie').map((h) => h.value);
          const sizes = await res.request().sizes().catch(() => undefined);
          r.transfer_bytes = sizes ? sizes.responseHeadersSize + sizes.responseBodySize : 0;
        })());
      });
      page.on('requestfailed', (req) => {
        const failure = req.failure()?.errorText ?? 'failed';
        const r = note(req);
        if (r) r.failure = failure;
      });
      page.on('console', (msg) => {
        if (/^Mixed Content:/.test(msg.text())) mixed.push(msg.text().slice(0, 500));
        // Chromium's own "Failed to load resource" line repeats a failed request, which is reported as one.
        else if (msg.type() === 'error' && !/^Failed to load resource:/.test(msg.text())) consoleErrors.push(msg.text().slice(0, 2000));
      });
      page.on('pageerror', (err) => consoleErrors.push(`Uncaught ${err.message}`.slice(0, 2000)));
      try {
        const work = (async (): Promise<PageObservation> => {
          let response: Response | null;
          try {
            response = await page.goto(url, { waitUntil: 'load', timeout: o.timeoutMs });
          } catch (e) {
            throw new PageLoadError(`could not load ${url}: ${shortMessage(e)}`);
          }
          await page.waitForTimeout(SETTLE_MS);
          const timing = await evaluateIsolated<PageObservation['timing']>(page, TIMING, 10_000);
          const axe = o.axeTags ? await runAxe(page, { exclude: [], tags: o.axeTags, disableRules: [] }, 60_000) : undefined;
          await Promise.all(responded);
          return {
            url,
            final_url: page.url(),
            status: response?.status() ?? null,
            headers: response ? await response.allHeaders() : {},
            requests: [...requests.values()],
            console_errors: consoleErrors,
            mixed_content_messages: mixed,
            timing,
            ...(axe && { axe }),
          };
        })();
        return await (o.signal ? raceAbort(work, o.signal, () => new PageLoadError('the audit was cancelled')) : work);
      } finally {
        await session.close().catch(() => {});
      }
    },
  };
}
