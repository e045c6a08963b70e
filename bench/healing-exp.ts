/** Experiment harness (not part of the benchmark): CV metrics + misses. */
import { crossValidate, evaluate, fitModel, loadDataset, metrics, prepareDev } from './healing-lib.ts';
const t0 = performance.now();
const ds = await loadDataset();
const cases = prepareDev(ds);
const t1 = performance.now();
const full = fitModel(cases);
const ins = evaluate(full, cases);
const t2 = performance.now();
const fmt = (m: ReturnType<typeof metrics>) => `top1 ${(100*m.top1).toFixed(1)} top3 ${(100*m.top3).toFixed(1)} prec ${(100*m.autoApplyPrecision).toFixed(2)} cov ${(100*m.autoApplyCoverage).toFixed(1)} removed ${(100*m.removedAutoApplyRate).toFixed(1)}`;
console.log('in-sample', fmt(metrics(ins)), `prep ${((t1-t0)/1000).toFixed(1)}s fit ${((t2-t1)/1000).toFixed(1)}s`);
if (!process.env.NOCV) {
  const cv = crossValidate(cases);
  console.log('cv       ', fmt(metrics(cv)), `${((performance.now()-t2)/1000).toFixed(0)}s`);
  if (process.env.MISSES) for (const r of cv) if (r.rank !== 0) console.log('miss', r.id, r.rank, r.topConfidence.toFixed(2));
}
