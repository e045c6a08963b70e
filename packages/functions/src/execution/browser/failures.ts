import { errors } from 'playwright-core';
import { StepFailure, type StepContext } from '@svc/core/execution/types';
import { raceAbort } from '../../shared/race-abort.ts';

/**
 * Deadlines, cancellation and the mapping of Playwright errors to StepFailure kinds.
 * The rule that matters for healing: 'locator' only when an element was not found (or not
 * exactly one matched); running out of time anywhere else is 'timeout' (CONVENTIONS 6).
 */

/** The step's deadline: the context's, shortened by the step's own timeout_ms. */
export function stepDeadline(step: { timeout_ms?: number }, ctx: StepContext, cap?: number): number {
  const own = step.timeout_ms ?? cap;
  return own === undefined ? ctx.deadline : Math.min(ctx.deadline, Date.now() + own);
}

/** Milliseconds left until the deadline, at least 1 (Playwright treats 0 as "no timeout"). */
export const msLeft = (deadline: number): number => Math.max(1, Math.floor(deadline - Date.now()));

export const isTimeout = (e: unknown): boolean => e instanceof errors.TimeoutError;

/** The first line of a Playwright error, without the "Call log:" and the API prefix ("locator.click: "). */
export function shortMessage(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  const line = text.split('\n').find((l) => l.trim() !== '') ?? text;
  return line.replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, '').trim();
}

export function throwIfAborted(signal: AbortSignal, what: string): void {
  if (signal.aborted) throw new StepFailure('cancelled', `${what}: cancelled`);
}

/** Rejects with StepFailure('cancelled') as soon as the signal aborts. */
export function withSignal<T>(work: Promise<T>, signal: AbortSignal, what: string): Promise<T> {
  return raceAbort(work, signal, () => new StepFailure('cancelled', `${what}: cancelled`));
}

export { sleep } from '../../shared/sleep.ts';

const WRONG_ELEMENT = /not an <input>|not an? <select>|not a checkbox|not an input element|not an HTMLInputElement|Element is not an|Node is not an|Cannot type text into input|Input of type .* cannot be filled|is not a <select>|Cannot uncheck radio|not a file input/i;
export const BAD_SELECTOR = /Unexpected token|is not a valid selector|Unknown engine|Failed to parse|Unsupported token|is not a valid XPath|Invalid role/i;

/** What Playwright's call log says an action was waiting for, in words, by the line it writes. */
const WAITED_FOR: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [/element is not enabled/, () => 'the element stayed disabled'],
  [/element is not visible/, () => 'the element stayed hidden (not visible)'],
  [/element is not editable/, () => 'the element stayed read-only (not editable)'],
  [/element is not stable/, () => 'the element kept moving (an animation?)'],
  [/element is outside of the viewport/, () => 'the element stayed outside the page (it cannot be scrolled into view)'],
  [/(<.*>) (?:from <.*> subtree )?intercepts pointer events/, (m) => `another element covers it: ${m[1]!.slice(0, 200)}`],
];

const HIDDEN = /stayed hidden/;

/**
 * Why a located element's action timed out, from the last state the call log reports
 * ("element is not enabled" → "the element stayed disabled"); undefined when it says none.
 * A bare "timed out after 1972 ms" left a tester guessing (found by QA).
 */
function whyItWaited(e: unknown): string | undefined {
  const log = e instanceof Error ? e.message.split('\n') : [];
  for (let i = log.length - 1; i >= 0; i--) {
    for (const [pattern, say] of WAITED_FOR) {
      const m = pattern.exec(log[i]!);
      if (m) return say(m);
    }
  }
  return undefined;
}

/**
 * Maps an error thrown while acting on an element that WAS located.
 * @param what e.g. `click: "#buy"` — the message prefix naming the step and the selector.
 */
export function actionFailure(e: unknown, what: string, timeoutMs: number, signal?: AbortSignal): StepFailure {
  if (e instanceof StepFailure) return e;
  if (signal?.aborted) return new StepFailure('cancelled', `${what}: cancelled`);
  const msg = shortMessage(e);
  if (isTimeout(e)) {
    const why = whyItWaited(e);
    // Still there but never shown: the locator may now point at the wrong element (the app shows
    // another one), so it is a locator failure, which healing may answer, not a bare timeout.
    const kind = why && HIDDEN.test(why) ? 'locator' : 'timeout';
    return new StepFailure(kind, `${what}: timed out after ${timeoutMs} ms ${why ? `— ${why}` : `(${msg})`}`, why ? { waited_for: why } : undefined);
  }
  const strict = /strict mode violation: .* resolved to (\d+) elements/.exec(e instanceof Error ? e.message : '');
  if (strict) return new StepFailure('locator', `${what} matched ${strict[1]} elements`, { count: Number(strict[1]) });
  if (WRONG_ELEMENT.test(msg)) return new StepFailure('locator', `${what}: the element cannot take this action (${msg})`);
  if (BAD_SELECTOR.test(msg)) return new StepFailure('locator', `${what}: invalid selector (${msg})`);
  if (/Unknown key/i.test(msg)) return new StepFailure('unsupported', `${what}: ${msg}`);
  const net = /net::ERR_[A-Z_]+/.exec(msg);
  if (net) return new StepFailure('navigation', `${what}: ${net[0]} (${msg})`);
  return new StepFailure('internal', `${what}: ${msg}`);
}

