/**
 * Second stage: a learned linear re-ranking of the shortlist (the best candidates by
 * weighted similarity). Besides each feature it sees how the candidate compares with the
 * best of the shortlist on that feature — "has the only exact text match", "is 0.3 behind
 * on position" — which a per-candidate weighted mean cannot express. Coefficients are
 * fitted offline (listwise softmax, fit-rerank.ts) and committed in model-constants.ts.
 */
import { FEATURE_COUNT } from './features.ts';

/** Stage-2 inputs per candidate: feature, presence, feature − shortlist best, score, score − best score. */
export const RERANK_DIM = 3 * FEATURE_COUNT + 2;

/**
 * Builds the stage-2 design matrix (row-major, RERANK_DIM per row) for a shortlist whose
 * feature rows are in `features` (row-major, NaN = missing) and stage-1 scores in `scores`.
 */
export function rerankDesign(features: Float64Array, scores: ArrayLike<number>, count: number): Float64Array {
  const best = new Float64Array(FEATURE_COUNT).fill(-Infinity);
  let bestScore = -Infinity;
  for (let i = 0; i < count; i++) {
    const o = i * FEATURE_COUNT;
    for (let f = 0; f < FEATURE_COUNT; f++) {
      const x = features[o + f];
      if (x === x && x > best[f]) best[f] = x;
    }
    if (scores[i] > bestScore) bestScore = scores[i];
  }
  const X = new Float64Array(count * RERANK_DIM);
  for (let i = 0; i < count; i++) {
    const o = i * FEATURE_COUNT;
    const r = i * RERANK_DIM;
    for (let f = 0; f < FEATURE_COUNT; f++) {
      const x = features[o + f];
      if (x !== x) continue;
      X[r + f] = x;
      X[r + FEATURE_COUNT + f] = 1;
      X[r + 2 * FEATURE_COUNT + f] = x - best[f];
    }
    X[r + 3 * FEATURE_COUNT] = scores[i];
    X[r + 3 * FEATURE_COUNT + 1] = scores[i] - bestScore;
  }
  return X;
}

/** Linear logits of the design rows. */
export function rerankLogits(X: Float64Array, count: number, coefficients: ArrayLike<number>): Float64Array {
  const z = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    let a = 0;
    const r = i * RERANK_DIM;
    for (let k = 0; k < RERANK_DIM; k++) a += coefficients[k] * X[r + k];
    z[i] = a;
  }
  return z;
}
