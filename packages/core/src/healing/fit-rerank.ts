/**
 * Offline fit of the stage-2 coefficients: listwise softmax (the right candidate's
 * log-probability among the shortlist) with a ridge penalty, by Adam. Cases whose right
 * answer did not make the shortlist teach nothing here and are skipped by the caller.
 */
import { RERANK_DIM } from './rerank.ts';

export interface RerankExample {
  /** Design rows (rerankDesign), `count` of them. */
  X: Float64Array;
  count: number;
  answer: number;
}

export function fitRerank(examples: readonly RerankExample[], opts: { l2?: number; iterations?: number; learningRate?: number } = {}): Float64Array {
  const l2 = opts.l2 ?? 1e-3;
  const iterations = opts.iterations ?? 300;
  const lr = opts.learningRate ?? 0.05;
  const th = new Float64Array(RERANK_DIM);
  const m = new Float64Array(RERANK_DIM);
  const v = new Float64Array(RERANK_DIM);
  const g = new Float64Array(RERANK_DIM);
  let maxCount = 0;
  for (const e of examples) maxCount = Math.max(maxCount, e.count);
  const z = new Float64Array(maxCount);
  const n = Math.max(1, examples.length);
  for (let it = 1; it <= iterations; it++) {
    g.fill(0);
    for (const e of examples) {
      let max = -Infinity;
      for (let i = 0; i < e.count; i++) {
        let a = 0;
        const r = i * RERANK_DIM;
        for (let k = 0; k < RERANK_DIM; k++) a += th[k] * e.X[r + k];
        z[i] = a;
        if (a > max) max = a;
      }
      let sum = 0;
      for (let i = 0; i < e.count; i++) sum += z[i] = Math.exp(z[i] - max);
      for (let i = 0; i < e.count; i++) {
        const d = (z[i] / sum - (i === e.answer ? 1 : 0)) / n;
        if (Math.abs(d) < 1e-9) continue;
        const r = i * RERANK_DIM;
        for (let k = 0; k < RERANK_DIM; k++) g[k] += d * e.X[r + k];
      }
    }
    for (let k = 0; k < RERANK_DIM; k++) {
      const gk = g[k] + l2 * th[k];
      m[k] = 0.9 * m[k] + 0.1 * gk;
      v[k] = 0.999 * v[k] + 0.001 * gk * gk;
      th[k] -= (lr * (m[k] / (1 - 0.9 ** it))) / (Math.sqrt(v[k] / (1 - 0.999 ** it)) + 1e-8);
    }
  }
  return th;
}
