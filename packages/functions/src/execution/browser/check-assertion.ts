import type { Locator as PwLocator, Page } from 'playwright-core';
import { DEFAULT_CONSOLE_QUIET_MS, type UiAssertion } from '@svc/core/contracts/steps';
import type { Fingerprint } from '@svc/core/contracts/fingerprint';
import { StepFailure, type StepContext } from '@svc/core/execution/types';
import { actionFailure, isTimeout, msLeft, shortMessage, sleep, stepDeadline, throwIfAborted, withSignal } from './failures.ts';
import { countOf, locateAndRead, locateOne } from './locate.ts';
import { describeLocator, resolveLocator } from './locators.ts';
import { captureFingerprint, readWithFingerprint } from './fingerprint.ts';

export interface AssertEnv {
  page: Page;
  baseUrl?: string;
  locateTimeoutMs: number;
  /** How long an assertion retries when it has no timeout_ms of its own (like Playwright's expect timeout). */
  assertTimeoutMs: number;
  /** The console errors and uncaught exceptions of the test so far, as the session collects them (no_console_error). */
  consoleErrors: () => readonly string[];
  /** Resolves once no request has been in flight for quietMs (at most maxMs): the session's settle(). */
  settle: (o: { quietMs: number; maxMs: number }) => Promise<void>;
}

/** Poll intervals, as in Playwright's expect: quick at first, then every second. */
const INTERVALS = [0, 100, 250, 500, 1000];
const FINGERPRINT_MS = 2_000;
/** Console errors a failed no_console_error lists. */
const MAX_LISTED_ERRORS = 5;
/**
 * Chromium's own console line for a request answered 4xx/5xx or failed: not an error of the
 * page's scripts, and not counted by no_console_error (a status assertion checks requests).
 */
const BROWSER_REQUEST_LINE = /^Failed to load resource: /;

interface StringMatch {
  equals?: string;
  contains?: string;
  matches?: string;
}

/** Whitespace is collapsed before text comparisons, as the user sees it. */
const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

export function stringMatches(actual: string, m: StringMatch): boolean {
  if (m.equals !== undefined) return actual === m.equals;
  if (m.contains !== undefined) return actual.includes(m.contains);
  if (m.matches !== undefined) return new RegExp(m.matches).test(actual);
  return false;
}

export function expectation(m: StringMatch): string {
  if (m.equals !== undefined) return `to equal ${JSON.stringify(m.equals)}`;
  if (m.contains !== undefined) return `to contain ${JSON.stringify(m.contains)}`;
  return `to match /${m.matches}/`;
}

const shown = (v: unknown) => {
  const s = typeof v === 'string' ? JSON.stringify(v) : String(v);
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
};

/**
 * Retries `probe` until `ok` holds or the deadline passes — Playwright's expect semantics
 * without @playwright/test. Returns the last value seen (or the last probe error).
 */
async function poll<T>(deadline: number, signal: AbortSignal, probe: (timeoutMs: number) => Promise<T>, ok: (v: T) => boolean): Promise<{ ok: boolean; last?: { value: T } ; error?: unknown }> {
  let last: { value: T } | undefined;
  let error: unknown;
  for (let i = 0; ; i++) {
    throwIfAborted(signal, 'assertion');
    try {
      const value = await probe(msLeft(deadline));
      last = { value };
      error = undefined;
      if (ok(value)) return { ok: true, last };
    } catch (e) {
      if (e instanceof StepFailure) throw e;
      error = e;
    }
    const left = deadline - Date.now();
    if (left <= 0) return { ok: false, last, error };
    // The last probe happens at the deadline, not an interval before it.
    await sleep(Math.min(INTERVALS[Math.min(i + 1, INTERVALS.length - 1)], left), signal);
  }
}

/** Checks one UI assertion; throws StepFailure('assertion' | 'locator' | 'timeout' | 'cancelled'). */
export async function checkAssertion(env: AssertEnv, a: UiAssertion, ctx: StepContext): Promise<{ fingerprint?: Fingerprint }> {
  throwIfAborted(ctx.signal, a.type);
  const deadline = stepDeadline(a, ctx, env.assertTimeoutMs);
  return withSignal(check(env, a, ctx, deadline), ctx.signal, a.type);
}

