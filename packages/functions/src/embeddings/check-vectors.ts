import { EMBEDDING_DIMENSION } from '@svc/core/contracts/memory';

/** A provider's vectors must be 1536 finite numbers each, one per input; anything else is a clear error, never stored. */
export function checkVectors(provider: string, model: string, vectors: unknown[], expected: number): number[][] {
  if (vectors.length !== expected) throw new Error(`${provider} embeddings (${model}): asked for ${expected} vectors, got ${vectors.length}`);
  return vectors.map((v, i) => {
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) throw new Error(`${provider} embeddings (${model}): vector ${i} is not a list of numbers`);
    if (v.length !== EMBEDDING_DIMENSION) {
      throw new Error(`${provider} embeddings (${model}): vector ${i} has ${v.length} dimensions; memory stores ${EMBEDDING_DIMENSION} (choose a ${EMBEDDING_DIMENSION}-dimension model)`);
    }
    return v as number[];
  });
}
