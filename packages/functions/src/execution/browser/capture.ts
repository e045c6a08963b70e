import type { Page, PageScreenshotOptions } from 'playwright-core';
import type { Locator } from '@svc/core/contracts/steps';
import type { Fingerprint } from '@svc/core/contracts/fingerprint';
import { StepFailure, type StepContext, type VisualCapture } from '@svc/core/execution/types';
import { MAX_SLICE_PX, MAX_STITCHED_PX, slices, stitchVertically } from '@svc/core/visual/stitch';
import { actionFailure, BAD_SELECTOR, msLeft, throwIfAborted, withSignal } from './failures.ts';
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
      throw maskFailure(e, o) ?? actionFailure(e, `visual: ${desc}`, timeout, ctx.signal);
    }
  }
  const timeout = msLeft(ctx.deadline);
  try {
    return { png: await pageScreenshot(page, { ...shotOptions, fullPage: o.fullPage }, ctx.deadline) };
  } catch (e) {
    throw maskFailure(e, o) ?? actionFailure(e, 'visual: page', timeout, ctx.signal);
  }
}

/**
 * A mask selector that is not valid fails the capture: said as the mask's fault (a
 * configuration failure, nothing to heal), not as the page's ("not healed: a visual step
 * is not healed" sent a tester looking at the wrong thing; found by QA).
 */
function maskFailure(e: unknown, o: VisualCapture): StepFailure | undefined {
  const message = e instanceof Error ? e.message.split('\n')[0]! : String(e);
  if (!o.mask?.length || !BAD_SELECTOR.test(message)) return undefined;
  return new StepFailure('configuration', `visual: a mask selector is not valid (mask: ${o.mask.map((m) => JSON.stringify(m)).join(', ')}): ${message}`);
}

/**
 * A screenshot of the page; a full page taller than Chromium captures in one piece is taken
 * in slices and stitched (stitch.ts says why). A page too tall even for that fails, saying
 * what to compare instead, rather than comparing a picture that is not the page.
 */
export async function pageScreenshot(page: Page, options: Omit<PageScreenshotOptions, 'timeout' | 'path' | 'clip'>, deadline: number): Promise<Uint8Array> {
  const whole = new Uint8Array(await page.screenshot({ type: 'png', ...options, timeout: msLeft(deadline) }));
  if (!options.fullPage) return whole;
  const { width, height } = pngSize(whole);
  if (height <= MAX_SLICE_PX) return whole;
  if (height > MAX_STITCHED_PX) throw new StepFailure('configuration', `the page is ${height} px tall; a full-page screenshot covers at most ${MAX_STITCHED_PX} px: take an element (selector) or the viewport (full_page false)`, { height });
  const parts: Uint8Array[] = [];
  for (const slice of slices(height)) {
    parts.push(new Uint8Array(await page.screenshot({ type: 'png', ...options, clip: { x: 0, y: slice.y, width, height: slice.height }, timeout: msLeft(deadline) })));
  }
  return stitchVertically(parts);
}

/** A PNG's size from its IHDR chunk (bytes 16–23), without decoding it. */
function pngSize(png: Uint8Array): { width: number; height: number } {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}
