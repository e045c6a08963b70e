/**
 * Offline fitting of the attribute weights (a listwise learning-to-rank objective): for
 * each training case the candidates' scores go through a softmax with sharpness `beta`,
 * and the log-probability of the right candidate is maximised. Weights stay positive
 * (fitted in log space) and are pulled towards the priors, so attributes that are rare in
 * the training data keep sensible values. Pure arithmetic; used by bench/healing-fit.ts to
 * produce the committed constants and by the cross-validation in bench/healing.ts.
 */
import { FEATURE_COUNT } from './features.ts';

/** One training case: the candidates' feature rows (row-major, NaN = missing) and the right row. */
export interface TrainingCase {
  features: Float64Array;
  count: number;
  answer: number;
}

export interface FitOptions {
  prior: ArrayLike<number>;
  /** Softmax sharpness applied to scores in [0, 1]. */
  beta?: number;
  iterations?: number;
  learningRate?: number;
  /** Strength of the pull of log-weights towards log-priors. */
  l2?: number;
}

export function fitWeights(cases: readonly TrainingCase[], opts: FitOptions): Float64Array {
  const beta = opts.beta ?? 40;
  const iterations = opts.iterations ?? 300;
  const lr = opts.learningRate ?? 0.05;
  const l2 = opts.l2 ?? 0.02;
  const logPrior = Float64Array.from({ length: FEATURE_COUNT }, (_, f) => Math.log(opts.prior[f]));
  const theta = Float64Array.from(logPrior);
  const m = new Float64Array(FEATURE_COUNT);
  const v = new Float64Array(FEATURE_COUNT);
  const grad = new Float64Array(FEATURE_COUNT);
  const w = new Float64Array(FEATURE_COUNT);
  let maxCount = 0;
  for (const c of cases) maxCount = Math.max(maxCount, c.count);
  const scores = new Float64Array(maxCount);
  const dens = new Float64Array(maxCount);
  const probs = new Float64Array(maxCount);
  for (let it = 1; it <= iterations; it++) {
    for (let f = 0; f < FEATURE_COUNT; f++) w[f] = Math.exp(theta[f]);
    grad.fill(0);
    for (const c of cases) {
      const { features: x, count } = c;
      let max = -Infinity;
      for (let i = 0; i < count; i++) {
        let num = 0;
        let den = 0;
        const o = i * FEATURE_COUNT;
        for (let f = 0; f < FEATURE_COUNT; f++) {
          const xf = x[o + f];
          if (xf !== xf) continue;
          num += w[f] * xf;
          den += w[f];
        }
        scores[i] = den > 0 ? num / den : 0;
        dens[i] = den;
        if (scores[i] > max) max = scores[i];
      }
      let z = 0;
      for (let i = 0; i < count; i++) z += probs[i] = Math.exp(beta * (scores[i] - max));
      for (let i = 0; i < count; i++) {
        const g = (beta * (probs[i] / z - (i === c.answer ? 1 : 0))) / cases.length; // dL/ds_i
        if (Math.abs(g) < 1e-9 || dens[i] <= 0) continue;
        const o = i * FEATURE_COUNT;
        for (let f = 0; f < FEATURE_COUNT; f++) {
          const xf = x[o + f];
          if (xf !== xf) continue;
          // ds/dθ_f = w_f (x_f − s) / den
          grad[f] += (g * w[f] * (xf - scores[i])) / dens[i];
        }
      }
    }
    for (let f = 0; f < FEATURE_COUNT; f++) {
      const gf = grad[f] + l2 * (theta[f] - logPrior[f]);
      m[f] = 0.9 * m[f] + 0.1 * gf;
      v[f] = 0.999 * v[f] + 0.001 * gf * gf;
      const mh = m[f] / (1 - 0.9 ** it);
      const vh = v[f] / (1 - 0.999 ** it);
      theta[f] -= (lr * mh) / (Math.sqrt(vh) + 1e-8);
    }
  }
  return Float64Array.from(theta, Math.exp);
}
