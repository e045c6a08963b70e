import type { Page } from 'playwright-core';

type WrapApiCall = <T>(fn: () => Promise<T>, options: { internal: boolean }) => Promise<T>;

/**
 * Runs one of svc's own page probes (the strict-locate count and the element fingerprint)
 * as a Playwright-internal call. A trace then records the test's actions, not a before and
 * an after DOM snapshot of every probe: those snapshots were half of what tracing cost, ~30 ms
 * of CPU per test of the bench suite (half in Node, half in Chromium).
 * Playwright marks its own helper calls this way; the hook is its private
 * ChannelOwner._wrapApiCall, so without it (a future Playwright) the probe runs traced, as before.
 */
export function untraced<T>(page: Page, fn: () => Promise<T>): Promise<T> {
  const wrap = (page as unknown as { _wrapApiCall?: WrapApiCall })._wrapApiCall;
  return typeof wrap === 'function' ? wrap.call<Page, [() => Promise<T>, { internal: boolean }], Promise<T>>(page, fn, { internal: true }) : fn();
}
