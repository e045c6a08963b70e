import type { Locator as PwLocator, Page } from 'playwright-core';
import { StepFailure } from '@svc/core/execution/types';
import type { Locator } from '@svc/core/contracts/steps';
import { describeLocator, resolveLocator } from './locators.ts';
import { BAD_SELECTOR, isTimeout, msLeft, shortMessage } from './failures.ts';

export interface Located {
  locator: PwLocator;
  /** The selector as shown in messages. */
  desc: string;
}

/**
 * Strict locate: waits until the locator matches at least one element (at most until
 * min(deadline, now + locateTimeoutMs)), then requires exactly one match. Fails with
 * StepFailure('locator', '<step>: "<selector>" matched N elements') — never 'timeout':
 * an element that never appears is a locator problem, which healing may fix.
 */
export async function locateOne(page: Page, selector: Locator, stepType: string, deadline: number, locateTimeoutMs: number): Promise<Located> {
  const desc = describeLocator(selector);
  if (deadline - Date.now() <= 0) throw new StepFailure('timeout', `${stepType}: ${desc}: no time left to locate the element`);
  const locator = resolveLocator(page, selector);
  const until = Math.min(deadline, Date.now() + locateTimeoutMs);
  try {
    await locator.first().waitFor({ state: 'attached', timeout: msLeft(until) });
  } catch (e) {
    if (!isTimeout(e)) throw locateError(e, stepType, desc);
  }
  const count = await countOf(locator, stepType, desc);
  if (count !== 1) throw new StepFailure('locator', `${stepType}: ${desc} matched ${count} elements`, { selector: desc, count });
  return { locator, desc };
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
