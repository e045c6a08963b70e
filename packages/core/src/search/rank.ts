import { cosineSimilarity, type Embedder } from '../healing/service/embedder.ts';
import type { SearchHit } from '../contracts/semantic-search.ts';
import { corpusOf, lexicalScore, snippetOf } from './lexical.ts';
import type { EmbeddingCache, VectorBacking } from './embedding-cache.ts';

/** Something searchable: the text compared with the query, and what a hit shows. */
export interface Candidate {
  kind: SearchHit['kind'];
  id: string;
  title: string;
  text: string;
  project_id: string | null;
  links: Record<string, string>;
}

/**
 * The blend (docs/search.md): meaning first, words second. The embedding's cosine says
 * "about the same thing"; the word score keeps exact identifiers (a selector, an error
 * code) on top, which embeddings blur. Either alone can lead; a text strong on both wins.
 */
export const VECTOR_WEIGHT = 0.6;
export const LEXICAL_WEIGHT = 0.4;
/** Below this a candidate is noise (the local embedder's cosine of unrelated texts is about 0 ± 0.05). */
export const MIN_SCORE = 0.12;

export interface Ranked {
  hits: SearchHit[];
  embedder: { provider: string; model: string; fallback?: boolean; reason?: string };
}

/** Provider of an embedder from its model id (`openai:…`, `bedrock:…`; the local one has no prefix). */
export const providerOf = (model: string) => (/^([a-z]+):/.exec(model)?.[1] ?? 'local');

/**
 * Ranks candidates for a query. When the embedder fails (a remote provider down, a key
 * revoked) the ranking is the word score alone and says so, with the reason: never a
 * ranking that pretends to be semantic.
 */
export async function rank(query: string, candidates: Candidate[], o: { embedder: Embedder; cache: EmbeddingCache; limit: number; signal?: AbortSignal; backing?: VectorBacking }): Promise<Ranked> {
  const embedder = { provider: providerOf(o.embedder.model), model: o.embedder.model };
  const corpus = corpusOf(candidates.map((c) => c.text));
  const lexical = candidates.map((c) => lexicalScore(query, c.text, corpus));

  let vector: number[] | undefined;
  let fallback: string | undefined;
  try {
    // The query goes through the cache too: a repeated search costs a remote embedder nothing.
    const { vectors } = await o.cache.embed(o.embedder, [query, ...candidates.map((c) => c.text)], o.signal, o.backing);
    const q = vectors[0] as unknown as number[];
    vector = vectors.slice(1).map((v) => Math.max(0, cosineSimilarity(q, v as unknown as number[])));
  } catch (err) {
    if (o.signal?.aborted) throw err;
    fallback = `embedder ${o.embedder.model} failed: ${(err as Error).message}`.slice(0, 500);
  }

  const scored = candidates.map((c, i) => ({ c, score: vector ? VECTOR_WEIGHT * vector[i] + LEXICAL_WEIGHT * lexical[i] : lexical[i] }));
  const hits = scored
    .filter((s) => s.score >= MIN_SCORE)
    .sort((a, b) => b.score - a.score || a.c.title.localeCompare(b.c.title))
    .slice(0, o.limit)
    .map(({ c, score }): SearchHit => ({ kind: c.kind, id: c.id, score: Math.round(Math.min(1, score) * 1000) / 1000, title: c.title, snippet: snippetOf(c.text, query), project_id: c.project_id, links: c.links }));
  return { hits, embedder: fallback ? { ...embedder, fallback: true, reason: fallback } : embedder };
}
