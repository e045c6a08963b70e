import { MAX_TEST_TIMEOUT_MS, type Step } from '../../contracts/steps.ts';

/** Generated tests get a short budget: a wrong guess should fail fast, not after 10 minutes. */
export const GENERATED_TEST_TIMEOUT_MS = 60_000;

/**
 * The timeout of a generated test: the short budget plus the fixed waits it holds, at most
 * the 10-minute maximum. A "wait 90 seconds" (or a recorded waitForTimeout(90000)) inside a
 * one-minute test could never pass (found by QA).
 */
export function generatedTimeout(steps: readonly Step[]): number {
  const waits = steps.reduce((sum, s) => sum + (s.type === 'wait-for' && typeof s.ms === 'number' ? s.ms : 0), 0);
  return Math.min(MAX_TEST_TIMEOUT_MS, GENERATED_TEST_TIMEOUT_MS + waits);
}
