/**
 * Relocation: rank a page's elements against the stored fingerprint of an element that
 * a locator no longer finds. Best first, each with a score and a calibrated confidence;
 * the caller auto-applies a heal only at or above its threshold (0.8 by default).
 */
import type { Fingerprint } from '../contracts/fingerprint.ts';
import { DEFAULT_MODEL } from './model-constants.ts';
import type { HealingModel } from './model.ts';
import { pageContext, type PageContext } from './page-context.ts';
import { isEmptyFingerprint, parseFingerprint } from './parse-fingerprint.ts';
import { confidenceOf, featureRows, finalOrder, type RankedRow, stage1, weightVector } from './pipeline.ts';
import { prefilter } from './prefilter.ts';
import { prepare, type Prepared } from './prepare.ts';

/** Candidates past this many are ignored (with a note). */
export const MAX_CANDIDATES = 20_000;
/** Pages larger than this are pre-filtered cheaply before full scoring. */
export const FULL_SCORING_LIMIT = 400;

export interface RankOptions {
  model?: HealingModel;
  /** Return at most this many entries (default: every scored candidate). */
  top?: number;
  maxCandidates?: number;
  fullScoringLimit?: number;
}

export interface RankedCandidate {
  /** Index into the candidates array as given. */
  index: number;
  /** Ranking score in [0, 1], best first. */
  score: number;
  /** Calibrated probability in [0, 1] that this candidate is the target element. */
  confidence: number;
}

export interface RankResult {
  ranked: RankedCandidate[];
  /** Things the caller should know (candidates ignored, malformed entries skipped). */
  notes: string[];
  /** Set when nothing could be ranked because the target itself is unusable. */
  error?: string;
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * Ranks candidates (possibly untrusted JSON) against a target (possibly untrusted JSON).
 * Never throws on bad data: an unusable target gives an empty ranking with `error`;
 * malformed candidates are skipped (indices still refer to the array as given).
 */
export function rankPage(target: unknown, candidates: readonly unknown[], opts: RankOptions = {}): RankResult {
  const model = opts.model ?? DEFAULT_MODEL;
  const notes: string[] = [];
  const fp = parseFingerprint(target);
  if (!fp) return { ranked: [], notes, error: 'target is not a fingerprint object' };
  if (isEmptyFingerprint(fp)) return { ranked: [], notes, error: 'target fingerprint is empty' };
  const list = Array.isArray(candidates) ? candidates : [];
  const max = opts.maxCandidates ?? MAX_CANDIDATES;
  if (list.length > max) notes.push(`page has ${list.length} candidates; only the first ${max} were considered`);
  const prepared: (Prepared | undefined)[] = [];
  let skipped = 0;
  for (let i = 0; i < Math.min(list.length, max); i++) {
    const c = parseFingerprint(list[i]);
    if (c && !isEmptyFingerprint(c)) prepared.push(prepare(c));
    else {
      prepared.push(undefined);
      skipped++;
    }
  }
  if (skipped) notes.push(`${skipped} candidate(s) were empty or not fingerprint objects and were skipped`);
  const page = pageContext(prepared.filter((c): c is Prepared => !!c));
  const ranked = rankDetailed(prepare(fp), prepared, page, model, opts).map((r) => ({
    index: r.index,
    score: round(r.value),
    confidence: round(r.confidence),
  }));
  return { ranked, notes };
}

/** Ranks well-formed fingerprints; see rankPage for untrusted input. */
export function rankCandidates(target: Fingerprint, candidates: readonly Fingerprint[], opts: RankOptions = {}): RankedCandidate[] {
  return rankPage(target, candidates, opts).ranked;
}

/** A ranked entry with the signals its confidence came from (for fitting and diagnostics). */
export interface DetailedRank extends RankedRow {
  index: number;
  confidence: number;
}

/**
 * The ranking on prepared candidates (undefined entries are skipped) with a page context
 * built by the caller; used by rankPage and by the offline fitting and evaluation.
 */
export function rankDetailed(
  t: Prepared,
  candidates: readonly (Prepared | undefined)[],
  page: PageContext,
  model: HealingModel,
  opts: RankOptions = {},
): DetailedRank[] {
  const indices = prefilter(t, candidates, weightVector(model), opts.fullScoringLimit ?? FULL_SCORING_LIMIT);
  if (!indices.length) return [];
  const runtime = t.runtime ? { distinct: distinctness(candidates), nameIdentifies: t.type !== 'radio' } : undefined;
  return rankRows(indices, featureRows(t, candidates, indices, page), model, opts.top, runtime);
}

/** What only runtime fingerprints get (see confidence.ts): look-alike detection, and whether the target's `name` identifies it. */
export interface RuntimeContext {
  distinct: (index: number) => number;
  nameIdentifies: boolean;
}

/** What makes two elements look the same to a user: kind, text and accessible name (digits masked). */
const lookKey = (c: Prepared) => `${c.tag}|${c.type}|${c.role}|${c.textMasked}|${c.accessibleName}`;

/** 1 for a candidate with no look-alike on the page, 0 for one of several (see confidence.ts `distinct`). */
function distinctness(candidates: readonly (Prepared | undefined)[]): (index: number) => number {
  const counts = new Map<string, number>();
  for (const c of candidates) if (c) counts.set(lookKey(c), (counts.get(lookKey(c)) ?? 0) + 1);
  return (i) => (candidates[i] && counts.get(lookKey(candidates[i]!)) === 1 ? 1 : 0);
}

/**
 * The ranking from feature rows already computed for the candidates at `indices` (features
 * do not depend on the model, so the fitting code computes them once and reuses them).
 */
export function rankRows(
  indices: readonly number[],
  rows: Float64Array,
  model: HealingModel,
  top = Infinity,
  /** Set for fingerprints captured by a runner: their confidence uses the runtime calibration. */
  runtime?: RuntimeContext,
): DetailedRank[] {
  const s1 = stage1(rows, indices.length, weightVector(model), model.evidenceScale);
  const ranked = finalOrder(rows, s1, indices.length, model, runtime?.nameIdentifies ?? true);
  const out: DetailedRank[] = [];
  for (let k = 0; k < Math.min(ranked.length, top); k++) {
    const r = ranked[k];
    const index = indices[r.row];
    if (runtime) r.distinct = runtime.distinct(index);
    out.push({ ...r, index, confidence: confidenceOf(r, model, !!runtime) });
  }
  return out;
}
