import { z } from 'zod';

/**
 * How a UI test's browser context looks to the app: a device (viewport, user agent, pixel
 * ratio, touch, mobile), or a viewport of its own, and locale, time zone and media
 * preferences. Each test still gets a fresh context; these only shape it.
 *
 * Any string here may be a `{{variable}}`, so parameter sets can run one test on several
 * devices or locales. Such values are checked when the test runs; literal ones when the
 * test is saved or loaded (device names by the adapter that knows the browser's devices).
 */

const hasVariable = (s: string) => s.includes('{{');

const orVariable = (schema: z.ZodString, message: string, check: (s: string) => boolean) =>
  schema.refine((s) => hasVariable(s) || check(s), { message });

/** BCP 47 language tags as browsers take them: en, en-GB, de-CH, zh-Hant-TW. */
const LOCALE = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/;

/** An IANA time zone the JavaScript engine knows (Europe/Berlin, America/New_York, UTC). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const BrowserSettings = z
  .strictObject({
    device: z.string().trim().min(1).max(100).optional().describe('A Playwright device name, e.g. "iPhone 13", "Pixel 7", "Desktop Chrome"'),
    viewport: z
      .strictObject({
        width: z.number().int().min(200).max(3840),
        height: z.number().int().min(200).max(2160),
      })
      .optional()
      .describe('Viewport (default 1280×720 or the device\'s)'),
    locale: orVariable(z.string().max(35), 'a language tag such as en-GB or de-CH', (s) => LOCALE.test(s)).optional().describe('navigator.language and Accept-Language, e.g. de-CH'),
    timezone: orVariable(z.string().max(64), 'an IANA time zone such as Europe/Berlin', isTimeZone).optional().describe('Time zone of the page\'s clock, e.g. Europe/Berlin'),
    color_scheme: z.enum(['light', 'dark', 'no-preference']).optional().describe('prefers-color-scheme'),
    reduced_motion: z.enum(['reduce', 'no-preference']).optional().describe('prefers-reduced-motion'),
    user_agent: z.string().min(1).max(1000).optional().describe('User agent string (replaces the device\'s)'),
  })
  .describe('Device, viewport, locale, time zone and colour scheme of the test\'s browser');
export type BrowserSettings = z.output<typeof BrowserSettings>;

/** Whether the settings ask for anything (an empty object is the default context). */
export const hasBrowserSettings = (s: BrowserSettings | undefined): s is BrowserSettings => !!s && Object.values(s).some((v) => v !== undefined);
