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
 * take over; the original message is kept and the reason appended.
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
  if (!env.vision) throw fail('no vision model is configured for a coordinates fallback');
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
  const t = msLeft(deadline);
  try {
    await atPoint(x, y);
  } catch (e) {
    throw actionFailure(e, `${step.type}: at (${Math.round(x)}, ${Math.round(y)})`, t, ctx.signal);
  }
  return fingerprint ? { fingerprint } : {};
}