async function check(env: AssertEnv, a: UiAssertion, ctx: StepContext, deadline: number): Promise<{ fingerprint?: Fingerprint }> {
  const { page } = env;
  switch (a.type) {
    case 'url': {
      const r = await poll(deadline, ctx.signal, async () => page.url(), (u) => urlMatches(u, a, env.baseUrl));
      if (!r.ok) throw mismatch(`url: expected the URL ${expectation(a)}`, r);
      return {};
    }
    case 'title': {
      const r = await poll(deadline, ctx.signal, (timeout) => withTimeout(page.title(), timeout), (t) => stringMatches(t, a));
      if (!r.ok) throw mismatch(`title: expected the title ${expectation(a)}`, r);
      return {};
    }
    case 'count': {
      const locator = resolveLocator(page, a.selector);
      const desc = describeLocator(a.selector);
      const inRange = (n: number) => (a.equals === undefined || n === a.equals) && (a.min === undefined || n >= a.min) && (a.max === undefined || n <= a.max);
      const r = await poll(deadline, ctx.signal, () => countOf(locator, 'count', desc), inRange);
      if (!r.ok) {
        const want = [a.equals !== undefined && `exactly ${a.equals}`, a.min !== undefined && `at least ${a.min}`, a.max !== undefined && `at most ${a.max}`].filter(Boolean).join(' and ');
        throw mismatch(`count: expected ${desc} to match ${want} element(s)`, r);
      }
      return {};
    }
    case 'hidden': {
      const locator = resolveLocator(page, a.selector);
      const desc = describeLocator(a.selector);
      const t = msLeft(deadline);
      try {
        await locator.waitFor({ state: 'hidden', timeout: t });
      } catch (e) {
        if (!isTimeout(e)) throw actionFailure(e, `hidden: ${desc}`, t, ctx.signal);
        throw new StepFailure('assertion', `hidden: expected ${desc} to be hidden, but it is visible (waited ${t} ms)`, { selector: desc, expected: 'hidden', actual: 'visible' });
      }
      return (await countOf(locator, 'hidden', desc)) === 1 ? withFingerprint(locator) : {};
    }
    case 'visible': {
      const { locator, desc } = await locateOne(page, a.selector, 'visible', deadline, env.locateTimeoutMs);
      const t = msLeft(deadline);
      try {
        await locator.waitFor({ state: 'visible', timeout: t });
      } catch (e) {
        if (!isTimeout(e)) throw actionFailure(e, `visible: ${desc}`, t, ctx.signal);
        const count = await countOf(locator, 'visible', desc);
        const actual = count === 0 ? 'it no longer exists' : 'it is hidden';
        throw new StepFailure('assertion', `visible: expected ${desc} to be visible, but ${actual} (waited ${t} ms)`, { selector: desc, expected: 'visible', actual: count === 0 ? 'absent' : 'hidden' });
      }
      return withFingerprint(locator);
    }
    case 'text': {
      const { locator, desc, read: first } = await locateAndRead(page, a.selector, a.type, deadline, env.locateTimeoutMs);
      const reads = fastReads(locator, first);
      const read = async (timeout: number) => {
        const fast = await reads.next();
        return collapse(fast ? (fast.value ?? '') : await locator.innerText({ timeout }));
      };
      const r = await poll(deadline, ctx.signal, read, (v) => stringMatches(v, a));
      if (!r.ok) throw mismatch(`text: expected the text of ${desc} ${expectation(a)}`, r, desc);
      return heldBy(reads.fingerprint(), locator);
    }
    case 'value': {
      const { locator, desc } = await locateOne(page, a.selector, a.type, deadline, env.locateTimeoutMs);
      const r = await poll(deadline, ctx.signal, (timeout: number) => locator.inputValue({ timeout }), (v) => stringMatches(v, a));
      if (!r.ok) throw mismatch(`value: expected the value of ${desc} ${expectation(a)}`, r, desc);
      return withFingerprint(locator);
    }
    case 'attribute': {
      const { locator, desc, read: first } = await locateAndRead(page, a.selector, 'attribute', deadline, env.locateTimeoutMs, a.attribute);
      const ok = (v: string | null) => (a.exists !== undefined ? (v !== null) === a.exists : v !== null && stringMatches(v, a));
      const reads = fastReads(locator, first, a.attribute);
      const read = async (timeout: number) => {
        const fast = await reads.next();
        return fast ? fast.value : locator.getAttribute(a.attribute, { timeout });
      };
      const r = await poll(deadline, ctx.signal, read, ok);
      if (!r.ok) {
        const want = a.exists !== undefined ? (a.exists ? 'to be present' : 'to be absent') : expectation(a);
        throw mismatch(`attribute: expected attribute ${JSON.stringify(a.attribute)} of ${desc} ${want}`, r, desc, (v) => (v === null ? 'no such attribute' : shown(v)));
      }
      return heldBy(reads.fingerprint(), locator);
    }
    case 'enabled':
    case 'disabled': {
      const { locator, desc } = await locateOne(page, a.selector, a.type, deadline, env.locateTimeoutMs);
      const want = a.type === 'enabled';
      const r = await poll(deadline, ctx.signal, (timeout) => locator.isEnabled({ timeout }), (enabled) => enabled === want);
      if (!r.ok) throw mismatch(`${a.type}: expected ${desc} to be ${a.type}`, r, desc, (v) => (v ? 'enabled' : 'disabled'));
      return withFingerprint(locator);
    }
    case 'no_console_error': {
      // Waits for the page to settle first (never past the deadline), then judges what was seen: an
      // error already logged stays logged, so there is nothing to retry.
      const left = deadline - Date.now();
      if (left > 0) await env.settle({ quietMs: a.quiet_ms ?? DEFAULT_CONSOLE_QUIET_MS, maxMs: left });
      const bad = env.consoleErrors().filter((e) => !BROWSER_REQUEST_LINE.test(e) && (a.contains !== undefined ? e.includes(a.contains) : a.matches !== undefined ? new RegExp(a.matches).test(e) : true));
      if (bad.length) {
        const which = a.contains !== undefined ? ` containing ${JSON.stringify(a.contains)}` : a.matches !== undefined ? ` matching /${a.matches}/` : '';
        const listed = bad.slice(0, MAX_LISTED_ERRORS).map((e) => JSON.stringify(e.length > 300 ? `${e.slice(0, 300)}…` : e)).join(', ');
        const more = bad.length > MAX_LISTED_ERRORS ? ` and ${bad.length - MAX_LISTED_ERRORS} more` : '';
        throw new StepFailure('assertion', `no_console_error: expected no console error or uncaught exception${which}, saw ${bad.length}: ${listed}${more}`, { expected: `no console error${which}`, actual: bad.slice(0, MAX_LISTED_ERRORS) });
      }
      return {};
    }
    default: {
      const unknown: never = a;
      throw new StepFailure('unsupported', `the browser driver cannot check an assertion of type ${JSON.stringify((unknown as { type?: unknown }).type)}`);
    }
  }
}

