/**
 * Calibrated confidence that a ranked candidate is the element the target fingerprint was
 * recorded from. It is a logistic function of three signals, each entering with a
 * non-negative coefficient so confidence only grows with them (monotone):
 *  - score: the candidate's own similarity,
 *  - margin: how far its score is ahead of the best other candidate (in [-1, 1]; negative for a runner-up;
 *    0 when two candidates are indistinguishable, so duplicates are never auto-healed),
 *  - evidence: how much attribute weight the comparison rested on (a match on tag alone
 *    is worth less than a match on tag, text, id and position).
 * The coefficients are fitted on the dev set plus its "element removed" variants (each
 * case again without its right answer, labelled wrong), so a missing element's nearest
 * neighbour does not earn a high confidence. See bench/healing-fit.ts and docs/healing.md.
 */

export interface CalibrationParams {
  intercept: number;
  score: number;
  margin: number;
  evidence: number;
}

export interface ConfidenceSignals {
  score: number;
  margin: number;
  evidence: number;
}

/** Inputs to the logistic, in the order of `CalibrationParams` minus the intercept. */
export const signalVector = (s: ConfidenceSignals): [number, number, number] => [s.score, s.margin, Math.min(1, s.evidence)];

export function confidence(s: ConfidenceSignals, p: CalibrationParams): number {
  const [score, margin, evidence] = signalVector(s);
  const z = p.intercept + p.score * score + p.margin * margin + p.evidence * evidence;
  const c = 1 / (1 + Math.exp(-z));
  return Number.isFinite(c) ? c : 0;
}

/** One calibration example: the signals of a top-ranked candidate and whether it was right. */
export interface CalibrationExample extends ConfidenceSignals {
  correct: boolean;
  /** Relative weight of the example (default 1). */
  weight?: number;
}

/**
 * Maximum-likelihood logistic fit with the monotonicity constraint (projected gradient:
 * the three slopes are kept ≥ 0) and a small ridge penalty.
 */
export function fitCalibration(examples: readonly CalibrationExample[], iterations = 3000, l2 = 1e-3): CalibrationParams {
  const th = [0, 0, 0, 0];
  const m = [0, 0, 0, 0];
  const v = [0, 0, 0, 0];
  const lr = 0.05;
  let total = 0;
  for (const e of examples) total += e.weight ?? 1;
  if (!total) return { intercept: -10, score: 0, margin: 0, evidence: 0 };
  for (let it = 1; it <= iterations; it++) {
    const g = [0, 0, 0, 0];
    for (const e of examples) {
      const x = [1, ...signalVector(e)];
      let z = 0;
      for (let k = 0; k < 4; k++) z += th[k] * x[k];
      const p = 1 / (1 + Math.exp(-z));
      const d = ((p - (e.correct ? 1 : 0)) * (e.weight ?? 1)) / total;
      for (let k = 0; k < 4; k++) g[k] += d * x[k];
    }
    for (let k = 0; k < 4; k++) {
      const gk = g[k] + (k ? l2 * th[k] : 0);
      m[k] = 0.9 * m[k] + 0.1 * gk;
      v[k] = 0.999 * v[k] + 0.001 * gk * gk;
      th[k] -= (lr * (m[k] / (1 - 0.9 ** it))) / (Math.sqrt(v[k] / (1 - 0.999 ** it)) + 1e-8);
      if (k) th[k] = Math.max(0, th[k]);
    }
  }
  return { intercept: th[0], score: th[1], margin: th[2], evidence: th[3] };
}
