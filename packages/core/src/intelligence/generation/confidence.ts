/**
 * confidence_score of a generated test: how sure the generator was (the grammar's
 * certainty, the share of a recording converted) combined with what its one execution
 * showed. A pass is strong evidence, a failure is strong counter-evidence, and a test
 * that could not be executed keeps a discounted generator confidence.
 */
export type ExecutionOutcome = 'passed' | 'failed' | 'not_executed';

export function confidenceScore(generator: number, outcome: ExecutionOutcome): number {
  const g = Math.min(1, Math.max(0, generator));
  const score = outcome === 'passed' ? 0.5 + 0.5 * g : outcome === 'failed' ? 0.3 * g : 0.6 * g;
  return Math.round(score * 1000) / 1000;
}
