import { createHash } from 'node:crypto';
import type { Embedder } from '../healing/service/embedder.ts';
import { forEachLimited } from '../concurrency.ts';

/** Texts sent to the embedder per call (OpenAI takes a batch per request; Bedrock's adapter sends one request per text). */
export const EMBED_BATCH = 50;
/** Batches in flight at once: a cold cache on a one-request-per-text provider is four streams, not one. */
export const EMBED_CONCURRENCY = 4;

/** Where vectors outlive the process: keyed by the cache's own hash of model and text. */
export interface VectorBacking {
  get(hashes: string[]): Promise<Map<string, Float32Array>>;
  put(vectors: Map<string, Float32Array>): Promise<void>;
  /** A lookup or write that failed: said (logged), never fatal to the search. */
  failed(err: Error): void;
}

/**
 * Candidate embeddings kept in memory per process, keyed by a SHA-256 of the model and the
 * text, least recently used dropped first. A search embeds only texts it has not seen, so
 * repeating a search (or searching a project whose tests did not change) embeds just the
 * query. Vectors are kept as Float32Array: 6 KB each at 1536 dimensions.
 */
export class EmbeddingCache {
  private readonly entries = new Map<string, Float32Array>();
  constructor(readonly capacity = 4000) {}

  get size() {
    return this.entries.size;
  }

  private key(model: string, text: string) {
    return createHash('sha256').update(model).update('\0').update(text).digest('base64url');
  }

  /**
   * The vectors of `texts`, in order. Those not in memory are looked up in `backing` (a
   * store shared by every process), and only the rest are sent to the embedder, in
   * batches, and then kept in both. A backing that fails costs a lookup, not the search:
   * the failure goes to `backing.failed` and the texts are embedded.
   */
  async embed(embedder: Embedder, texts: string[], signal?: AbortSignal, backing?: VectorBacking): Promise<{ vectors: Float32Array[]; embedded: number; stored: number }> {
    const keys = texts.map((t) => this.key(embedder.model, t));
    const out: (Float32Array | undefined)[] = keys.map((k) => this.touch(k));
    let missing = [...new Set(keys.flatMap((k, i) => (out[i] ? [] : [k])))];
    let stored = 0;
    if (backing && missing.length) {
      const found = await backing.get(missing).catch((err: Error) => (backing.failed(err), new Map<string, Float32Array>()));
      for (const [k, v] of found) this.put(k, v);
      keys.forEach((k, i) => (out[i] ??= found.get(k)));
      stored = found.size;
      missing = missing.filter((k) => !found.has(k));
    }
    const textOf = new Map(keys.map((k, i) => [k, texts[i]]));
    const fresh = new Map<string, Float32Array>();
    const batches: string[][] = [];
    for (let i = 0; i < missing.length; i += EMBED_BATCH) batches.push(missing.slice(i, i + EMBED_BATCH));
    await forEachLimited(batches, EMBED_CONCURRENCY, async (batch) => {
      const vectors = await embedder.embed(batch.map((k) => textOf.get(k)!), signal);
      if (vectors.length !== batch.length) throw new Error(`embedder ${embedder.model} answered ${vectors.length} vectors for ${batch.length} texts`);
      batch.forEach((k, j) => fresh.set(k, Float32Array.from(vectors[j])));
    });
    for (const [k, v] of fresh) this.put(k, v);
    if (backing && fresh.size) await backing.put(fresh).catch((err: Error) => backing.failed(err));
    return { vectors: keys.map((k, i) => out[i] ?? fresh.get(k)!), embedded: missing.length, stored };
  }

  private touch(key: string) {
    const v = this.entries.get(key);
    if (v) {
      this.entries.delete(key);
      this.entries.set(key, v);
    }
    return v;
  }

  private put(key: string, v: Float32Array) {
    this.entries.delete(key);
    this.entries.set(key, v);
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}
