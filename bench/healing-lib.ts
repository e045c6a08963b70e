/**
 * Shared by bench/healing.ts (benchmark + leave-one-site-out cross-validation) and
 * bench/healing-fit.ts (writes the committed model): the dev set in prepared form, the
 * model fit, and the metrics. Fitting sees the answers; ranking never does.
 */
import { readFile } from 'node:fs/promises';
import { fitCalibration, type CalibrationExample } from '../packages/core/src/healing/confidence.ts';
import { FEATURE_COUNT, FEATURES, type FeatureName } from '../packages/core/src/healing/features.ts';
import { fitRerank, type RerankExample } from '../packages/core/src/healing/fit-rerank.ts';
import { fitWeights, type TrainingCase } from '../packages/core/src/healing/fit-weights.ts';
import type { HealingModel } from '../packages/core/src/healing/model.ts';
import { pageContext, type PageContext } from '../packages/core/src/healing/page-context.ts';
import { featureRows, orderBy, stage1 } from '../packages/core/src/healing/pipeline.ts';
import { prepare, type Prepared } from '../packages/core/src/healing/prepare.ts';
import { PRIOR_WEIGHTS } from '../packages/core/src/healing/priors.ts';
import { FULL_SCORING_LIMIT, rankRows, type DetailedRank } from '../packages/core/src/healing/rank.ts';
import { prefilter } from '../packages/core/src/healing/prefilter.ts';
import { weightVector } from '../packages/core/src/healing/pipeline.ts';
import { rerankDesign } from '../packages/core/src/healing/rerank.ts';
import { availableWeight } from '../packages/core/src/healing/scorer.ts';
import { convertSimiloDataset, type ConvertedDataset } from '../packages/core/src/healing/similo-dataset.ts';

export const DATASET = '/work/shared/datasets/healing-dev/similo-dev.json';
export const THRESHOLD = 0.8;
export const SHORTLIST = 30;

export interface DevCase {
  id: string;
  site: string;
  target: Prepared;
  page: DevPage;
  answer: number;
  /** Feature rows of every candidate of the page (row-major), for fitting. */
  rows: Float64Array;
}

export interface DevPage {
  id: string;
  candidates: Prepared[];
  context: PageContext;
}

export async function loadDataset(path = DATASET): Promise<ConvertedDataset> {
  return convertSimiloDataset(JSON.parse(await readFile(path, 'utf8')));
}

export function prepareDev(ds: ConvertedDataset): DevCase[] {
  const pages = new Map<string, DevPage>();
  for (const p of ds.input.pages) {
    const candidates = p.candidates.map(prepare);
    pages.set(p.id, { id: p.id, candidates, context: pageContext(candidates) });
  }
  return ds.input.cases.map((c) => {
    const page = pages.get(c.page)!;
    const target = prepare(c.target);
    const all = page.candidates.map((_, i) => i);
    return { id: c.id, site: ds.sites.get(c.id)!, target, page, answer: ds.answers.get(c.id)!, rows: featureRows(target, page.candidates, all, page.context) };
  });
}

/**
 * What rankPage would return for this case (pre-filter included), from the feature rows
 * computed once in prepareDev; `removeAnswer` ranks the page as if the element were gone.
 */
export function rankCase(c: DevCase, model: HealingModel, opts: { top?: number; removeAnswer?: boolean } = {}): DetailedRank[] {
  const candidates = opts.removeAnswer ? c.page.candidates.map((p, i) => (i === c.answer ? undefined : p)) : c.page.candidates;
  const indices = prefilter(c.target, candidates, weightVector(model), FULL_SCORING_LIMIT);
  const rows = new Float64Array(indices.length * FEATURE_COUNT);
  indices.forEach((ci, j) => rows.set(c.rows.subarray(ci * FEATURE_COUNT, (ci + 1) * FEATURE_COUNT), j * FEATURE_COUNT));
  return rankRows(indices, rows, model, opts.top);
}

const prior = () => Float64Array.from(FEATURES, (f) => PRIOR_WEIGHTS[f]);

