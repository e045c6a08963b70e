import type { Page, Request } from 'playwright-core';

/**
 * Waits until the page has had no request in flight for quietMs (or maxMs passed).
 * Playwright's 'networkidle' always costs 500 ms per page; client-rendered apps (fetch
 * then render) are usually quiet within a few tens of milliseconds.
 */
export function trackNetwork(page: Page) {
  const inflight = new Set<Request>();
  let lastChange = Date.now();
  const start = (r: Request) => { inflight.add(r); lastChange = Date.now(); };
  const end = (r: Request) => { inflight.delete(r); lastChange = Date.now(); };
  page.on('request', start);
  page.on('requestfinished', end);
  page.on('requestfailed', end);
  return {
    async quiet(quietMs: number, maxMs: number): Promise<void> {
      const until = Date.now() + maxMs;
      while (Date.now() < until) {
        if (inflight.size === 0 && Date.now() - lastChange >= quietMs) return;
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    reset() { inflight.clear(); lastChange = Date.now(); },
    dispose() {
      page.off('request', start);
      page.off('requestfinished', end);
      page.off('requestfailed', end);
    },
  };
}
