/**
 * The per-attribute similarity features between a target and a candidate. Each is in
 * [0, 1], or NaN when the attribute is missing on either side (the scorer then leaves it
 * out and renormalises, so a sparse record is not punished for what it never had).
 */
import { overlap, positionSimilarity, shapeSimilarity, sizeSimilarity } from './geometry.ts';
import { pathLcs, pathSuffix } from './path-similarity.ts';
import { FLAT_CONTEXT, type PageContext } from './page-context.ts';
import type { Prepared } from './prepare.ts';
import { dice, jaccard, levenshteinRatio, textSimilarity, weightedDice } from './string-similarity.ts';
import { urlSimilarity } from './url-similarity.ts';

export const FEATURES = [
  'tag',
  'tagFamily',
  'id',
  'idFuzzy',
  'name',
  'nameFuzzy',
  'testId',
  'classes',
  'textExact',
  'text',
  'label',
  'accessibleName',
  'ariaLabel',
  'title',
  'placeholder',
  'alt',
  'value',
  'type',
  'role',
  'href',
  'xpath',
  'xpathTail',
  'idXpath',
  'idXpathTail',
  'idAnchor',
  'position',
  'size',
  'overlap',
  'shape',
  'isButton',
  'neighbors',
  'neighborTexts',
  'attributes',
  'tokens',
  'contextTokens',
  'groupTokens',
  'groupLabel',
  'groupTag',
  'groupHref',
  'hasText',
  'hasId',
  'hasHref',
  'hasClasses',
] as const;

export type FeatureName = (typeof FEATURES)[number];
export const FEATURE_COUNT = FEATURES.length;
export const F = Object.fromEntries(FEATURES.map((f, i) => [f, i])) as Record<FeatureName, number>;

const both = (a: string, b: string) => !!a && !!b;
const str = (a: string, b: string, sim: (a: string, b: string) => number) => (both(a, b) ? sim(a, b) : NaN);
const eq = (a: string, b: string) => (a === b ? 1 : 0);
const presence = (a: boolean, b: boolean) => (a === b ? 1 : 0);

function bestLabel(a: string[], b: string[]): number {
  let best = 0;
  for (const x of a) for (const y of b) if ((best = Math.max(best, textSimilarity(x, y))) === 1) return 1;
  return best;
}

