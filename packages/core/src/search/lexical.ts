/**
 * The word side of search ranking. Embeddings (especially the local hashing one, and any
 * model on rare identifiers) can blur an exact selector or error code into its
 * neighbours; this score keeps "#checkout-btn" or "ERR_CONNECTION_REFUSED" on top when
 * the text contains them.
 */

const STOP = new Set(['a', 'an', 'the', 'and', 'or', 'of', 'to', 'in', 'on', 'at', 'for', 'with', 'is', 'are', 'be', 'it', 'this', 'that', 'by', 'as', 'from']);

/** Lower-case words; camelCase, snake_case, kebab-case and punctuation split; digits kept (404 is not 500). */
export function words(text: string): string[] {
  return text
    .normalize('NFKC')
    .replace(/([\p{Ll}\d])(\p{Lu})/gu, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w && !STOP.has(w))
    .slice(0, 5000);
}

/** A corpus's document frequencies, for IDF weights. */
export interface Corpus {
  docs: number;
  df: Map<string, number>;
}

export function corpusOf(texts: string[]): Corpus {
  const df = new Map<string, number>();
  for (const t of texts) for (const w of new Set(words(t))) df.set(w, (df.get(w) ?? 0) + 1);
  return { docs: texts.length, df };
}

/** BM25's IDF (always positive): a word in every document still counts a little. */
export function idf(corpus: Corpus, word: string): number {
  const n = corpus.df.get(word) ?? 0;
  return Math.log(1 + (corpus.docs - n + 0.5) / (n + 0.5));
}

/**
 * 0..1: the IDF-weighted share of the query's words the text contains, so a rare word (an
 * identifier) weighs more than a common one. The whole query found verbatim (at least 3
 * characters, case-insensitive) scores 1: an exact selector or message is the best match.
 */
export function lexicalScore(query: string, text: string, corpus: Corpus): number {
  const q = query.trim().toLowerCase();
  if (q.length >= 3 && text.toLowerCase().includes(q)) return 1;
  const qWords = [...new Set(words(query))];
  if (qWords.length === 0) return 0;
  const have = new Set(words(text));
  let total = 0;
  let found = 0;
  for (const w of qWords) {
    const weight = idf(corpus, w);
    total += weight;
    if (have.has(w) || [...have].some((h) => sameStem(w, h))) found += weight;
  }
  return total === 0 ? 0 : found / total;
}

/** Word forms of one stem ("sign"/"signing", "login"/"logins"): letters only, so "save10" is not "save". */
function sameStem(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 4 && long.length - short.length <= 3 && long.startsWith(short) && /^\p{L}+$/u.test(long);
}

/** Up to `max` characters of `text` around the first query word it contains (else its start). */
export function snippetOf(text: string, query: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const lower = flat.toLowerCase();
  let at = -1;
  for (const w of words(query)) {
    const i = lower.indexOf(w);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  const start = at < 0 ? 0 : Math.max(0, Math.min(at - Math.floor(max / 3), flat.length - max));
  return `${start > 0 ? '…' : ''}${flat.slice(start, start + max).trim()}${start + max < flat.length ? '…' : ''}`;
}
