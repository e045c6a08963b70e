import type { Locator as PwLocator, Page } from 'playwright-core';
import { StepFailure } from '@svc/core/execution/types';
import type { Locator } from '@svc/core/contracts/steps';
import type { Fingerprint } from '@svc/core/contracts/fingerprint';
import { countAndFingerprint } from './fingerprint.ts';
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
 * With `fingerprint`, the fingerprint of the element is read in the same evaluate call as
 * the count. The common case (the element is already there) is a single round trip; the
 * wait only happens when nothing matches yet.
 */
export async function locateOne(page: Page, selector: Locator, stepType: string, deadline: number, locateTimeoutMs: number, fingerprint = false): Promise<Located> {
  const desc = describeLocator(selector);
  if (deadline - Date.now() <= 0) throw new StepFailure('timeout', `${stepType}: ${desc}: no time left to locate the element`);
  const locator = resolveLocator(page, selector);
  const until = Math.min(deadline, Date.now() + locateTimeoutMs);
  let found = await probe(locator, stepType, desc, fingerprint);
  if (found.count === 0) {
    try {
      await locator.first().waitFor({ state: 'attached', timeout: msLeft(until) });
    } catch (e) {
      if (!isTimeout(e)) throw locateError(e, stepType, desc);
    }
    found = await probe(locator, stepType, desc, fingerprint);
  }
  const count = found.count;
  if (count !== 1) throw new StepFailure('locator', `${stepType}: ${desc} matched ${count} elements`, { selector: desc, count });
  return { locator, desc, ...(found.fingerprint && { fingerprint: found.fingerprint }) };
}

/** count (+ fingerprint) in one call; a navigation in flight can destroy the context once, so it retries once. */
async function probe(locator: PwLocator, stepType: string, desc: string, fingerprint: boolean): Promise<{ count: number; fingerprint?: Fingerprint }> {
  try {
    return await countAndFingerprint(locator, fingerprint);
  } catch (e) {
    if (BAD_SELECTOR.test(shortMessage(e))) throw locateError(e, stepType, desc);
    return countAndFingerprint(locator, fingerprint).catch((e2: unknown) => {
      throw locateError(e2, stepType, desc);
    });
  }
}

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
