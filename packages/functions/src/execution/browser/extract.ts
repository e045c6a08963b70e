import type { Page } from 'playwright-core';
import { EXTRACT_MAX_ITEMS, type ExtractField } from '@svc/core/contracts/steps';
import type { Fingerprint } from '@svc/core/contracts/fingerprint';
import { StepFailure, type ExtractedValue, type PageSnapshot, type StepContext } from '@svc/core/execution/types';
import { actionFailure, isTimeout, msLeft, throwIfAborted } from './failures.ts';
import { countOf, locateAndRead } from './locate.ts';
import { describeLocator, resolveLocator } from './locators.ts';
import { captureFingerprint, FOLLOW_UP_MS } from './fingerprint.ts';

/**
 * One field of an extract step read from the page: its element located as strictly as an
 * action's (exactly one; it may appear within the locate window), then its visible text
 * (innerText, trimmed) or the attribute asked for — null when the element has no such
 * attribute — read with the element's fingerprint in the same round trip, so a later run
 * whose selector breaks can heal it. With `all`, every match in document order, at least
 * one (no fingerprint). Every failure names the field:
 * `extract field "price": "#price" matched 0 elements`.
 */
export async function extractField(page: Page, name: string, field: ExtractField, ctx: StepContext, locateTimeoutMs: number): Promise<{ value: ExtractedValue; fingerprint?: Fingerprint }> {
  throwIfAborted(ctx.signal, 'extract');
  try {
    return field.all ? { value: await readAll(page, name, field, ctx, locateTimeoutMs) } : await readOne(page, name, field, ctx, locateTimeoutMs);
  } catch (e) {
    if (e instanceof StepFailure) throw new StepFailure(e.kind, e.message, { ...e.details, field: name });
    throw e;
  }
}

const what = (name: string) => `extract field ${JSON.stringify(name)}`;
const clean = (text: string) => text.trim();

async function readOne(page: Page, name: string, field: ExtractField, ctx: StepContext, locateTimeoutMs: number): Promise<{ value: string | null; fingerprint?: Fingerprint }> {
  const { locator, desc, read } = await locateAndRead(page, field.selector, what(name), ctx.deadline, locateTimeoutMs, field.attribute);
  const text = (v: string | null) => (field.attribute !== undefined ? v : clean(v ?? ''));
  if (read) return { value: text(read.value), ...(read.fingerprint && { fingerprint: read.fingerprint }) };
  // Not an (X)HTML element (an SVG <text>, say): Playwright's own read, and the fingerprint apart.
  const t = msLeft(ctx.deadline);
  try {
    const value = field.attribute !== undefined ? await locator.getAttribute(field.attribute, { timeout: t }) : clean(await locator.innerText({ timeout: t }));
    const fingerprint = await captureFingerprint(locator, Math.min(FOLLOW_UP_MS, msLeft(ctx.deadline)));
    return { value, ...(fingerprint && { fingerprint }) };
  } catch (e) {
    throw actionFailure(e, `${what(name)}: ${desc}`, t, ctx.signal);
  }
}

async function readAll(page: Page, name: string, field: ExtractField, ctx: StepContext, locateTimeoutMs: number): Promise<Array<string | null>> {
  const desc = describeLocator(field.selector);
  const locator = resolveLocator(page, field.selector);
  let count = await countOf(locator, what(name), desc);
  if (count === 0) {
    // Rows rendered by script may come a moment after the load: wait as a strict locate would.
    const t = msLeft(Math.min(ctx.deadline, Date.now() + locateTimeoutMs));
    try {
      await locator.first().waitFor({ state: 'attached', timeout: t });
    } catch (e) {
      if (!isTimeout(e)) throw actionFailure(e, `${what(name)}: ${desc}`, t, ctx.signal);
    }
    count = await countOf(locator, what(name), desc);
  }
  if (count === 0) throw new StepFailure('locator', `${what(name)}: ${desc} matched 0 elements`, { selector: desc, count });
  if (count > EXTRACT_MAX_ITEMS) throw new StepFailure('assertion', `${what(name)}: ${desc} matched ${count} elements, over the cap of ${EXTRACT_MAX_ITEMS}: narrow the selector`, { selector: desc, count });
  const t = msLeft(ctx.deadline);
  try {
    if (field.attribute === undefined) return (await locator.allInnerTexts()).map(clean);
    const values: Array<string | null> = [];
    for (let i = 0; i < count; i++) values.push(await locator.nth(i).getAttribute(field.attribute, { timeout: msLeft(ctx.deadline) }));
    return values;
  } catch (e) {
    throw actionFailure(e, `${what(name)}: ${desc}`, t, ctx.signal);
  }
}

/**
 * The page as a model reads it for extraction: Playwright's accessibility snapshot of the
 * body (roles, accessible names, visible text, table structure — nothing hidden, no
 * markup), or its visible text when the snapshot cannot be taken; cut at maxChars.
 */
export async function pageSnapshot(page: Page, maxChars: number, ctx: StepContext): Promise<PageSnapshot> {
  const t = msLeft(ctx.deadline);
  let text: string;
  try {
    text = await page.locator('body').ariaSnapshot({ timeout: t });
  } catch (e) {
    if (ctx.signal.aborted) throw actionFailure(e, 'extract: reading the page', t, ctx.signal);
    try {
      text = await page.locator('body').innerText({ timeout: msLeft(ctx.deadline) });
    } catch (e2) {
      throw actionFailure(e2, 'extract: reading the page', t, ctx.signal);
    }
  }
  return { text: text.slice(0, maxChars), chars: text.length, truncated: text.length > maxChars };
}