/** Fits weights, re-ranker and calibration on `train` (answers used here only). */
export function fitModel(train: readonly DevCase[], opts: { iterations?: number } = {}): HealingModel {
  const iterations = opts.iterations ?? 300;
  const cases: TrainingCase[] = train.map((c) => ({ features: c.rows, count: c.page.candidates.length, answer: c.answer }));
  const w = fitWeights(cases, { prior: prior(), beta: 40, l2: 0.02, iterations });
  const weights = Object.fromEntries(FEATURES.map((f, i) => [f, round4(w[i])])) as Record<FeatureName, number>;
  const wv = Float64Array.from(FEATURES, (f) => weights[f]);

  // Evidence scale: the median weight available when comparing a target with its answer.
  const avail = train.map((c) => availableWeight(c.rows, wv, c.answer * FEATURE_COUNT)).sort((a, b) => a - b);
  const evidenceScale = round4(avail[Math.floor(avail.length / 2)] || 1);

  const examples: RerankExample[] = [];
  for (const c of train) {
    const n = c.page.candidates.length;
    const s1 = stage1(c.rows, n, wv, evidenceScale);
    const short = orderBy(s1.scores, n).slice(0, SHORTLIST);
    const answer = short.indexOf(c.answer);
    if (answer < 0) continue;
    const sub = new Float64Array(short.length * FEATURE_COUNT);
    short.forEach((r, j) => sub.set(c.rows.subarray(r * FEATURE_COUNT, (r + 1) * FEATURE_COUNT), j * FEATURE_COUNT));
    examples.push({ X: rerankDesign(sub, Float64Array.from(short, (r) => s1.scores[r]), short.length), count: short.length, answer });
  }
  const rerank = Array.from(fitRerank(examples, { l2: 1e-3, iterations }), round4);
  const partial: HealingModel = { version: 'fitting', weights, shortlist: SHORTLIST, rerank, calibration: { intercept: 0, score: 0, margin: 0, evidence: 0 }, evidenceScale };

  // Calibration: every case as it is, and again with its answer removed (always wrong).
  const calib: CalibrationExample[] = [];
  for (const c of train) {
    const top = rankCase(c, partial, { top: 1 })[0];
    if (top) calib.push({ score: top.score, margin: top.margin, evidence: top.evidence, correct: top.index === c.answer });
    const top2 = rankCase(c, partial, { top: 1, removeAnswer: true })[0];
    if (top2) calib.push({ score: top2.score, margin: top2.margin, evidence: top2.evidence, correct: false });
  }
  const cal = fitCalibration(calib);
  return {
    ...partial,
    version: '',
    calibration: { intercept: round4(cal.intercept), score: round4(cal.score), margin: round4(cal.margin), evidence: round4(cal.evidence) },
  };
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

export interface CaseResult {
  id: string;
  site: string;
  rank: number; // 0-based rank of the answer (Infinity when not ranked)
  topConfidence: number;
  topCorrect: boolean;
  /** Top confidence when the answer is removed from the page (a heal there is always wrong). */
  removedConfidence: number;
}

export function evaluate(model: HealingModel, cases: readonly DevCase[]): CaseResult[] {
  return cases.map((c) => {
    const ranked = rankCase(c, model);
    const rank = ranked.findIndex((r) => r.index === c.answer);
    const removed = rankCase(c, model, { top: 1, removeAnswer: true })[0];
    return {
      id: c.id,
      site: c.site,
      rank: rank < 0 ? Infinity : rank,
      topConfidence: ranked[0]?.confidence ?? 0,
      topCorrect: ranked[0]?.index === c.answer,
      removedConfidence: removed?.confidence ?? 0,
    };
  });
}

export interface Metrics {
  cases: number;
  top1: number;
  top3: number;
  autoApplyPrecision: number;
  autoApplyCoverage: number;
  /** Share of "element removed" variants that would still have been auto-healed (lower is better). */
  removedAutoApplyRate: number;
}

export function metrics(results: readonly { topCorrect: boolean; rank: number; topConfidence: number; removedConfidence?: number }[]): Metrics {
  const n = results.length || 1;
  const applied = results.filter((r) => r.topConfidence >= THRESHOLD);
  const withRemoved = results.filter((r) => r.removedConfidence !== undefined);
  return {
    cases: results.length,
    top1: results.filter((r) => r.rank === 0).length / n,
    top3: results.filter((r) => r.rank < 3).length / n,
    autoApplyPrecision: applied.length ? applied.filter((r) => r.topCorrect).length / applied.length : 1,
    autoApplyCoverage: applied.length / n,
    removedAutoApplyRate: withRemoved.length ? withRemoved.filter((r) => r.removedConfidence! >= THRESHOLD).length / withRemoved.length : 0,
  };
}

/** Leave-one-site-out: fit on every other site, evaluate on the held-out one, for each site. */
export function crossValidate(cases: readonly DevCase[], onFold?: (site: string, i: number, n: number) => void): CaseResult[] {
  const sites = [...new Set(cases.map((c) => c.site))];
  const out: CaseResult[] = [];
  sites.forEach((site, i) => {
    onFold?.(site, i, sites.length);
    const model = fitModel(cases.filter((c) => c.site !== site));
    out.push(...evaluate(model, cases.filter((c) => c.site === site)));
  });
  return out;
}
