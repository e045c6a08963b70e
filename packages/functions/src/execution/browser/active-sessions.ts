/**
 * Browser sessions (a test's context and page) open in this process, across drivers: the
 * local runtime's /metrics reports it as browser_pool_active_sessions. svc has no fixed
 * pool — a context per test, opened on demand — so this is the pool's use, not its size.
 * A module of its own so that reading it does not load Playwright.
 */
let active = 0;

export const activeBrowserSessions = (): number => active;
export const browserSessionOpened = (): void => {
  active++;
};
export const browserSessionClosed = (): void => {
  active = Math.max(0, active - 1);
};
