import type { Hono } from 'hono';
import { SemanticSearchQuery, SemanticSearchResponse } from '@svc/core/contracts/semantic-search';
import { semanticSearchService } from '@svc/core/services/semantic-search';
import { localEmbedder } from '@svc/core/healing/service/embedder';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';

const services = new WeakMap<AppDeps, ReturnType<typeof semanticSearchService>>();

/** The app's one search service (chat's vector tier uses it too), so the candidate vectors are cached once per process. */
export function semanticSearchOf(deps: AppDeps) {
  let service = services.get(deps);
  if (!service) services.set(deps, (service = semanticSearchService({ store: deps.store, embedder: deps.embedder ?? localEmbedder(), logger: deps.logger })));
  return service;
}

/**
 * GET /api/quality/semantic-search (and /api/v1/…): the spec's "search by semantics" over
 * the organization's tests, recent failures and learned heals (docs/search.md). Uses the
 * embedder healing memory uses; its candidate vectors are cached for the process.
 */
export function semanticSearchRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const search = semanticSearchOf(deps);
  // The spec's knowledge-search histogram (the same series wherever it is registered); tier vector, or lexical when the embedder failed.
  const latency = deps.metrics.histogram('knowledge_search_latency_seconds', 'Latency of knowledge searches', ['tier']);
  for (const path of ['/api/quality/semantic-search', '/api/v1/quality/semantic-search']) {
    mountRoute(app, deps, registry, {
      method: 'get', path, summary: 'Search tests, recent failures and learned heals by meaning (embeddings blended with word overlap), best first', tags: ['quality'], auth: 'viewer', query: SemanticSearchQuery,
      responses: {
        200: { description: 'results, best first', schema: SemanticSearchResponse },
        400: { description: 'invalid query (the error names the field: q, kinds, limit, project_id)' },
        404: { description: 'no such project in this organization' },
      },
    }, async ({ c, query, access }) => {
      const started = performance.now();
      const answer = await search.search(access.organizationId, query, c.req.raw.signal);
      latency.observe({ tier: answer.embedder.fallback ? 'lexical' : 'vector' }, (performance.now() - started) / 1000);
      return c.json(answer);
    });
  }
}
