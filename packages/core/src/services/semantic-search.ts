import { notFound } from '../errors.ts';
import type { Store } from '../store/index.ts';
import type { Embedder } from '../healing/service/embedder.ts';
import { SEARCH_KINDS, type SemanticSearchQuery, type SemanticSearchResponse } from '../contracts/semantic-search.ts';
import { gatherCandidates, SEARCH_LIMITS } from '../search/candidates.ts';
import { EmbeddingCache, type VectorBacking } from '../search/embedding-cache.ts';
import type { Logger } from '../ports/logger.ts';
import { providerOf, rank } from '../search/rank.ts';

export interface SemanticSearchDeps {
  store: Store;
  /** The embedder healing memory uses (local by default; OpenAI or Bedrock when configured). */
  embedder: Embedder;
  /** Candidate vectors kept between searches; one per process. */
  cache?: EmbeddingCache;
  /** Where a search vector that could not be stored or read is said. */
  logger?: Logger;
}

/**
 * Search by meaning over an organization's tests, recent failures and learned heals
 * (docs/search.md). Only the caller's organization is read: a project of another
 * organization is a 404 like one that does not exist.
 */
export function semanticSearchService({ store, embedder, cache = new EmbeddingCache(), logger }: SemanticSearchDeps) {
  async function projectsOf(orgId: string, projectId: string | undefined) {
    if (projectId) {
      const project = await store.projects.get(orgId, projectId);
      if (!project) throw notFound('project');
      return [project];
    }
    const projects = [];
    let cursor: string | undefined;
    do {
      const page = await store.projects.list(orgId, Math.min(100, SEARCH_LIMITS.projects), cursor);
      projects.push(...page.items);
      cursor = page.next_cursor ?? undefined;
    } while (cursor && projects.length < SEARCH_LIMITS.projects);
    return projects.slice(0, SEARCH_LIMITS.projects);
  }

  return {
    cache,
    async search(orgId: string, q: SemanticSearchQuery, signal?: AbortSignal): Promise<SemanticSearchResponse> {
      const projects = await projectsOf(orgId, q.project_id);
      const kinds = q.kinds ?? [...SEARCH_KINDS];
      const remote = providerOf(embedder.model) !== 'local';
      const cap = remote ? SEARCH_LIMITS.remoteCandidates : SEARCH_LIMITS.candidates;
      const gathered = await gatherCandidates(store, orgId, projects, kinds, cap);
      // A remote embedder's vectors are kept in the store too: each is a paid request (Bedrock: one per text) that a cold process would repeat.
      const backing: VectorBacking | undefined = remote
        ? {
            get: (hashes) => store.searchVectors.getMany(orgId, hashes),
            put: (vectors) => store.searchVectors.putMany(orgId, vectors),
            failed: (err) => logger?.warn('search vectors could not be read or stored; the texts are embedded instead', { organization_id: orgId, error: err.message }),
          }
        : undefined;
      const ranked = await rank(q.q, gathered.candidates, { embedder, cache, limit: q.limit, signal, backing });
      return { query: q.q, embedder: ranked.embedder, results: ranked.hits, searched: { ...gathered.counts, truncated: gathered.truncated } };
    },
  };
}
