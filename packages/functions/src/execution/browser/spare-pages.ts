import type { Browser } from 'playwright-core';
import type { UiSessionOptions } from '@svc/core/execution/types';
import { openFreshPage, type FreshPage } from './session.ts';

interface Spare {
  key: string;
  browser: Browser;
  ready: Promise<FreshPage | undefined>;
}

/**
 * Browser contexts opened ahead of time, one test ahead. A new context and its first page
 * cost ~70 ms of browser work (newContext + newPage), which a test would otherwise wait for
 * before its first step; opened while the previous test runs, that wait is gone. A spare is
 * never used before it is handed out (nothing navigates it), so every test still starts in a
 * context of its own that nothing else has touched.
 */
export class SparePages {
  private spares: Spare[] = [];

  constructor(private readonly size: number) {}

  /** A spare opened in this browser for the same options, or undefined (then open one). */
  async take(browser: Browser, options: UiSessionOptions): Promise<FreshPage | undefined> {
    const key = keyOf(options);
    const i = this.spares.findIndex((s) => s.key === key && s.browser === browser);
    if (i < 0) return undefined;
    const [spare] = this.spares.splice(i, 1);
    const fresh = await spare.ready;
    // Opened for a browser that crashed since: the caller opens a new one, which reports the cause.
    if (!fresh || !browser.isConnected() || fresh.page.isClosed()) return undefined;
    return fresh;
  }

  /** Starts opening a spare for these options; beyond the pool size the oldest is closed. */
  refill(browser: Browser, options: UiSessionOptions): void {
    if (this.size <= 0 || !browser.isConnected()) return;
    this.spares.push({ key: keyOf(options), browser, ready: openFreshPage(browser, options).catch(() => undefined) });
    while (this.spares.length > this.size) void discard(this.spares.shift()!);
  }

  /** Closes every spare (the driver is closing, or the browser is gone). */
  async clear(): Promise<void> {
    const all = this.spares;
    this.spares = [];
    await Promise.all(all.map(discard));
  }

  /** Spares open or opening (tests). */
  get count(): number {
    return this.spares.length;
  }
}

const keyOf = (o: UiSessionOptions): string => JSON.stringify([o.baseUrl ?? null, o.viewport?.width ?? null, o.viewport?.height ?? null, o.trace, o.browser ?? null]);

async function discard(spare: Spare): Promise<void> {
  const fresh = await spare.ready;
  await fresh?.context.close().catch(() => {});
}
