import type { UiStep } from '@svc/core/contracts/steps';
import type { Fingerprint } from '@svc/core/contracts/fingerprint';
import { StepFailure, type StepContext } from '@svc/core/execution/types';
import { actionFailure, msLeft, shortMessage } from './failures.ts';
import { describeLocator } from './locators.ts';
import { fingerprintAt } from './fingerprint.ts';
import type { StepEnv } from './perform-step.ts';

type PointStep = Extract<UiStep, { type: 'click' | 'dblclick' | 'hover' | 'fill' }>;

/** What the model is asked to find: the step's own name when it has one, and the selector that failed. */
export function visionDescription(step: PointStep): string {
  const target = describeLocator(step.selector);
  const verb = { click: 'click', dblclick: 'double-click', hover: 'hover over', fill: 'type into' }[step.type];
  return `${step.name ? `${step.name}. ` : ''}The element to ${verb}, which the selector ${target} used to find.`;
}

/**
 * Hybrid execution (spec rule 6): after a 'locator' failure, screenshot → vision model →
 * coordinates → mouse action. Still a 'locator' failure when no model is configured, when
 * the model finds nothing confident enough, or when it runs out of time — so healing can
 * take over; the original message is kept and, when a model was asked, the reason appended
 * (without a model the message is the locator's alone; details.vision says why).
 */
export async function visionFallback(
  env: StepEnv,
  step: PointStep,
  failure: StepFailure,
  ctx: StepContext,
  deadline: number,
  atPoint: (x: number, y: number) => Promise<unknown>,
): Promise<{ fingerprint?: Fingerprint }> {
  const fail = (why: string) => new StepFailure('locator', `${failure.message}; ${why}`, { ...failure.details, vision: why });
  // No model, no fallback asked for: the locator's own error, as the issue has it (details still say why).
  if (!env.vision) throw new StepFailure('locator', failure.message, { ...failure.details, vision: 'no vision model is configured for a coordinates fallback' });
  if (deadline - Date.now() <= 0) throw fail('no time left for the vision fallback');

  const viewport = env.page.viewportSize() ?? { width: 1280, height: 720 };
  let shot: Uint8Array | undefined;
  try {
    shot = await env.screenshot({ timeout: msLeft(deadline) }, ctx);
  } catch (e) {
    throw fail(`vision fallback could not take a screenshot (${shortMessage(e)})`);
  }
  if (!shot) throw fail('vision fallback skipped: the per-run screenshot cap is reached');

  let hit: Awaited<ReturnType<NonNullable<StepEnv['vision']>['locate']>>;
  let timer: NodeJS.Timeout | undefined;
  try {
    hit = await Promise.race([
      env.vision.locate({ screenshot: shot, description: visionDescription(step), viewport }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), msLeft(deadline));
      }),
    ]);
  } catch (e) {
    ctx.log('warn', `${step.type}: vision fallback failed: ${shortMessage(e)}`);
    throw fail(`vision fallback failed (${shortMessage(e)})`);
  } finally {
    clearTimeout(timer);
  }
  if (!hit) throw fail('the vision model did not find the element');
  if (!(hit.confidence >= env.visionMinConfidence)) throw fail(`the vision model's answer has confidence ${hit.confidence}, below ${env.visionMinConfidence}`);
  const { x, y } = hit;
  if (!(x >= 0 && y >= 0 && x < viewport.width && y < viewport.height)) throw fail(`the vision model answered (${x}, ${y}), outside the ${viewport.width}x${viewport.height} viewport`);

  ctx.log('info', `${step.type}: ${describeLocator(step.selector)} located by vision at (${Math.round(x)}, ${Math.round(y)}), confidence ${hit.confidence}`);
  const fingerprint = await fingerprintAt(env.page, x, y);
  // Listening before the action: a click may start a navigation at once.
  const navigated = env.vision.verify ? env.page.waitForEvent('framenavigated', { timeout: Math.max(1, Math.min(NAVIGATION_WAIT_MS, msLeft(deadline))) }).then(() => true, () => false) : undefined;
  const t = msLeft(deadline);
  try {
    await atPoint(x, y);
  } catch (e) {
    throw actionFailure(e, `${step.type}: at (${Math.round(x)}, ${Math.round(y)})`, t, ctx.signal);
  }
  if (navigated) await verifyNewState(env, step, { x, y, before: shot, viewport, navigated }, ctx, deadline, fail);
  return fingerprint ? { fingerprint } : {};
}

const DONE_VERB = { click: 'clicked', dblclick: 'double-clicked', hover: 'hovered over', fill: 'typed into' } as const;

/** How long an action may take to start a navigation, and a started one to load, before the second screenshot. */
const NAVIGATION_WAIT_MS = 750;
const SETTLE_MS = 3_000;

/**
 * The optional visual verification of the new state (spec rule 6): a screenshot after the
 * action and the one before go to the model, which says whether the action visibly had
 * its effect. A point beside the element usually changes nothing, which a later assertion
 * would only catch far from its cause. No verdict (an error, no time, the screenshot cap)
 * or a doubtful one fails the step as a locator failure: an action nobody could confirm
 * is not reported as done.
 */
async function verifyNewState(
  env: StepEnv,
  step: PointStep,
  done: { x: number; y: number; before: Uint8Array; viewport: { width: number; height: number }; navigated: Promise<boolean> },
  ctx: StepContext,
  deadline: number,
  fail: (why: string) => StepFailure,
): Promise<void> {
  const at = `(${Math.round(done.x)}, ${Math.round(done.y)})`;
  if (await done.navigated) await env.page.waitForLoadState('load', { timeout: Math.max(1, Math.min(SETTLE_MS, msLeft(deadline))) }).catch(() => {});
  let after: Uint8Array | undefined;
  try {
    after = await env.screenshot({ timeout: msLeft(deadline) }, ctx);
  } catch (e) {
    throw fail(`acted at ${at} but could not take the screenshot to verify it (${shortMessage(e)})`);
  }
  if (!after) throw fail(`acted at ${at} but could not verify it: the per-run screenshot cap is reached`);
  let timer: NodeJS.Timeout | undefined;
  let verdict: { done: boolean; confidence: number; reason: string };
  try {
    verdict = await Promise.race([
      env.vision!.verify!({ before: done.before, after, action: `${visionDescription(step)} It was ${DONE_VERB[step.type]} at ${at}.`, viewport: done.viewport }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), msLeft(deadline));
      }),
    ]);
  } catch (e) {
    throw fail(`acted at ${at} but the verification of the new state failed (${shortMessage(e)})`);
  } finally {
    clearTimeout(timer);
  }
  if (!verdict.done || !(verdict.confidence >= env.visionMinConfidence)) {
    const why = verdict.reason ? `: ${verdict.reason}` : '';
    throw fail(`acted at ${at} but the vision model did not see the expected change (confidence ${verdict.confidence})${why}`);
  }
  ctx.log('info', `${step.type}: the new state after acting at ${at} verified by vision, confidence ${verdict.confidence}${verdict.reason ? ` (${verdict.reason})` : ''}`);
}
