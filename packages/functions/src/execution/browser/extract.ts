import type { Page } from 'playwright-core';
import { EXTRACT_MAX_ITEMS, type ExtractField } from '@svc/core/contracts/steps';
import { StepFailure, type ExtractedValue, type PageSnapshot, type StepContext } from '@svc/core/execution/types';
import { actionFailure, isTimeout, msLeft, throwIfAborted } from './failures.ts';
import { countOf, locateOne } from './locate.ts';
import { describeLocator, resolveLocator } from './locators.ts';

/**
 * An extract step's fields read from the page, in order: each field's element located as
 * strictly as an action's (exactly one; it may appear within the locate window), then its
 * visible text (innerText, trimmed) or the attribute asked for — null when the element has
 * no such attribute. With `all`, every match in document order, at least one. Every
 * failure names the field: `extract field "price": "#price" matched 0 elements`.
 */
export async function extractFields(page: Page, fields: Record<string, ExtractField>, ctx: StepContext, locateTimeoutMs: number): Promise<Record<string, ExtractedValue>> {
  const out: Record<string, ExtractedValue> = {};
  for (const [name, field] of Object.entries(fields)) {
    throwIfAborted(ctx.signal, 'extract');
    try {
      out[name] = field.all ? await readAll(page, name, field, ctx, locateTimeoutMs) : await readOne(page, name, field, ctx, locateTimeoutMs);
    } catch (e) {
      if (e instanceof StepFailure) throw new StepFailure(e.kind, e.message, { ...e.details, field: name });
      throw e;
    }
  }
  return out;
}

const what = (name: string) => `extract field ${JSON.stringify(name)}`;
const clean = (text: string) => text.trim();

async function readOne(page: Page, name: string, field: ExtractField, ctx: StepContext, locateTimeoutMs: number): Promise<string | null> {
  const { locator, desc } = await locateOne(page, field.selector, what(name), ctx.deadline, locateTimeoutMs);
  const t = msLeft(ctx.deadline);
  try {
    return field.attribute !== undefined ? await locator.getAttribute(field.attribute, { timeout: t }) : clean(await locator.innerText({ timeout: t }));
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
