import { readFileSync } from 'node:fs';
import { convertSimiloDataset } from '../packages/core/src/healing/similo-dataset.ts';
import { prepare } from '../packages/core/src/healing/prepare.ts';
import { computeFeatures, FEATURE_COUNT, FEATURES } from '../packages/core/src/healing/features.ts';
import { combine } from '../packages/core/src/healing/scorer.ts';
import { PRIOR_WEIGHTS } from '../packages/core/src/healing/priors.ts';
const ds = convertSimiloDataset(JSON.parse(readFileSync('/work/shared/datasets/healing-dev/similo-dev.json', 'utf8')));
const w = process.env.W ? JSON.parse(process.env.W) : FEATURES.map((f) => PRIOR_WEIGHTS[f]);
for (const id of process.argv.slice(2)) {
  const c = ds.input.cases.find((x) => x.id === id)!;
  const page = ds.input.pages.find((p) => p.id === c.page)!;
  const t = prepare(c.target);
  const rows = page.candidates.map((cd) => computeFeatures(t, prepare(cd), new Float64Array(FEATURE_COUNT)));
  const s = rows.map((r) => combine(r, w));
  const order = s.map((x, i) => i).sort((a, b) => s[b] - s[a]);
  const ans = ds.answers.get(id)!;
  console.log('=====', id, 'answer rank', order.indexOf(ans));
  console.log('T  ', JSON.stringify(c.target));
  const show = (i: number, lbl: string) => {
    console.log(lbl, i, s[i].toFixed(3), JSON.stringify(page.candidates[i]));
    console.log('    ', FEATURES.map((f, k) => (rows[i][k] === rows[i][k] ? `${f}=${rows[i][k].toFixed(2)}` : '')).filter(Boolean).join(' '));
  };
  show(ans, 'ANS');
  for (const i of order.slice(0, 2)) if (i !== ans) show(i, 'TOP');
}
