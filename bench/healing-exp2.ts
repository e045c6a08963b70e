import { readFileSync } from 'node:fs';
import { convertSimiloDataset } from '../packages/core/src/healing/similo-dataset.ts';
import { prepare } from '../packages/core/src/healing/prepare.ts';
import { pageContext } from '../packages/core/src/healing/page-context.ts';
import { computeFeatures, FEATURE_COUNT, FEATURES } from '../packages/core/src/healing/features.ts';
import { combine } from '../packages/core/src/healing/scorer.ts';
import { fitWeights, type TrainingCase } from '../packages/core/src/healing/fit-weights.ts';
import { PRIOR_WEIGHTS } from '../packages/core/src/healing/priors.ts';

const ds = convertSimiloDataset(JSON.parse(readFileSync('/work/shared/datasets/healing-dev/similo-dev.json', 'utf8')));
const pages = new Map(ds.input.pages.map((p) => [p.id, p.candidates.map(prepare)]));
const ctxs = new Map([...pages].map(([k, v]) => [k, pageContext(v)]));
type C = TrainingCase & { id: string; site: string };
const cases: C[] = ds.input.cases.map((c) => {
  const cands = pages.get(c.page)!;
  const t = prepare(c.target);
  const features = new Float64Array(cands.length * FEATURE_COUNT);
  const row = new Float64Array(FEATURE_COUNT);
  cands.forEach((cd, i) => { computeFeatures(t, cd, row, ctxs.get(c.page)!); features.set(row, i * FEATURE_COUNT); });
  return { id: c.id, site: ds.sites.get(c.id)!, features, count: cands.length, answer: ds.answers.get(c.id)! };
});
const prior = Float64Array.from(FEATURES, (f) => PRIOR_WEIGHTS[f] ?? 0.5);
const TOPK = Number(process.env.TOPK ?? 30);
const K = 3 * FEATURE_COUNT + 2;
// linear features: [x (0 when missing), present, x - best, score, score - best score]
function design(c0: C, w: ArrayLike<number>) {
  const s0 = Array.from({ length: c0.count }, (_, i) => combine(c0.features, w, i * FEATURE_COUNT));
  const keep = s0.map((_, i) => i).sort((a, b) => s0[b] - s0[a] || a - b).slice(0, TOPK);
  const feats = new Float64Array(keep.length * FEATURE_COUNT);
  keep.forEach((k, j) => feats.set(c0.features.subarray(k * FEATURE_COUNT, (k + 1) * FEATURE_COUNT), j * FEATURE_COUNT));
  const c = { ...c0, features: feats, count: keep.length, answer: keep.indexOf(c0.answer) };
  const n = c.count, X = new Float64Array(n * K);
  const best = new Float64Array(FEATURE_COUNT).fill(-Infinity);
  const s = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    s[i] = combine(c.features, w, i * FEATURE_COUNT);
    for (let f = 0; f < FEATURE_COUNT; f++) { const x = c.features[i * FEATURE_COUNT + f]; if (x === x && x > best[f]) best[f] = x; }
  }
  const bs = Math.max(...s);
  for (let i = 0; i < n; i++) {
    for (let f = 0; f < FEATURE_COUNT; f++) {
      const x = c.features[i * FEATURE_COUNT + f];
      if (x === x) { X[i * K + f] = x; X[i * K + FEATURE_COUNT + f] = 1; X[i * K + 2 * FEATURE_COUNT + f] = x - best[f]; }
    }
    X[i * K + 3 * FEATURE_COUNT] = s[i]; X[i * K + 3 * FEATURE_COUNT + 1] = s[i] - bs;
  }
  return { X, n, answer: c.answer };
}
function fitLinear(data: { X: Float64Array; n: number; answer: number }[], l2: number, iters = 300, lr = 0.05) {
  const th = new Float64Array(K), m = new Float64Array(K), v = new Float64Array(K), g = new Float64Array(K);
  for (let it = 1; it <= iters; it++) {
    g.fill(0);
    for (const d of data) {
      const z = new Float64Array(d.n); let mx = -Infinity;
      for (let i = 0; i < d.n; i++) { let a = 0; for (let k = 0; k < K; k++) a += th[k] * d.X[i * K + k]; z[i] = a; if (a > mx) mx = a; }
      let sum = 0; for (let i = 0; i < d.n; i++) sum += z[i] = Math.exp(z[i] - mx);
      for (let i = 0; i < d.n; i++) { const p = z[i] / sum - (i === d.answer ? 1 : 0); if (Math.abs(p) < 1e-8) continue; for (let k = 0; k < K; k++) g[k] += p * d.X[i * K + k] / data.length; }
    }
    for (let k = 0; k < K; k++) { const gk = g[k] + l2 * th[k]; m[k] = 0.9 * m[k] + 0.1 * gk; v[k] = 0.999 * v[k] + 0.001 * gk * gk; th[k] -= lr * (m[k] / (1 - 0.9 ** it)) / (Math.sqrt(v[k] / (1 - 0.999 ** it)) + 1e-8); }
  }
  return th;
}
function evalLinear(data: { X: Float64Array; n: number; answer: number; id: string }[], th: Float64Array) {
  let ok = 0; const wrong: string[] = [];
  for (const d of data) {
    const z = Array.from({ length: d.n }, (_, i) => { let a = 0; for (let k = 0; k < K; k++) a += th[k] * d.X[i * K + k]; return a; });
    const a = z[d.answer]; if (d.answer >= 0 && z.filter((x, i) => x > a || (x === a && i < d.answer)).length === 0) ok++; else wrong.push(d.id);
  }
  return { ok, wrong };
}
const l2 = Number(process.argv[2] ?? 0.001);
const w = fitWeights(cases, { prior, beta: 40, l2: 0.02, iterations: 300 });
const data = cases.map((c) => ({ ...design(c, w), id: c.id, site: c.site }));
const th = fitLinear(data.filter((d) => d.answer >= 0), l2);
console.log('in-sample', evalLinear(data, th).ok / data.length);
if (process.argv[3] === 'cv') {
  let ok = 0; const wrong: string[] = [];
  for (const s of [...new Set(cases.map((c) => c.site))]) {
    const train = cases.filter((c) => c.site !== s);
    const ws = fitWeights(train, { prior, beta: 40, l2: 0.02, iterations: 300 });
    const dtr = train.map((c) => ({ ...design(c, ws), id: c.id })).filter((d) => d.answer >= 0);
    const dte = cases.filter((c) => c.site === s).map((c) => ({ ...design(c, ws), id: c.id }));
    const r = evalLinear(dte, fitLinear(dtr, l2)); ok += r.ok; wrong.push(...r.wrong);
  }
  console.log('LOSO', ok / cases.length, wrong.join(' '));
}
