import { devices, type BrowserContextOptions } from 'playwright-core';
import { BrowserSettings, hasBrowserSettings } from '@svc/core/contracts/browser-settings';
import { StepFailure } from '@svc/core/execution/types';
import { unknownDevice } from './device-check.ts';

export const DEFAULT_VIEWPORT = { width: 1280, height: 720 };

/**
 * A test's browser settings, with its variables already filled in, as the options of its
 * fresh context: the device's descriptor first, then what the test sets over it. A value a
 * variable made wrong fails the step that opened the browser, as a configuration error.
 */
export function contextOptionsFor(settings: BrowserSettings | undefined): BrowserContextOptions {
  if (!hasBrowserSettings(settings)) return { viewport: DEFAULT_VIEWPORT, deviceScaleFactor: 1 };
  const checked = BrowserSettings.safeParse(settings);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new StepFailure('configuration', `browser.${issue.path.join('.')}: ${issue.message}`);
  }
  const s = checked.data;
  if (s.device) {
    const problem = unknownDevice(s.device);
    if (problem) throw new StepFailure('configuration', `browser.device: ${problem}`);
  }
  // A device's own defaultBrowserType says which engine it was described for; svc drives Chromium.
  const { defaultBrowserType: _engine, ...device } = s.device ? devices[s.device] : { defaultBrowserType: undefined, viewport: DEFAULT_VIEWPORT, deviceScaleFactor: 1 };
  return {
    ...device,
    ...(s.viewport && { viewport: s.viewport }),
    ...(s.locale && { locale: s.locale }),
    ...(s.timezone && { timezoneId: s.timezone }),
    ...(s.color_scheme && { colorScheme: s.color_scheme }),
    ...(s.reduced_motion && { reducedMotion: s.reduced_motion }),
    ...(s.user_agent && { userAgent: s.user_agent }),
  };
}
