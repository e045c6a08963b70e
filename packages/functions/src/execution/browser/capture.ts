import type { Page } from 'playwright-core';
import type { Locator } from '@svc/core/contracts/steps';
import type { Fingerprint } from '@svc/core/contracts/fingerprint';
import type { StepContext, VisualCapture } from '@svc/core/execution/types';
import { actionFailure, msLeft, throwIfAborted, withSignal } from './failures.ts';
import { locateOne } from './locate.ts';
import { resolveLocator } from './locators.ts';

/**
 * A screenshot for a visual assertion, taken the way comparisons stay stable: CSS
 * animations and transitions finished, the text caret hidden, masked elements painted
 * over, CSS pixels (deviceScaleFactor is 1 anyway). The element, when given, is located
 * strictly first, so a missing one is a locator failure like any other step's, and its
 * fingerprint is read in the same call (a later run can heal a broken selector from it).
 */
export async function captureForComparison(page: Page, o: VisualCapture, ctx: StepContext, locateTimeoutMs: number): Promise<{ png: Uint8Array; fingerprint?: Fingerprint }> {
  throwIfAborted(ctx.signal, 'visual');
  return withSignal(capture(page, o, ctx, locateTimeoutMs), ctx.signal, 'visual');
}

async function capture(page: Page, o: VisualCapture, ctx: StepContext, locateTimeoutMs: number): Promise<{ png: Uint8Array; fingerprint?: Fingerprint }> {
  const mask = (o.mask ?? []).map((m: Locator) => resolveLocator(page, m));
  const shotOptions = { animations: 'disabled' as const, caret: 'hide' as const, scale: 'css' as const, type: 'png' as const, mask };
  if (o.selector !== undefined) {
    const { locator, desc, fingerprint } = await locateOne(page, o.selector, 'visual', ctx.deadline, locateTimeoutMs, true);
    const timeout = msLeft(ctx.deadline);
    try {
      return { png: new Uint8Array(await locator.screenshot({ ...shotOptions, timeout })), ...(fingerprint && { fingerprint }) };
    } catch (e) {
      throw actionFailure(e, `visual: ${desc}`, timeout, ctx.signal);
    }
  }
  const timeout = msLeft(ctx.deadline);
  try {
    return { png: new Uint8Array(await page.screenshot({ ...shotOptions, fullPage: o.fullPage, timeout })) };
  } catch (e) {
    throw actionFailure(e, 'visual: page', timeout, ctx.signal);
  }
}
