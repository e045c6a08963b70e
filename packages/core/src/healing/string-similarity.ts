/**
 * Similarities of strings and token sets, all in [0, 1] (1 = same). Callers pass
 * already-normalised text (see text.ts); these functions never throw.
 */

/** Above this length Levenshtein is not computed (quadratic); token measures take over. */
export const MAX_EDIT_CHARS = 120;

/** 1 when equal, else 0. */
export const exact = (a: string, b: string): number => (a === b ? 1 : 0);

let rowA = new Int32Array(MAX_EDIT_CHARS + 1);
let rowB = new Int32Array(MAX_EDIT_CHARS + 1);

/** Levenshtein edit distance (code units). */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (!a.length) return b.length;
  if (!b.length) return a.length;
  if (b.length > a.length) [a, b] = [b, a];
  const n = b.length;
  if (rowA.length <= n) {
    rowA = new Int32Array(n + 1);
    rowB = new Int32Array(n + 1);
  }
  let prev = rowA;
  let cur = rowB;
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1;
      const del = prev[j] + 1;
      const ins = cur[j - 1] + 1;
      const sub = prev[j - 1] + cost;
      cur[j] = del < ins ? (del < sub ? del : sub) : ins < sub ? ins : sub;
    }
    const t = prev;
    prev = cur;
    cur = t;
  }
  return prev[n];
}

/**
 * 1 − distance / longer length, for strings up to MAX_EDIT_CHARS; longer strings fall back
 * to the Dice coefficient of their character bigrams (linear time).
 */
export function levenshteinRatio(a: string, b: string): number {
  if (a === b) return 1;
  const longer = Math.max(a.length, b.length);
  if (!longer) return 1;
  if (longer > MAX_EDIT_CHARS) return bigramDice(a, b);
  return 1 - levenshtein(a, b) / longer;
}

/** Dice coefficient of character-bigram multisets. */
export function bigramDice(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const counts = new Map<string, number>();
  for (let i = 0; i < a.length - 1; i++) {
    const g = a.slice(i, i + 2);
    counts.set(g, (counts.get(g) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i < b.length - 1; i++) {
    const g = b.slice(i, i + 2);
    const c = counts.get(g);
    if (c) {
      shared++;
      counts.set(g, c - 1);
    }
  }
  return (2 * shared) / (a.length - 1 + (b.length - 1));
}

/** |A ∩ B| / |A ∪ B|; two empty sets count as equal. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (!a.size && !b.size) return 1;
  const inter = intersectionSize(a, b);
  return inter / (a.size + b.size - inter);
}

/** 2|A ∩ B| / (|A| + |B|); two empty sets count as equal. */
export function dice(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (!a.size && !b.size) return 1;
  return (2 * intersectionSize(a, b)) / (a.size + b.size);
}

/** |A ∩ B| / min(|A|, |B|): 1 when one set contains the other. */
export function overlapCoefficient(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (!a.size || !b.size) return a.size === b.size ? 1 : 0;
  return intersectionSize(a, b) / Math.min(a.size, b.size);
}

/**
 * Dice with per-token weights (e.g. inverse document frequency over the page), so a shared
 * rare word counts more than a shared "the".
 */
export function weightedDice(a: ReadonlySet<string>, b: ReadonlySet<string>, weight: (t: string) => number): number {
  if (!a.size && !b.size) return 1;
  let wa = 0;
  let wb = 0;
  let shared = 0;
  for (const t of a) {
    const w = weight(t);
    wa += w;
    if (b.has(t)) shared += w;
  }
  for (const t of b) wb += weight(t);
  return wa + wb > 0 ? (2 * shared) / (wa + wb) : 0;
}

export function intersectionSize(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const [small, big] = a.size <= b.size ? [a, b] : [b, a];
  let n = 0;
  for (const t of small) if (big.has(t)) n++;
  return n;
}

/**
 * Similarity of two human texts: exact → 1; otherwise the better of the edit ratio and
 * word Dice, so both typos ("Sign in" / "Sign-in") and reordering ("Log in now" / "Now log
 * in") score well.
 */
export function textSimilarity(a: string, b: string, aWords?: ReadonlySet<string>, bWords?: ReadonlySet<string>): number {
  if (a === b) return 1;
  if (!a || !b) return 0;
  const ed = levenshteinRatio(a, b);
  const wa = aWords ?? new Set(a.match(/[\p{L}\p{N}]+/gu) ?? []);
  const wb = bWords ?? new Set(b.match(/[\p{L}\p{N}]+/gu) ?? []);
  const wd = wa.size && wb.size ? dice(wa, wb) : 0;
  return Math.max(ed, wd);
}
