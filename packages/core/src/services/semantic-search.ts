import { notFound } from '../errors.ts';
import type { Store } from '../store/index.ts';
import type { Embedder } from '../healing/service/embedder.ts';
import { SEARCH_KINDS, type SemanticSearchQuery, type SemanticSearchResponse } from '../contracts/semantic-search.ts';
import { gatherCandidates, SEARCH_LIMITS } from '../search/candidates.ts';
import { EmbeddingCache } from '../search/embedding-cache.ts';
import { providerOf, rank } from '../search/rank.ts';

export interface SemanticSearchDeps {
  store: Store;
  /** The embedder healing memory uses (local by default; OpenAI or Bedrock when configured). */
  embedder: Embedder;
  /** Candidate vectors kept between searches; one per process. */
  cache?: EmbeddingCache;
}

/**
 * Search by meaning over an organization's tests, recent failures and learned heals
 * (docs/search.md). Only the caller's organization is read: a project of another
 * organization is a 404 like one that does not exist.
 */
export function semanticSearchService({ store, embedder, cache = new EmbeddingCache() }: SemanticSearchDeps) {
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
      const cap = providerOf(embedder.model) === 'local' ? SEARCH_LIMITS.candidates : SEARCH_LIMITS.remoteCandidates;
      const gathered = await gatherCandidates(store, orgId, projects, kinds, cap);
      const ranked = await rank(q.q, gathered.candidates, { embedder, cache, limit: q.limit, signal });
      return { query: q.q, embedder: ranked.embedder, results: ranked.hits, searched: { ...gathered.counts, truncated: gathered.truncated } };
    },
  };
}
