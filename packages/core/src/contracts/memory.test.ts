import { describe, expect, it } from 'vitest';
import { id, issues, now, parseInput, paths } from './test-support.ts';
import { Embedding, MemoryEntrySchema, MemoryPutInput, SimilarFailuresQuery } from './memory.ts';
import { FailurePatternSchema } from './failure-pattern.ts';

const vec = (n: number) => Array.from({ length: n }, (_, i) => i / n);

describe('memory', () => {
  it('embedding is exactly 1536 numbers', () => {
    expect(Embedding.safeParse(vec(1536)).success).toBe(true);
    expect(Embedding.safeParse(vec(1535)).success).toBe(false);
    expect(Embedding.safeParse(vec(1537)).success).toBe(false);
  });
  it('entry', () => {
    const e = { id: id(), namespace: 'failures', key: 'k', value: {}, embedding: vec(1536), created_at: now, updated_at: now };
    expect(MemoryEntrySchema.safeParse(e).success).toBe(true);
    expect(MemoryEntrySchema.safeParse({ ...e, namespace: 'misc' }).success).toBe(false);
    expect(MemoryEntrySchema.safeParse({ ...e, embedding: null }).success).toBe(true);
  });
  it('put input names bad fields', () => {
    expect(paths(MemoryPutInput, { namespace: 'fixes', key: 'k', value: {}, embedding: [1, 2] })).toEqual(['embedding']);
    expect(issues(MemoryPutInput, { namespace: 'fixes', key: 'k', value: {}, ttl: 1 })).toEqual([{ path: 'ttl', message: 'unknown field' }]);
  });
  it('similar-failures defaults', () => {
    expect(parseInput(SimilarFailuresQuery, { query_embedding: vec(1536) })).toMatchObject({ match_count: 5, similarity_threshold: 0.7 });
    expect(paths(SimilarFailuresQuery, { query_embedding: vec(1536), similarity_threshold: 2 })).toEqual(['similarity_threshold']);
  });
  it('failure pattern', () => {
    const p = { id: id(), project_id: null, error_message: 'x', healed_selector: '#a', healing_method: 'memory', embedding: vec(1536), created_at: now };
    expect(FailurePatternSchema.safeParse(p).success).toBe(true);
    expect(FailurePatternSchema.safeParse({ ...p, embedding: vec(3) }).success).toBe(false);
  });
});
