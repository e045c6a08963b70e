import type { StepContext } from '@svc/core/execution/types';
import { StepFailure } from '@svc/core/execution/types';
import type { UiSession } from '@svc/core/execution/types';
import type { UiAssertion, UiStep } from '@svc/core/contracts/steps';
import { UiAssertion as UiAssertionSchema, UiStep as UiStepSchema } from '@svc/core/contracts/steps';

export interface LogLine {
  level: string;
  message: string;
}

/** A step context with a deadline ms from now; log lines go to `logs`. */
export function ctx(ms = 15_000, logs: LogLine[] = [], signal: AbortSignal = new AbortController().signal): StepContext {
  return { signal, deadline: Date.now() + ms, log: (level, message) => logs.push({ level, message }) };
}

/** Steps and assertions go through the product's own schemas, as the runner's would. */
export const step = (s: unknown): UiStep => UiStepSchema.parse(s);
export const assertion = (a: unknown): UiAssertion => UiAssertionSchema.parse(a);

/** Runs fn and returns the StepFailure it throws (fails the test if it does not). */
export async function failure(fn: () => Promise<unknown>): Promise<StepFailure> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof StepFailure) return e;
    throw new Error(`expected a StepFailure, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
  throw new Error('expected a StepFailure, but the call succeeded');
}

export async function run(session: UiSession, steps: unknown[], ms = 15_000): Promise<void> {
  for (const s of steps) await session.perform(step(s), ctx(ms));
}
