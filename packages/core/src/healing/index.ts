/** Self-healing relocation engine: fingerprints in, ranked candidates with calibrated confidence out. */
export { Fingerprint, Box } from '../contracts/fingerprint.ts';
export { parseFingerprint, isEmptyFingerprint } from './parse-fingerprint.ts';
export { rankCandidates, rankPage, MAX_CANDIDATES, type RankOptions, type RankedCandidate, type RankResult } from './rank.ts';
export { replacementSelector, type ReplacementSelector, type SelectorProposal, type SelectorStrategy } from './selector.ts';
export { confidence, type CalibrationParams } from './confidence.ts';
export { DEFAULT_MODEL } from './model-constants.ts';
export type { HealingModel } from './model.ts';
export type { RankInput, RankPage, RankCase } from './rank-input.ts';
export { similoToFingerprint, convertSimiloDataset } from './similo-dataset.ts';
export { FEATURES, type FeatureName } from './features.ts';
export { exact, levenshtein, levenshteinRatio, jaccard, dice, textSimilarity } from './string-similarity.ts';
export { pathLcs, pathSuffix, parseXpath } from './path-similarity.ts';
export { urlSimilarity, parseUrl } from './url-similarity.ts';
export { positionSimilarity, sizeSimilarity, overlap, shapeSimilarity } from './geometry.ts';
export { sanitize, MAX_FIELD_CHARS } from './text.ts';
