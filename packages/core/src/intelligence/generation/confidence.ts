/**
 * confidence_score of a generated test: how sure the generator was (the grammar's
 * certainty, the share of a recording converted) combined with what its one execution
 * showed. A pass is strong evidence, a failure is strong counter-evidence, and a test
 * that could not be executed keeps a discounted generator confidence.
 *
 * A pass is evidence only when the test could have failed: a test that checks nothing
 * (no assertion: it passes as long as no step throws) or none that catches what it is for
 * (a regression test that cannot see its error) is `weak`, and scores as low as a failed
 * one whatever its run did — a goto to a 404 page scored 1 (found by QA).
 */
export type ExecutionOutcome = 'passed' | 'failed' | 'not_executed';

export function confidenceScore(generator: number, outcome: ExecutionOutcome, o: { weak?: boolean } = {}): number {
  const g = Math.min(1, Math.max(0, generator));
  const score = o.weak || outcome === 'failed' ? 0.3 * g : outcome === 'passed' ? 0.5 + 0.5 * g : 0.6 * g;
  return Math.round(score * 1000) / 1000;
}

/** The review's no-assertions rule: no assert step and no trailing assertion. */
export function checksNothing(test: { steps: ReadonlyArray<{ type: string }>; assertions?: ReadonlyArray<unknown> }): boolean {
  return !test.steps.some((s) => s.type === 'assert') && !(test.assertions?.length ?? 0);
}
