import { z } from 'zod';
import type { Step, TestDefinition, UiAssertion } from '../../contracts/steps.ts';
import { clickTarget, fieldTarget } from './grammar/locators.ts';
import { escapeRegex, originOf, relativeUrl } from './recording/types.ts';

/**
 * A production failure event, as error monitors report it (Sentry-style): the error
 * message and stack, the page URL, the user agent and breadcrumbs of what the user did
 * before (navigation, clicks, input, XHR/fetch). Unknown extra fields are accepted.
 */
export const Breadcrumb = z.looseObject({
  category: z.string().max(100).describe('navigation, ui.click, ui.input, xhr, fetch, console …'),
  type: z.string().max(100).optional(),
  message: z.string().max(10_000).optional().describe('For ui.click / ui.input: the element, as a CSS path'),
  timestamp: z.union([z.string(), z.number()]).optional(),
  data: z.record(z.string(), z.unknown()).optional().describe('navigation: from, to; xhr/fetch: method, url, status_code; ui.input: value (when recorded); ui.click: text'),
});
export type Breadcrumb = z.output<typeof Breadcrumb>;

/** An http(s) URL, or a path on the app ("/checkout?step=2"): what a test can open. "not a url" became goto "not a url" (found by QA). */
function isPageUrl(url: string): boolean {
  if (/^\/(?!\/)\S*$/.test(url)) return true;
  if (!URL.canParse(url)) return false;
  const u = new URL(url);
  return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
}

export const FailureEvent = z.looseObject({
  message: z.string().min(1).max(10_000).describe('The error message, e.g. "TypeError: cannot read properties of undefined"'),
  stack: z.string().max(200_000).optional(),
  url: z
    .string()
    .min(1)
    .max(8000)
    .refine(isPageUrl, { message: 'give the page the error happened on as an http(s) URL or a path starting with /' })
    .describe('The page the error happened on: an http(s) URL, or a path (/checkout)'),
  user_agent: z.string().max(2000).optional(),
  timestamp: z.union([z.string(), z.number()]).optional(),
  breadcrumbs: z.array(Breadcrumb).max(1000).default([]),
});
export type FailureEvent = z.output<typeof FailureEvent>;

export interface EventReproduction {
  test: TestDefinition;
  skipped: Array<{ at: number; what: string; reason: string }>;
  /** The error's first line: what the test's console check (and the run's console) look for. */
  console_error: string;
  /**
   * The test ends with this no_console_error assertion (fails while the error happens), unless
   * the message cannot be looked for in a console (consoleCheckFor).
   */
  console_check?: UiAssertion;
  failing_request?: { method: string; url: string; status: number };
  confidence: number;
}

/** The first line of the message, without the "Uncaught"/error-class prefix noise, for matching console errors. */
export function consoleNeedle(message: string): string {
  return message.split('\n')[0].replace(/^Uncaught\s+(?:\(in promise\)\s+)?/, '').trim().slice(0, 300);
}

/** Did the run's console show this event's error? */
export function consoleShowsError(consoleErrors: string[], message: string): boolean {
  const needle = consoleNeedle(message);
  const bare = needle.replace(/^[A-Za-z]*Error:\s*/, '');
  return consoleErrors.some((e) => e.includes(needle) || (bare.length >= 8 && e.includes(bare)));
}

const SUCCESS = [200, 201, 202, 204, 301, 302, 303, 304, 307, 308];

/** How long the console check waits for the replayed page to settle (no request for 1 s, at most 5 s). */
export const CONSOLE_CHECK_SETTLE = { quietMs: 1_000, maxMs: 5_000 };
export const CONSOLE_CHECK_NAME = 'the production error does not happen again';

/**
 * Messages that are not the error's own text, so no console shows them: a cross-origin
 * script's error as the page's window.onerror saw it ("Script error."; the browser's console
 * has the real message), and an error monitor's summary of a thrown or rejected non-Error.
 */
const OPAQUE_MESSAGES = /^(?:Script error\.?|Non-Error (?:promise rejection|exception) captured\b.*)$/i;

/**
 * A no_console_error assertion that fails while the event's error happens, or undefined when
 * the message cannot be looked for. Chromium shows an uncaught error as "Uncaught <message>"
 * (without its class: "TypeError: x" is "Uncaught x") and console.error(err) as
 * "TypeError: x\n    at …": the text is looked for without the class. A short message (under 8
 * characters) must be the whole of an error's first line, so "oops" does not match "loops".
 */
export function consoleCheckFor(message: string): UiAssertion | undefined {
  const needle = consoleNeedle(message);
  if (!needle || OPAQUE_MESSAGES.test(needle)) return undefined;
  const bare = needle.replace(/^[A-Za-z]*Error:\s*/, '') || needle;
  const check = { name: CONSOLE_CHECK_NAME, quiet_ms: CONSOLE_CHECK_SETTLE.quietMs, timeout_ms: CONSOLE_CHECK_SETTLE.maxMs };
  if (bare.length >= 8) return { type: 'no_console_error', contains: bare, ...check };
  return { type: 'no_console_error', matches: `^(?:Uncaught )?(?:[A-Za-z]*Error: )?${escapeRegex(bare)}(?:\\n|$)`, ...check };
}