/** Fills `out` (length FEATURE_COUNT) with the features of candidate `c` against target `t`. */
export function computeFeatures(t: Prepared, c: Prepared, out: Float64Array, page: PageContext = FLAT_CONTEXT): Float64Array {
  out[F.tag] = str(t.tag, c.tag, eq);
  out[F.tagFamily] = str(t.family, c.family, eq);
  // Two generated ids that differ say nothing; equal ones still identify the element.
  const ids = both(t.id, c.id) && !(t.idGenerated && c.idGenerated && t.id !== c.id);
  out[F.id] = ids ? eq(t.id, c.id) : NaN;
  out[F.idFuzzy] = ids && t.idTokens.size && c.idTokens.size ? Math.max(dice(t.idTokens, c.idTokens), levenshteinRatio(t.id, c.id)) : NaN;
  out[F.name] = str(t.name, c.name, eq);
  out[F.nameFuzzy] = both(t.name, c.name) && t.nameTokens.size && c.nameTokens.size ? Math.max(dice(t.nameTokens, c.nameTokens), levenshteinRatio(t.name, c.name)) : NaN;
  out[F.testId] = str(t.testId, c.testId, levenshteinRatio);
  out[F.classes] = t.classes.size && c.classes.size ? jaccard(t.classes, c.classes) : NaN;
  out[F.textExact] = str(t.text, c.text, eq);
  out[F.text] = both(t.textMasked, c.textMasked) ? textSimilarity(t.textMasked, c.textMasked, t.textWords, c.textWords) : NaN;
  out[F.label] = t.labels.length && c.labels.length ? bestLabel(t.labels, c.labels) : NaN;
  out[F.accessibleName] = str(t.accessibleName, c.accessibleName, textSimilarity);
  out[F.ariaLabel] = str(t.ariaLabel, c.ariaLabel, textSimilarity);
  out[F.title] = str(t.title, c.title, textSimilarity);
  out[F.placeholder] = str(t.placeholder, c.placeholder, textSimilarity);
  out[F.alt] = str(t.alt, c.alt, textSimilarity);
  out[F.value] = str(t.value, c.value, textSimilarity);
  out[F.type] = str(t.type, c.type, eq);
  out[F.role] = str(t.role, c.role, eq);
  out[F.href] = t.href && c.href ? urlSimilarity(t.href, c.href) : NaN;
  out[F.xpath] = t.xpath.length && c.xpath.length ? pathLcs(t.xpath, c.xpath) : NaN;
  out[F.xpathTail] = t.xpath.length && c.xpath.length ? pathSuffix(t.xpath, c.xpath) : NaN;
  out[F.idXpath] = t.idXpath.length && c.idXpath.length ? pathLcs(t.idXpath, c.idXpath) : NaN;
  out[F.idXpathTail] = t.idXpath.length && c.idXpath.length ? pathSuffix(t.idXpath, c.idXpath) : NaN;
  out[F.idAnchor] = both(t.anchor, c.anchor) ? eq(t.anchor, c.anchor) : NaN;
  const boxes = !!t.box && !!c.box;
  out[F.position] = boxes ? positionSimilarity(t.box!, c.box!) : NaN;
  out[F.size] = boxes ? sizeSimilarity(t.box!, c.box!) : NaN;
  out[F.overlap] = boxes ? overlap(t.box!, c.box!) : NaN;
  out[F.shape] = boxes ? shapeSimilarity(t.box!, c.box!) : NaN;
  out[F.isButton] = t.isButton !== undefined && c.isButton !== undefined ? presence(t.isButton, c.isButton) : NaN;
  out[F.neighbors] = t.neighborWords.size && c.neighborWords.size ? dice(t.neighborWords, c.neighborWords) : NaN;
  out[F.neighborTexts] = t.neighborTexts.size && c.neighborTexts.size ? dice(t.neighborTexts, c.neighborTexts) : NaN;
  out[F.attributes] = t.attributes.size && c.attributes.size ? dice(t.attributes, c.attributes) : NaN;
  out[F.tokens] = t.tokens.size && c.tokens.size ? weightedDice(t.tokens, c.tokens, page.idf) : NaN;
  out[F.contextTokens] = t.contextTokens.size && c.contextTokens.size ? weightedDice(t.contextTokens, c.contextTokens, page.idf) : NaN;
  const group = c.group?.length ? c.group : undefined;
  out[F.groupTokens] = group && t.contextTokens.size && c.groupTokens?.size ? weightedDice(t.contextTokens, c.groupTokens, page.idf) : NaN;
  out[F.groupLabel] = NaN;
  out[F.groupTag] = NaN;
  out[F.groupHref] = NaN;
  if (group) {
    let label = t.labels.length && c.labels.length ? bestLabel(t.labels, c.labels) : -1;
    let tag = t.tag ? eq(t.tag, c.tag) : -1;
    let href = t.href && c.href ? urlSimilarity(t.href, c.href) : -1;
    for (const m of group) {
      if (t.labels.length && m.labels.length && label < 1) label = Math.max(label, bestLabel(t.labels, m.labels));
      if (t.tag && m.tag === t.tag) tag = 1;
      if (t.href && m.href && href < 1) href = Math.max(href, urlSimilarity(t.href, m.href));
    }
    if (label >= 0) out[F.groupLabel] = label;
    if (tag >= 0) out[F.groupTag] = tag;
    if (href >= 0) out[F.groupHref] = href;
  }
  out[F.hasText] = presence(!!t.text, !!c.text);
  out[F.hasId] = presence(!!t.id, !!c.id);
  out[F.hasHref] = presence(!!t.href, !!c.href);
  out[F.hasClasses] = presence(t.classes.size > 0, c.classes.size > 0);
  return out;
}
