import type { Page } from 'playwright-core';
import type { Locator } from '@svc/core/contracts/steps';
import type { Fingerprint } from '@svc/core/contracts/fingerprint';
import type { AxeScan } from '@svc/core/contracts/accessibility';
import { StepFailure, type AccessibilityScanRequest, type StepContext } from '@svc/core/execution/types';
import { msLeft, throwIfAborted, withSignal } from './failures.ts';
import { countOf, locateOne } from './locate.ts';
import { describeLocator, resolveLocator } from './locators.ts';
import { engineRead, FINGERPRINT, FOLLOW_UP_MS, parseFingerprint } from './fingerprint.ts';
import { AxeOptionsError, runAxe } from './axe.ts';
import { IsolatedWorldError } from './isolated-world.ts';

/** Elements left out per exclude locator (a locator matching hundreds is a mistake, not a list). */
const MAX_EXCLUDED_PER_LOCATOR = 20;

/**
 * An accessibility check in Chromium: the scope element, when given, is located strictly
 * (a missing one is a locator failure that healing may repair, and its fingerprint is read
 * in the same call), the excluded elements are found, and axe-core runs in an isolated
 * world (axe.ts). Elements are handed to axe by their absolute XPath, read by the
 * fingerprint engine: the isolated world cannot see Playwright's handles.
 */
export async function scanAccessibility(page: Page, req: AccessibilityScanRequest, ctx: StepContext, locateTimeoutMs: number): Promise<{ scan: AxeScan; fingerprint?: Fingerprint }> {
  throwIfAborted(ctx.signal, 'accessibility');
  return withSignal(scan(page, req, ctx, locateTimeoutMs), ctx.signal, 'accessibility');
}

async function scan(page: Page, req: AccessibilityScanRequest, ctx: StepContext, locateTimeoutMs: number): Promise<{ scan: AxeScan; fingerprint?: Fingerprint }> {
  let include: string | undefined;
  let fingerprint: Fingerprint | undefined;
  const scope = req.selector !== undefined ? describeLocator(req.selector) : undefined;
  if (req.selector !== undefined) {
    const located = await locateOne(page, req.selector, 'accessibility', ctx.deadline, locateTimeoutMs, true);
    fingerprint = located.fingerprint;
    include = fingerprint?.xpath;
    if (!include) throw new StepFailure('internal', `accessibility: ${scope}: the element was found but could not be read`);
  }
  const exclude = (await Promise.all((req.exclude ?? []).map((l) => xpathsOf(page, l)))).flat();
  let result: AxeScan | undefined;
  try {
    result = await runAxe(page, { include, exclude, tags: req.tags, disableRules: req.disableRules }, msLeft(ctx.deadline));
  } catch (e) {
    if (ctx.signal.aborted) throw new StepFailure('cancelled', 'accessibility: cancelled');
    const message = e instanceof Error ? e.message : String(e);
    if (e instanceof IsolatedWorldError && /no answer within/.test(message)) throw new StepFailure('timeout', `accessibility: axe-core did not finish before the step's deadline (${message})`);
    if (e instanceof AxeOptionsError) throw new StepFailure('configuration', `accessibility: axe-core has no such rules: ${message}`);
    throw new StepFailure('internal', `accessibility: axe-core failed: ${message}`);
  }
  if (!result) throw new StepFailure('unsupported', `accessibility: ${scope} was found but axe cannot reach it from the document (is it inside a shadow root?)`);
  return { scan: result, ...(fingerprint && { fingerprint }) };
}

/** The absolute XPaths of what an exclude locator matches now (none is fine: nothing to leave out). */
async function xpathsOf(page: Page, l: Locator): Promise<string[]> {
  const locator = resolveLocator(page, l);
  const count = Math.min(await countOf(locator, 'accessibility exclude', describeLocator(l)), MAX_EXCLUDED_PER_LOCATOR);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const fp = parseFingerprint(await engineRead(locator.nth(i), FINGERPRINT, FOLLOW_UP_MS).catch(() => null));
    if (fp?.xpath) out.push(fp.xpath);
  }
  return out;
}
