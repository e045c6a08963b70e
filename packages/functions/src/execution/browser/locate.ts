import type { Locator as PwLocator, Page } from 'playwright-core';
import { StepFailure } from '@svc/core/execution/types';
import type { Locator } from '@svc/core/contracts/steps';
import type { Fingerprint } from '@svc/core/contracts/fingerprint';
import { engineRead, FINGERPRINT, FOLLOW_UP_MS, parseFingerprint, parseRead, readBody } from './fingerprint.ts';
import { describeLocator, resolveLocator } from './locators.ts';
import { BAD_SELECTOR, isTimeout, msLeft, shortMessage } from './failures.ts';

export interface Located {
  locator: PwLocator;
  /** The selector as shown in messages. */
  desc: string;
  /** The element's fingerprint, read in the same round trip as the strictness check (when asked for). */
  fingerprint?: Fingerprint;
}

/**
 * Strict locate: waits until the locator matches at least one element (at most until
 * min(deadline, now + locateTimeoutMs)), then requires exactly one match. Fails with
 * StepFailure('locator', '<step>: "<selector>" matched N elements') — never 'timeout':
 * an element that never appears is a locator problem, which healing may fix.
 * With `fingerprint`, the element's fingerprint is read by the same call (see locateReading).
 */
export async function locateOne(page: Page, selector: Locator, stepType: string, deadline: number, locateTimeoutMs: number, fingerprint = false): Promise<Located> {
  const desc = describeLocator(selector);
  if (deadline - Date.now() <= 0) throw new StepFailure('timeout', `${stepType}: ${desc}: no time left to locate the element`);
  const locator = resolveLocator(page, selector);
  const until = Math.min(deadline, Date.now() + locateTimeoutMs);
  if (fingerprint) {
    const found = parseFingerprint(await locateReading(locator, FINGERPRINT, until, stepType, desc));
    return { locator, desc, ...(found && { fingerprint: found }) };
  }
  let count = await countOf(locator, stepType, desc);
  if (count === 0) {
    try {
      await locator.first().waitFor({ state: 'attached', timeout: msLeft(until) });
    } catch (e) {
      if (!isTimeout(e)) throw locateError(e, stepType, desc);
    }
    count = await countOf(locator, stepType, desc);
  }
  if (count !== 1) throw matched(count, stepType, desc);
  return { locator, desc };
}

/**
 * locateOne for an assertion that reads the element: the same strict locate, and the
 * element's innerText (or `attribute`) with its fingerprint from the same call. `read` is
 * undefined when the element is not (X)HTML: the caller reads it with Playwright's own call.
 */
export async function locateAndRead(page: Page, selector: Locator, stepType: string, deadline: number, locateTimeoutMs: number, attribute?: string): Promise<Located & { read?: { value: string | null; fingerprint?: Fingerprint } }> {
  const desc = describeLocator(selector);
  if (deadline - Date.now() <= 0) throw new StepFailure('timeout', `${stepType}: ${desc}: no time left to locate the element`);
  const locator = resolveLocator(page, selector);
  const read = parseRead(await locateReading(locator, readBody(attribute), Math.min(deadline, Date.now() + locateTimeoutMs), stepType, desc));
  return { locator, desc, ...(read && { read }) };
}

const STRICT_VIOLATION = /strict mode violation/i;

/**
 * The strict locate in one round trip (the common case: one element, there already):
 * the fingerprint engine's read waits for a match and, being a Playwright call, is strict,
 * failing at once when several match. Only a failure costs a count, which says how many.
 * Returns what the engine read; null when the element appeared just as the wait ended and
 * could not be read in time (it was located all the same).
 */
async function locateReading(locator: PwLocator, body: string, until: number, stepType: string, desc: string): Promise<unknown> {
  try {
    return await engineRead(locator, body, msLeft(until));
  } catch (e) {
    const msg = shortMessage(e);
    if (!isTimeout(e) && !STRICT_VIOLATION.test(msg) && !BAD_SELECTOR.test(msg)) throw locateError(e, stepType, desc);
  }
  const count = await countOf(locator, stepType, desc); // a bad selector fails here, naming only the user's selector
  if (count !== 1) throw matched(count, stepType, desc);
  return engineRead(locator, body, FOLLOW_UP_MS).catch(() => null);
}

const matched = (count: number, stepType: string, desc: string) => new StepFailure('locator', `${stepType}: ${desc} matched ${count} elements`, { selector: desc, count });

/** Counts matches; a navigation in flight can destroy the context once, so it retries once. */
export async function countOf(locator: PwLocator, stepType: string, desc: string): Promise<number> {
  try {
    return await locator.count();
  } catch (e) {
    if (BAD_SELECTOR.test(shortMessage(e))) throw locateError(e, stepType, desc);
    return locator.count().catch((e2: unknown) => {
      throw locateError(e2, stepType, desc);
    });
  }
}

function locateError(e: unknown, stepType: string, desc: string): StepFailure {
  const msg = shortMessage(e);
  if (BAD_SELECTOR.test(msg)) return new StepFailure('locator', `${stepType}: ${desc} is not a valid selector (${msg})`, { selector: desc });
  return new StepFailure('internal', `${stepType}: ${desc}: ${msg}`, { selector: desc });
}
