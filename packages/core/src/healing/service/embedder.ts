import { EMBEDDING_DIMENSION } from '../../contracts/memory.ts';
import { murmur32 } from './hash.ts';

/**
 * Turns text (a failure message, a selector) into a 1536-number vector for memory search.
 * The default is local; providers (OpenAI-compatible, Bedrock) live in packages/functions.
 */
export interface Embedder {
  /** Identifies the vector space; vectors from different models are not comparable. */
  readonly model: string;
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}

/**
 * Feature hashing of identifier-aware words, word bigrams and character trigrams into
 * 1536 signed buckets, L2-normalised. Deterministic, no network, no model: two failures
 * that differ in a digit or a renamed word share most features (similarity well above
 * 0.7); failures on different elements/pages share few. It measures surface overlap, not
 * meaning — configure a provider embedder for that.
 */
export function localEmbedder(): Embedder {
  return { model: 'svc-local-hash-v1', embed: async (texts) => texts.map(embedLocally) };
}

const WEIGHTS = { word: 1, bigram: 0.6, trigram: 0.35 } as const;

export function embedLocally(text: string): number[] {
  const v = new Float64Array(EMBEDDING_DIMENSION);
  const words = tokenize(text);
  const add = (feature: string, weight: number) => {
    const h = murmur32(feature, 0x5bd1e995);
    v[h % EMBEDDING_DIMENSION] += (h & 0x80000000 ? -1 : 1) * weight;
  };
  for (let i = 0; i < words.length; i++) {
    add(`w:${words[i]}`, WEIGHTS.word);
    if (i > 0) add(`b:${words[i - 1]} ${words[i]}`, WEIGHTS.bigram);
    const padded = `^${words[i]}$`;
    for (let j = 0; j + 3 <= padded.length; j++) add(`c:${padded.slice(j, j + 3)}`, WEIGHTS.trigram);
  }
  return normalise(Array.from(v));
}

/** Lower-case words; camelCase, snake_case, kebab-case and punctuation split; digit runs masked. */
export function tokenize(text: string): string[] {
  return text
    .normalize('NFKC')
    .replace(/([\p{Ll}\d])(\p{Lu})/gu, '$1 $2')
    .toLowerCase()
    .replace(/\d+/g, '0')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, 2000);
}

export function normalise(v: number[]): number[] {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  return norm === 0 ? v.map(() => 0) : v.map((x) => x / norm);
}

/** Cosine similarity (1 − cosine distance); 0 when either vector is all zeros. */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new Error(`embedding dimensions differ: ${a.length} vs ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
