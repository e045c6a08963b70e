import { z } from 'zod';
import { IsoDateTime, JsonObject, Uuid } from './common.ts';
import { limits } from './limits.ts';

/** Dimension of every stored embedding. */
export const EMBEDDING_DIMENSION = limits.EMBEDDING_DIMENSION;

/** A 1536-dimension embedding vector. */
export const Embedding = z
  .array(z.number())
  .length(EMBEDDING_DIMENSION)
  .describe(`Embedding vector of exactly ${EMBEDDING_DIMENSION} numbers`);
export type Embedding = z.output<typeof Embedding>;

export const memoryNamespaces = ['failures', 'fixes', 'selectors', 'context'] as const;
export const MemoryNamespace = z.enum(memoryNamespaces).describe('Memory namespace: failures, fixes, selectors or context');
export type MemoryNamespace = z.output<typeof MemoryNamespace>;

/** A long-term memory entry. `key` is unique (per organization). */
export const MemoryEntrySchema = z.object({
  id: Uuid.describe('Entry id'),
  namespace: MemoryNamespace,
  key: z.string().min(1).max(512).describe('Unique key within the organization'),
  value: JsonObject.describe('Stored value'),
  embedding: Embedding.nullable().describe('Semantic index vector (1536 numbers), or null when not embedded'),
  created_at: IsoDateTime.describe('When the entry was created'),
  updated_at: IsoDateTime.describe('When the entry was last changed'),
});
export type MemoryEntry = z.output<typeof MemoryEntrySchema>;

/** Writing a memory entry (upsert by key). */
export const MemoryPutInput = z.strictObject({
  namespace: MemoryNamespace,
  key: z.string().min(1).max(512).describe('Unique key within the organization'),
  value: JsonObject.describe('Value to store'),
  embedding: Embedding.optional().describe('Semantic index vector (1536 numbers)'),
});
export type MemoryPutInput = z.output<typeof MemoryPutInput>;

/** search_similar_failures arguments. */
export const SimilarFailuresQuery = z.strictObject({
  query_embedding: Embedding.describe('Embedding of the failure to match'),
  match_count: z.number().int().min(1).max(100).default(limits.SEMANTIC_SEARCH_MATCH_COUNT).describe('Maximum matches (default 5)'),
  similarity_threshold: z
    .number()
    .min(0)
    .max(1)
    .default(limits.SEMANTIC_SEARCH_SIMILARITY_THRESHOLD)
    .describe('Minimum similarity, 0..1 (default 0.7)'),
});
export type SimilarFailuresQuery = z.output<typeof SimilarFailuresQuery>;

/** One search_similar_failures match, closest first. */
export const SimilarMemoryMatchSchema = z.object({
  id: Uuid.describe('Entry id'),
  namespace: MemoryNamespace,
  key: z.string().describe('Entry key'),
  value: JsonObject.describe('Entry value'),
  similarity: z.number().min(-1).max(1).describe('1 minus cosine distance; higher is closer'),
});
export type SimilarMemoryMatch = z.output<typeof SimilarMemoryMatchSchema>;
