/**
 * The healing model: everything the ranker learned, as plain data. The committed default
 * is in model-constants.ts (written by bench/healing-fit.ts); tests and the
 * cross-validation pass their own.
 */
import type { CalibrationParams } from './confidence.ts';
import type { FeatureName } from './features.ts';

export interface HealingModel {
  /** Identifies the fitted constants (recorded in reports, keys caches). */
  version: string;
  /** Stage 1: attribute weights of the weighted-mean similarity. */
  weights: Record<FeatureName, number>;
  /** Stage 2: how many stage-1 leaders are re-ranked. */
  shortlist: number;
  /** Stage 2: linear coefficients over rerankDesign rows; absent = stage 1 order. */
  rerank?: readonly number[];
  /** Confidence for sparse records (no role, accessible name, test id or attribute map): logistic over similarity, margin and evidence (confidence.ts). */
  calibration: CalibrationParams;
  /** Confidence for fingerprints captured by the runner (they carry labels, roles, test ids); falls back to `calibration` when absent. */
  runtimeCalibration?: CalibrationParams;
  /** Available attribute weight at which evidence counts as complete (evidence = min(1, w / scale)). */
  evidenceScale: number;
}
