import type { MemoryEntry, MemoryNamespace, MemoryPutInput, SimilarFailuresQuery, SimilarMemoryMatch } from '../contracts/memory.ts';
import { cosineSimilarity } from '../healing/service/embedder.ts';
import { stableKey } from '../healing/service/hash.ts';
import { keys, stripLayout } from './keys.ts';
import { queryAll, type StoreContext } from './context.ts';

/** Digits kept per vector component: enough for cosine ranking, a third of the JSON size. */
const STORED_DIGITS = 6;

/**
 * Long-term memory (namespaces failures, fixes, selectors, context), one partition per
 * organization, upserted by key. Similarity search is brute force: every entry of the
 * organization is read and compared (cosine). That is fine up to a few thousand entries
 * (each embedded item is ~15 KB, so 10,000 entries read ~150 MB per search); beyond that
 * an ANN index (pgvector, OpenSearch) belongs behind this same function.
 */
export function memoryRepo(ctx: StoreContext) {
  const { table } = ctx;
  const toEntry = (item: Record<string, unknown>): MemoryEntry => {
    const { organization_id: _org, ...e } = stripLayout<MemoryEntry & { organization_id: string }>(item);
    return e;
  };
  const repo = {
    async get(orgId: string, key: string): Promise<MemoryEntry | undefined> {
      const item = await table.get(keys.memoryEntry(orgId, stableKey(key)));
      return item && item.key === key ? toEntry(item) : undefined;
    },

    /** Creates or replaces the entry with this key; keeps its id and created_at. */
    async put(orgId: string, input: MemoryPutInput): Promise<MemoryEntry> {
      const existing = await repo.get(orgId, input.key);
      const now = ctx.clock.now().toISOString();
      const entry: MemoryEntry = {
        id: existing?.id ?? ctx.newId(),
        namespace: input.namespace,
        key: input.key,
        value: input.value,
        embedding: input.embedding ? input.embedding.map((x) => Number(x.toFixed(STORED_DIGITS))) : null,
        created_at: existing?.created_at ?? now,
        updated_at: now,
      };
      await table.put({ ...keys.memoryEntry(orgId, stableKey(input.key)), entity: 'memory', organization_id: orgId, ...entry });
      return entry;
    },

    async list(orgId: string, namespace?: MemoryNamespace): Promise<MemoryEntry[]> {
      const items = await queryAll(table, { pk: keys.memoryEntry(orgId, '').pk, skPrefix: 'KEY#' });
      return items.map(toEntry).filter((e) => !namespace || e.namespace === namespace);
    },

    async delete(orgId: string, key: string): Promise<void> {
      if (await repo.get(orgId, key)) await table.delete(keys.memoryEntry(orgId, stableKey(key)));
    },

    /**
     * search_similar_failures: entries (of `namespace`, default failures) whose embedding
     * has similarity = 1 − cosine distance ≥ threshold to the query, closest first. `accept`
     * keeps only the entries a caller can use, before the `match_count` best are taken (the
     * healer wants one project's fixes of one selector: others must not take their places).
     */
    async searchSimilarFailures(orgId: string, q: SimilarFailuresQuery, namespace: MemoryNamespace | null = 'failures', accept?: (entry: MemoryEntry) => boolean): Promise<SimilarMemoryMatch[]> {
      const matches: SimilarMemoryMatch[] = [];
      for (const e of await repo.list(orgId, namespace ?? undefined)) {
        if (!e.embedding || e.embedding.length !== q.query_embedding.length) continue;
        if (accept && !accept(e)) continue;
        const similarity = cosineSimilarity(q.query_embedding, e.embedding);
        if (similarity >= q.similarity_threshold) matches.push({ id: e.id, namespace: e.namespace, key: e.key, value: e.value, similarity });
      }
      return matches.sort((a, b) => b.similarity - a.similarity).slice(0, q.match_count);
    },
  };
  return repo;
}
