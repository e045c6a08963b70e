/**
 * The ranking pipeline on prepared fingerprints, step by step, so the fitting code can
 * reuse every intermediate: features of each candidate → stage-1 weighted similarity →
 * shortlist → stage-2 re-ranking → confidence signals.
 */
import { confidence, type ConfidenceSignals } from './confidence.ts';
import { computeFeatures, F, FEATURE_COUNT, FEATURES } from './features.ts';
import type { HealingModel } from './model.ts';
import type { PageContext } from './page-context.ts';
import type { Prepared } from './prepare.ts';
import { rerankDesign, rerankLogits } from './rerank.ts';
import { availableWeight, combine } from './scorer.ts';

export const weightVector = (model: HealingModel): Float64Array => Float64Array.from(FEATURES, (f) => model.weights[f]);

/** Feature rows (row-major) of the candidates at `indices`. */
export function featureRows(t: Prepared, candidates: readonly (Prepared | undefined)[], indices: readonly number[], page: PageContext): Float64Array {
  const rows = new Float64Array(indices.length * FEATURE_COUNT);
  const row = new Float64Array(FEATURE_COUNT);
  indices.forEach((ci, j) => {
    computeFeatures(t, candidates[ci]!, row, page);
    rows.set(row, j * FEATURE_COUNT);
  });
  return rows;
}

export interface Stage1 {
  scores: Float64Array;
  evidence: Float64Array;
}

export function stage1(rows: Float64Array, count: number, w: Float64Array, evidenceScale: number): Stage1 {
  const scores = new Float64Array(count);
  const evidence = new Float64Array(count);
  for (let j = 0; j < count; j++) {
    scores[j] = combine(rows, w, j * FEATURE_COUNT);
    evidence[j] = Math.min(1, availableWeight(rows, w, j * FEATURE_COUNT) / evidenceScale);
  }
  return { scores, evidence };
}

/** Row numbers sorted by score (desc), ties by row number (document order). */
export const orderBy = (scores: ArrayLike<number>, count: number): number[] =>
  Array.from({ length: count }, (_, j) => j).sort((a, b) => scores[b] - scores[a] || a - b);

/** One entry of the final order, in row numbers, with what confidence is computed from. */
export interface RankedRow extends ConfidenceSignals {
  row: number;
  /** Reported score in [0, 1]: the re-ranker's softmax share within the shortlist (stage-1 similarity without a re-ranker). */
  value: number;
  /** What the final order sorts by. */
  logit: number;
}

/**
 * Final order of all rows: the shortlist re-ranked by stage 2 first, then the rest by
 * stage-1 score. Margins are measured against the best other shortlisted row.
 */
export function finalOrder(rows: Float64Array, s1: Stage1, count: number, model: HealingModel, nameIdentifies = true): RankedRow[] {
  const order = orderBy(s1.scores, count);
  const short = order.slice(0, Math.max(1, model.shortlist));
  const rest = order.slice(short.length);
  let logits: Float64Array;
  let values: Float64Array;
  if (model.rerank && short.length) {
    const sub = new Float64Array(short.length * FEATURE_COUNT);
    const subScores = new Float64Array(short.length);
    short.forEach((r, j) => {
      sub.set(rows.subarray(r * FEATURE_COUNT, (r + 1) * FEATURE_COUNT), j * FEATURE_COUNT);
      subScores[j] = s1.scores[r];
    });
    logits = rerankLogits(rerankDesign(sub, subScores, short.length), short.length, model.rerank);
    const max = Math.max(...logits);
    let sum = 0;
    values = logits.map((z) => Math.exp(z - max));
    for (const v of values) sum += v;
    values = values.map((v) => v / sum);
  } else {
    logits = Float64Array.from(short, (r) => s1.scores[r]);
    values = Float64Array.from(short, (r) => s1.scores[r]);
  }
  // Margin of each shortlisted row against the best other one, in reported-score units
  // (softmax shares, bounded in [-1, 1]); a lone candidate is measured against nothing (0).
  let best = -Infinity;
  let second = -Infinity;
  for (const v of values) {
    if (v > best) [best, second] = [v, best];
    else if (v > second) second = v;
  }
  const ranked: RankedRow[] = short.map((r, j) => {
    const other = values[j] === best ? second : best;
    const margin = values[j] - (other === -Infinity ? 0 : other);
    return { row: r, value: values[j], logit: logits[j], score: s1.scores[r], margin, evidence: s1.evidence[r] };
  });
  addAgreementSignals(ranked, rows, count, nameIdentifies ? ID_FEATURES : GROUP_ID_FEATURES);
  ranked.sort((a, b) => b.logit - a.logit || a.row - b.row);
  for (const r of rest) ranked.push({ row: r, value: 0, logit: -Infinity, score: s1.scores[r], margin: -1, evidence: s1.evidence[r] });
  return ranked;
}

/** Identifiers: equal on the target and exactly one scored candidate → that candidate is pointed at. */
const ID_FEATURES = [F.testId, F.name, F.id];
/** For radio buttons `name` names the group (every option shares it), not the element. */
const GROUP_ID_FEATURES = [F.testId, F.id];
/** Descriptions a user reads: accessible name, placeholder, visible text. */
const LABEL_FEATURES = [F.accessibleName, F.placeholder, F.textExact];

/**
 * How well the row's description matches: the accessible name when both sides have one
 * (what a user reads), else the best of any label-like string. Not `label` first: it also
 * compares `value`, which for every checkbox of a page is the same "1" or "on".
 */
const labelOf = (rows: Float64Array, r: number) => {
  const a = rows[r * FEATURE_COUNT + F.accessibleName];
  if (a === a) return a;
  const l = rows[r * FEATURE_COUNT + F.label];
  return l === l ? l : 0;
};

/**
 * The agreement signals of the shortlisted rows (see confidence.ts): whether a row is the
 * only one of all scored rows with an exact identifier or label match, its label similarity,
 * and that similarity's margin over the best other shortlisted row.
 */
function addAgreementSignals(ranked: RankedRow[], rows: Float64Array, count: number, idFeatures: number[]): void {
  const exactCount = (f: number) => {
    let n = 0;
    for (let r = 0; r < count; r++) if (rows[r * FEATURE_COUNT + f] === 1) n++;
    return n;
  };
  const idCounts = idFeatures.map(exactCount);
  const labelCounts = LABEL_FEATURES.map(exactCount);
  const unique = (r: number, features: number[], counts: number[]) => (features.some((f, k) => counts[k] === 1 && rows[r * FEATURE_COUNT + f] === 1) ? 1 : 0);
  const labels = ranked.map((x) => labelOf(rows, x.row));
  let best = -1;
  let second = -1;
  for (const l of labels) {
    if (l > best) [best, second] = [l, best];
    else if (l > second) second = l;
  }
  ranked.forEach((x, j) => {
    x.uniqueId = unique(x.row, idFeatures, idCounts);
    x.uniqueLabel = unique(x.row, LABEL_FEATURES, labelCounts);
    x.label = labels[j];
    const other = labels[j] === best ? second : best;
    x.labelMargin = labels[j] - Math.max(0, other);
  });
}

/** Confidence of a ranked row: fingerprints captured by the runner use the runtime calibration when the model has one. */
export const confidenceOf = (r: ConfidenceSignals, model: HealingModel, runtime = false) =>
  confidence(r, runtime && model.runtimeCalibration ? model.runtimeCalibration : model.calibration);
