/**
 * Combines the similarity features of one candidate into a score in [0, 1]: a weighted
 * mean over the features present on BOTH sides, normalised by the weight that was
 * available — so a record that never had an id or a box is neither punished nor helped.
 */
import { FEATURE_COUNT } from './features.ts';

/** Weighted mean of the present (non-NaN) features; 0 when nothing is comparable. */
export function combine(features: ArrayLike<number>, weights: ArrayLike<number>, offset = 0): number {
  let num = 0;
  let den = 0;
  for (let f = 0; f < FEATURE_COUNT; f++) {
    const x = features[offset + f];
    if (x !== x) continue; // NaN: missing on one side
    const w = weights[f];
    num += w * x;
    den += w;
  }
  return den > 0 ? num / den : 0;
}

/** The weight that was available for this candidate (how much evidence the score rests on). */
export function availableWeight(features: ArrayLike<number>, weights: ArrayLike<number>, offset = 0): number {
  let den = 0;
  for (let f = 0; f < FEATURE_COUNT; f++) if (features[offset + f] === features[offset + f]) den += weights[f];
  return den;
}
