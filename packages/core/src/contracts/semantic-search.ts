import { z } from 'zod';
import { Uuid } from './common.ts';

/**
 * GET /api/quality/semantic-search (and /api/v1/…): the spec's "search by semantics" over
 * what an organization stored — its tests, the failures of recent runs and the learned
 * heals — ranked by meaning and by the words themselves (docs/search.md).
 */

export const SEARCH_KINDS = ['tests', 'failures', 'heals'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export const SEARCH_MAX_QUERY = 500;
export const SEARCH_DEFAULT_LIMIT = 10;
export const SEARCH_MAX_LIMIT = 50;

const Kinds = z
  .string()
  .transform((s, ctx) => {
    const kinds = [...new Set(s.split(',').map((k) => k.trim().toLowerCase()).filter(Boolean))];
    if (kinds.length === 0) ctx.addIssue({ code: 'custom', message: `give one or more of ${SEARCH_KINDS.join(', ')}, comma-separated` });
    for (const k of kinds) if (!(SEARCH_KINDS as readonly string[]).includes(k)) ctx.addIssue({ code: 'custom', message: `unknown kind "${k.slice(0, 40)}" (expected ${SEARCH_KINDS.join(', ')})` });
    return kinds as SearchKind[];
  })
  .describe(`What to search, comma-separated: ${SEARCH_KINDS.join(', ')} (default all three)`);

export const SemanticSearchQuery = z.strictObject({
  q: z.string().trim().min(1, 'required: the text to search for').max(SEARCH_MAX_QUERY, `at most ${SEARCH_MAX_QUERY} characters`).describe(`What to look for, in plain words or as an identifier (a selector, an error code), 1..${SEARCH_MAX_QUERY} characters`),
  project_id: Uuid.optional().describe('Search this project only (default: every project of the organization)'),
  kinds: Kinds.optional(),
  limit: z.coerce.number().int().min(1).max(SEARCH_MAX_LIMIT).default(SEARCH_DEFAULT_LIMIT).describe(`Results to return, 1..${SEARCH_MAX_LIMIT} (default ${SEARCH_DEFAULT_LIMIT})`),
});
export type SemanticSearchQuery = z.output<typeof SemanticSearchQuery>;

export const SearchHit = z.object({
  kind: z.enum(['test', 'failure', 'heal']).describe('test: a stored test; failure: a failed test in a recent run; heal: a learned healing pattern'),
  id: z.string().describe('Test id, result id (failure) or healing pattern id'),
  score: z.number().min(0).max(1).describe('Relevance 0..1: a blend of embedding similarity and word overlap (docs/search.md); only word overlap when embedder.fallback is true'),
  title: z.string().describe('Test name; for a failure the failed test\'s name; for a heal "original → healed"'),
  snippet: z.string().describe('The part of the searched text around the words of the query'),
  project_id: Uuid.nullable().describe('Project of the item (null: an organization-wide heal)'),
  links: z.record(z.string(), z.string()).describe('API paths to read more: test, run, results, patterns'),
});
export type SearchHit = z.output<typeof SearchHit>;

export const SemanticSearchResponse = z.object({
  query: z.string().describe('The query as searched (trimmed)'),
  embedder: z.object({
    provider: z.string().describe('local, openai or bedrock'),
    model: z.string().describe('Embedding model (vectors of different models are never compared)'),
    fallback: z.boolean().optional().describe('true: the embedder failed and results are ranked by word overlap only'),
    reason: z.string().optional().describe('Why the embedder was not used'),
  }),
  results: z.array(SearchHit).describe('Best first'),
  searched: z.object({
    tests: z.number().int(),
    failures: z.number().int(),
    heals: z.number().int(),
    truncated: z.boolean().describe('Some candidates were left out by the per-search cap (docs/search.md)'),
  }).describe('Candidates compared, by kind'),
});
export type SemanticSearchResponse = z.output<typeof SemanticSearchResponse>;
