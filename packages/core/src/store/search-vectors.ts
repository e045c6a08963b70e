import { keys } from './keys.ts';
import type { StoreContext } from './context.ts';
import { forEachLimited } from '../concurrency.ts';

/** How long a stored search vector is kept: a text not searched for a month is embedded again when it is. */
export const SEARCH_VECTOR_TTL_SECONDS = 30 * 24 * 3600;
/** Reads or writes in flight at once: a cold search looks up to 201 vectors. */
const CONCURRENCY = 16;

/** Float32 little-endian, base64: 8 KB for 1536 dimensions, far under an item's 400 KB. */
const encode = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
function decode(text: unknown): Float32Array | undefined {
  if (typeof text !== 'string') return undefined;
  const bytes = Buffer.from(text, 'base64');
  if (bytes.byteLength === 0 || bytes.byteLength % 4) return undefined;
  // Copied out: the Buffer may be a slice of a shared pool, not aligned for a Float32Array view.
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

const inPool = <T>(items: T[], work: (item: T) => Promise<void>) => forEachLimited(items, CONCURRENCY, work);

/**
 * Search candidates' embeddings from a remote embedder, kept per organization so a cold
 * process (a new Lambda container, a restarted server) does not pay for them again
 * (docs/search.md#limits-and-cost). Keyed by the embedding cache's hash of model and text:
 * the text itself is not stored here.
 */
export function searchVectorsRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    /** The stored vectors among `hashes` (expired ones are absent). */
    async getMany(orgId: string, hashes: string[]): Promise<Map<string, Float32Array>> {
      const found = new Map<string, Float32Array>();
      await inPool([...new Set(hashes)], async (hash) => {
        const vector = decode((await table.get(keys.searchVector(orgId, hash)))?.vector);
        if (vector) found.set(hash, vector);
      });
      return found;
    },

    async putMany(orgId: string, vectors: Map<string, Float32Array>): Promise<void> {
      const expiresAt = Math.floor(ctx.clock.now().getTime() / 1000) + SEARCH_VECTOR_TTL_SECONDS;
      await inPool([...vectors], ([hash, vector]) => table.put({ ...keys.searchVector(orgId, hash), entity: 'search_vector', organization_id: orgId, vector: encode(vector), dimensions: vector.length, expiresAt }));
    },
  };
}