/**
 * Reproduces the event as a regression test: open where the user started, replay the UI
 * breadcrumbs, end on the failing page, and — when an XHR/fetch failed — re-send that
 * request and expect a success status; the test ends with a no_console_error assertion on
 * the error's message (consoleCheckFor), so it fails while the error still happens and
 * passes once it is fixed.
 */
export function reproduceEvent(event: FailureEvent, opts: { name?: string } = {}): EventReproduction {
  const origin = originOf(event.url);
  const steps: Step[] = [];
  const skipped: EventReproduction['skipped'] = [];
  let failing: EventReproduction['failing_request'];
  const crumbs = event.breadcrumbs;
  const firstNav = crumbs.find((b) => b.category === 'navigation');
  const pageOf = (v: unknown) => (typeof v === 'string' && isPageUrl(v) ? v : undefined);
  const start = pageOf(firstNav?.data?.from) ?? pageOf(firstNav?.data?.to) ?? event.url;
  steps.push({ type: 'goto', url: relativeUrl(start, origin) });
  let current = relativeUrl(start, origin);

  // A blank target is no target: " " became a css "" (a 500) or a union matching any button or labelled field (found by QA).
  const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
  crumbs.forEach((b, i) => {
    const data = b.data ?? {};
    const cat = b.category.toLowerCase();
    if (cat === 'navigation') {
      if (typeof data.to === 'string' && !pageOf(data.to)) return skipped.push({ at: i, what: cat, reason: `navigation to ${JSON.stringify(data.to.slice(0, 200))}: not an http(s) URL or a path` });
      const to = typeof data.to === 'string' ? relativeUrl(data.to, origin) : undefined;
      if (!to) return skipped.push({ at: i, what: cat, reason: 'navigation without data.to' });
      // The first navigation's "from" already opened the page; a click usually causes the navigation, so only goto when nothing led there.
      if (to !== current && !(i > 0 && /click/.test(crumbs[i - 1].category))) steps.push({ type: 'goto', url: to });
      current = to;
      return;
    }
    if (cat === 'ui.click' || cat === 'click') {
      const text = str(data.text) ?? str(data.label);
      const css = str(data.selector) ?? str(b.message);
      if (text) steps.push({ type: 'click', selector: clickTarget(text) });
      else if (css) steps.push({ type: 'click', selector: { css } });
      else skipped.push({ at: i, what: cat, reason: 'click without a target' });
      return;
    }
    if (cat === 'ui.input' || cat === 'input' || cat === 'ui.change') {
      const css = str(data.selector) ?? str(b.message);
      const label = str(data.label);
      if (typeof data.value !== 'string') return skipped.push({ at: i, what: cat, reason: 'the monitor did not record the value typed (values are usually scrubbed); add a fill step with a test value' });
      if (!css && !label) return skipped.push({ at: i, what: cat, reason: 'input without a target' });
      steps.push({ type: 'fill', selector: label ? fieldTarget(label) : { css: css! }, value: data.value });
      return;
    }
    if (cat === 'xhr' || cat === 'fetch' || cat === 'http') {
      const status = Number(data.status_code ?? data.status);
      const url = str(data.url);
      if (url && status >= 400) failing = { method: String(data.method ?? 'GET').toUpperCase(), url, status };
      return;
    }
    skipped.push({ at: i, what: cat, reason: `breadcrumb category "${b.category}" is context only` });
  });

  const target = relativeUrl(event.url, origin);
  if (target !== current) steps.push({ type: 'goto', url: target });
  steps.push({ type: 'assert', assertion: { type: 'url', matches: `^https?://[^/]+${escapeRegex(new URL(event.url, 'http://x').pathname)}` } });
  if (failing) {
    const method = (['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].includes(failing.method) ? failing.method : 'GET') as 'GET';
    steps.push({ type: 'request', method, url: relativeUrl(failing.url, origin), name: `the request that failed with ${failing.status}` });
    steps.push({ type: 'assert', assertion: { type: 'status', in: SUCCESS }, name: `not ${failing.status} any more` });
  }
  const uiCrumbs = crumbs.filter((b) => /^(ui\.|click|input|navigation)/.test(b.category)).length;
  const replayed = uiCrumbs - skipped.filter((s) => /^(ui\.|click|input|navigation)/.test(s.what)).length;
  const consoleCheck = consoleCheckFor(event.message);
  const confidence = Math.round((0.5 + 0.5 * (uiCrumbs ? replayed / uiCrumbs : 1)) * (failing || consoleCheck ? 1 : 0.9) * 1000) / 1000;
  const first = consoleNeedle(event.message);
  return {
    test: {
      name: (opts.name ?? `reproduce: ${first}`).slice(0, 255),
      description: `Regression test for a production error on ${event.url}${event.user_agent ? ` (${event.user_agent.slice(0, 200)})` : ''}: ${first}`,
      type: 'ui',
      priority: 'high',
      tags: ['generated', 'production-error'],
      timeout_ms: 60_000,
      parameters: {},
      parameter_sets: [],
      steps,
      assertions: consoleCheck ? [consoleCheck] : [],
    },
    skipped,
    console_error: first,
    ...(consoleCheck && { console_check: consoleCheck }),
    ...(failing && { failing_request: failing }),
    confidence,
  };
}
