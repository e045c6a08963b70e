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
const t0 = performance.now();
const cases: (TrainingCase & { id: string; site: string })[] = ds.input.cases.map((c) => {
  const cands = pages.get(c.page)!;
  const t = prepare(c.target);
  const features = new Float64Array(cands.length * FEATURE_COUNT);
  const row = new Float64Array(FEATURE_COUNT);
  cands.forEach((cd, i) => { computeFeatures(t, cd, row, ctxs.get(c.page)!); features.set(row, i * FEATURE_COUNT); });
  return { id: c.id, site: ds.sites.get(c.id)!, features, count: cands.length, answer: ds.answers.get(c.id)! };
});
console.log('features ms', (performance.now() - t0).toFixed(0));
const prior = Float64Array.from(FEATURES, (f) => PRIOR_WEIGHTS[f] ?? 0.5);

function evaluate(cs: typeof cases, w: ArrayLike<number>) {
  let top1 = 0, top3 = 0; const wrong: string[] = [];
  for (const c of cs) {
    const s = Array.from({ length: c.count }, (_, i) => combine(c.features, w, i * FEATURE_COUNT));
    const a = s[c.answer];
    const better = s.filter((x) => x > a).length;
    const ties = s.filter((x, i) => x === a && i < c.answer).length;
    if (better === 0 && ties === 0) top1++; else wrong.push(c.id);
    if (better + ties < 3) top3++;
  }
  return { top1: top1 / cs.length, top3: top3 / cs.length, wrong };
}
const r0 = evaluate(cases, prior);
console.log('prior', r0.top1, r0.top3);
const beta = Number(process.argv[2] ?? 40), l2 = Number(process.argv[3] ?? 0.02), iters = Number(process.argv[4] ?? 300);
let t1 = performance.now();
const w = fitWeights(cases, { prior, beta, l2, iterations: iters });
console.log('fit ms', (performance.now() - t1).toFixed(0));
const r1 = evaluate(cases, w);
console.log('fitted in-sample', r1.top1, r1.top3);
console.log(FEATURES.map((f, i) => `${f}=${w[i].toFixed(2)}`).join(' '));
if (process.argv[5] === 'cv') {
  const sites = [...new Set(cases.map((c) => c.site))];
  let ok = 0, ok3 = 0; const wrong: string[] = [];
  for (const s of sites) {
    const train = cases.filter((c) => c.site !== s), test = cases.filter((c) => c.site === s);
    const ws = fitWeights(train, { prior, beta, l2, iterations: iters });
    const r = evaluate(test, ws); ok += r.top1 * test.length; ok3 += r.top3 * test.length; wrong.push(...r.wrong);
  }
  console.log('LOSO', ok / cases.length, ok3 / cases.length);
  console.log(wrong.join(' '));
}
console.log('wrong in-sample:', r1.wrong.join(' '));
{
  const byId = new Map(ds.input.cases.map((c) => [c.id, c]));
  let td = 0;
  for (const id of r1.wrong) {
    const c = byId.get(id)!; const a = ds.input.pages.find((p) => p.id === c.page)!.candidates[ds.answers.get(id)!];
    if (c.target.tag !== a.tag) td++;
  }
  console.log('wrong', r1.wrong.length, 'of which tag differs', td);
}