function urlMatches(actual: string, m: StringMatch, baseUrl: string | undefined): boolean {
  if (stringMatches(actual, m)) return true;
  // A path such as "/dashboard" compares against the URL resolved on the base URL.
  if (m.equals !== undefined && m.equals.startsWith('/') && baseUrl) {
    try {
      return actual === new URL(m.equals, baseUrl).href;
    } catch {
      return false;
    }
  }
  return false;
}

type FastRead = Awaited<ReturnType<typeof readWithFingerprint>>;

/**
 * The reads of a text or attribute assertion's probe: the first comes from the locate
 * (one round trip), each retry reads value and fingerprint again; `fingerprint()` is the
 * one read with the last value, so the probe that holds gives it.
 */
function fastReads(locator: PwLocator, first: FastRead, attribute?: string) {
  let pending = first;
  let fingerprint: Fingerprint | undefined;
  return {
    async next(): Promise<FastRead> {
      const fast = pending ?? (await readWithFingerprint(locator, attribute));
      pending = undefined;
      fingerprint = fast?.fingerprint;
      return fast;
    },
    fingerprint: () => fingerprint,
  };
}

/** The fingerprint the holding probe read, else one read now. */
const heldBy = (fingerprint: Fingerprint | undefined, locator: PwLocator) => (fingerprint ? { fingerprint } : withFingerprint(locator));

/** Taken once the assertion holds, so it never eats the assertion's own retry time. */
async function withFingerprint(locator: PwLocator): Promise<{ fingerprint?: Fingerprint }> {
  const fingerprint = await captureFingerprint(locator, FINGERPRINT_MS);
  return fingerprint ? { fingerprint } : {};
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

function mismatch<T>(expected: string, r: { last?: { value: T }; error?: unknown }, selector?: string, format: (v: T) => string = shown): StepFailure {
  const received = r.last ? format(r.last.value) : `nothing (${r.error ? shortMessage(r.error) : 'no time left'})`;
  return new StepFailure('assertion', `${expected}, received ${received}`, { ...(selector && { selector }), actual: r.last?.value ?? null });
}
