import { loadDataset, prepareDev } from './healing-lib.ts';
import { rankDetailed } from '../packages/core/src/healing/rank.ts';
import { DEFAULT_MODEL as M } from '../packages/core/src/healing/model-constants.ts';
const cases = prepareDev(await loadDataset());
const rows: string[] = [];
for (const c of cases) {
  const top = rankDetailed(c.target, c.page.candidates, c.page.context, M, { top: 1 })[0];
  const without = c.page.candidates.map((p, i) => (i === c.answer ? undefined : p));
  const t2 = rankDetailed(c.target, without, c.page.context, M, { top: 1 })[0];
  rows.push(`${top.index === c.answer ? 'OK ' : 'BAD'} s=${top.score.toFixed(3)} m=${top.margin.toFixed(2)} e=${top.evidence.toFixed(2)} c=${top.confidence.toFixed(3)}`);
  rows.push(`REM s=${t2.score.toFixed(3)} m=${t2.margin.toFixed(2)} e=${t2.evidence.toFixed(2)} c=${t2.confidence.toFixed(3)} ${c.id}`);
}
console.log(rows.join('\n'));
