/**
 * Cheap pre-filter for huge pages: a handful of constant-time comparisons (equalities, a
 * class-set overlap, the last path steps, distance) rank every candidate, and only the
 * best few hundred get the full feature set. Keeps a 10,000-element page well under a
 * second while the element being healed, which agrees with the target on some of these,
 * is kept.
 */
import { F } from './features.ts';
import { positionSimilarity } from './geometry.ts';
import { pathSuffix } from './path-similarity.ts';
import type { Prepared } from './prepare.ts';
import { jaccard } from './string-similarity.ts';

export function cheapScore(t: Prepared, c: Prepared, w: ArrayLike<number>): number {
  let num = 0;
  let den = 0;
  const add = (f: number, x: number) => {
    num += w[f] * x;
    den += w[f];
  };
  if (t.tag && c.tag) add(F.tag, t.tag === c.tag ? 1 : 0);
  if (t.family && c.family) add(F.tagFamily, t.family === c.family ? 1 : 0);
  if (t.id && c.id) add(F.id, t.id === c.id ? 1 : 0);
  if (t.name && c.name) add(F.name, t.name === c.name ? 1 : 0);
  if (t.testId && c.testId) add(F.testId, t.testId === c.testId ? 1 : 0);
  if (t.text && c.text) add(F.textExact, t.textMasked === c.textMasked ? 1 : 0);
  if (t.classes.size && c.classes.size) add(F.classes, jaccard(t.classes, c.classes));
  if (t.anchor && c.anchor) add(F.idAnchor, t.anchor === c.anchor ? 1 : 0);
  if (t.xpath.length && c.xpath.length) add(F.xpathTail, pathSuffix(t.xpath, c.xpath));
  if (t.box && c.box) add(F.position, positionSimilarity(t.box, c.box));
  add(F.hasText, !!t.text === !!c.text ? 1 : 0);
  return den > 0 ? num / den : 0;
}

/** Indices of the `keep` best candidates by cheapScore (all of them when there are few). */
export function prefilter(t: Prepared, candidates: readonly (Prepared | undefined)[], w: ArrayLike<number>, keep: number): number[] {
  const idx: number[] = [];
  for (let i = 0; i < candidates.length; i++) if (candidates[i]) idx.push(i);
  if (idx.length <= keep) return idx;
  const s = new Float64Array(candidates.length);
  for (const i of idx) s[i] = cheapScore(t, candidates[i]!, w);
  idx.sort((a, b) => s[b] - s[a] || a - b);
  return idx.slice(0, keep).sort((a, b) => a - b);
}

