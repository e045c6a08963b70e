/**
 * Calibrated confidence that a ranked candidate is the element the target fingerprint was
 * recorded from. It is a logistic function of signals that each enter with a non-negative
 * coefficient, so confidence only grows with them (monotone):
 *  - score: the candidate's own similarity,
 *  - margin: how far its score is ahead of the best other candidate (in [-1, 1]; negative for a runner-up;
 *    0 when two candidates are indistinguishable, so duplicates are never auto-healed),
 *  - evidence: how much attribute weight the comparison rested on (a match on tag alone
 *    is worth less than a match on tag, text, id and position),
 *  - uniqueId: 1 when the candidate is the only one on the page whose test id, name or id
 *    equals the target's (an identifier that survived the redesign and points at one element),
 *  - uniqueLabel: 1 when it is the only one whose accessible name, label, placeholder or text
 *    equals the target's,
 *  - label: its best label / accessible-name similarity to the target,
 *  - labelMargin: that similarity minus the best of the other shortlisted candidates,
 *  - distinct: 1 when no other element of the page looks the same (same tag, type, role,
 *    text and accessible name, digits masked) — a "Delete" button repeated in every row of a
 *    table, or page links "1", "2", "3", are not distinct, and picking the right one of
 *    look-alikes after a redesign rests on position alone.
 * The last four are what runtime fingerprints carry and the Similo records mostly lack, so a
 * model has two parameter sets: `calibration` for sparse records (fitted on the Similo dev
 * set, using the first three) and `runtimeCalibration` for fingerprints captured by the
 * runner (fitted on real-driver captures of generated redesigns). Both are fitted with
 * "element removed" variants labelled wrong, so a missing element's nearest neighbour does
 * not earn a high confidence. See bench/healing-fit.ts and docs/healing.md.
 */

export interface CalibrationParams {
  intercept: number;
  score: number;
  margin: number;
  evidence: number;
  uniqueId?: number;
  uniqueLabel?: number;
  label?: number;
  labelMargin?: number;
  distinct?: number;
}

/** What the calibration weighs: one signal per calibration parameter (all but the intercept). */
export type ConfidenceSignals = Omit<CalibrationParams, 'intercept'>;

/** The signal names, in the order of signalVector (intercept excluded). */
export const SIGNALS = ['score', 'margin', 'evidence', 'uniqueId', 'uniqueLabel', 'label', 'labelMargin', 'distinct'] as const;
export type SignalName = (typeof SIGNALS)[number];

/** Inputs to the logistic, in SIGNALS order (a signal not computed counts as 0). */
export const signalVector = (s: ConfidenceSignals): number[] => [
  s.score,
  s.margin,
  Math.min(1, s.evidence),
  s.uniqueId ?? 0,
  s.uniqueLabel ?? 0,
  s.label ?? 0,
  s.labelMargin ?? 0,
  s.distinct ?? 0,
];

export function confidence(s: ConfidenceSignals, p: CalibrationParams): number {
  const x = signalVector(s);
  let z = p.intercept;
  SIGNALS.forEach((name, k) => (z += (p[name] ?? 0) * x[k]));
  const c = 1 / (1 + Math.exp(-z));
  return Number.isFinite(c) ? c : 0;
}

/** One calibration example: the signals of a top-ranked candidate and whether it was right. */
export interface CalibrationExample extends ConfidenceSignals {
  correct: boolean;
  /** Relative weight of the example (default 1). */
  weight?: number;
}

export interface FitCalibrationOptions {
  iterations?: number;
  l2?: number;
  /** Signals the fit may use (default: score, margin, evidence); the others keep coefficient 0. */
  signals?: readonly SignalName[];
}

/**
 * Maximum-likelihood logistic fit with the monotonicity constraint (projected gradient:
 * the slopes are kept ≥ 0) and a small ridge penalty.
 */
export function fitCalibration(examples: readonly CalibrationExample[], opts: FitCalibrationOptions = {}): CalibrationParams {
  const iterations = opts.iterations ?? 3000;
  const l2 = opts.l2 ?? 1e-3;
  const used = new Set<SignalName>(opts.signals ?? ['score', 'margin', 'evidence']);
  const active = [0, ...SIGNALS.map((n, k) => (used.has(n) ? k + 1 : -1)).filter((k) => k > 0)];
  const dim = SIGNALS.length + 1;
  const th = new Array<number>(dim).fill(0);
  const m = new Array<number>(dim).fill(0);
  const v = new Array<number>(dim).fill(0);
  const lr = 0.05;
  let total = 0;
  for (const e of examples) total += e.weight ?? 1;
  if (!total) return { intercept: -10, score: 0, margin: 0, evidence: 0 };
  const xs = examples.map((e) => [1, ...signalVector(e)]);
  for (let it = 1; it <= iterations; it++) {
    const g = new Array<number>(dim).fill(0);
    examples.forEach((e, i) => {
      const x = xs[i];
      let z = 0;
      for (const k of active) z += th[k] * x[k];
      const p = 1 / (1 + Math.exp(-z));
      const d = ((p - (e.correct ? 1 : 0)) * (e.weight ?? 1)) / total;
      for (const k of active) g[k] += d * x[k];
    });
    for (const k of active) {
      const gk = g[k] + (k ? l2 * th[k] : 0);
      m[k] = 0.9 * m[k] + 0.1 * gk;
      v[k] = 0.999 * v[k] + 0.001 * gk * gk;
      th[k] -= (lr * (m[k] / (1 - 0.9 ** it))) / (Math.sqrt(v[k] / (1 - 0.999 ** it)) + 1e-8);
      if (k) th[k] = Math.max(0, th[k]);
    }
  }
  const out: CalibrationParams = { intercept: th[0], score: th[1], margin: th[2], evidence: th[3] };
  SIGNALS.forEach((n, k) => {
    if (k > 2 && used.has(n)) out[n] = th[k + 1];
  });
  return out;
}
