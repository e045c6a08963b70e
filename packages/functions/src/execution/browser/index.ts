/** The browser adapter of the UiDriver port (Playwright + Chromium). */
export { createPlaywrightDriver, SYSTEM_CHROMIUM_ARGS, type PlaywrightDriver, type PlaywrightDriverOptions } from './playwright-driver.ts';
export { PlaywrightUiSession, DEFAULT_VIEWPORT } from './session.ts';
export { MAX_PAGE_FINGERPRINTS } from './fingerprint.ts';
export { describeLocator } from './locators.ts';
export type { VisionLocator } from './vision.ts';
