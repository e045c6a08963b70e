import type { StateDiff } from '../contracts/checkpoint.ts';

/**
 * Compare (spec "Checkpoint operations"): which fields of two states were added,
 * removed, changed or left unchanged. Fields are the state's top-level fields, except
 * where a finer name says more: results and failures per test (`test_results.<test_id>`),
 * and the graph's bookkeeping per entry (`graph.routes.plan_tests`, `graph.heal.<test_id>`)
 * — so a diff reads "test X's result was added, passed_count changed", not "state changed".
 */
export function diffStates(a: Record<string, unknown>, b: Record<string, unknown>): StateDiff {
  const fa = flatten(a);
  const fb = flatten(b);
  const diff: StateDiff = { added: [], removed: [], changed: [], unchanged: [] };
  for (const key of [...new Set([...Object.keys(fa), ...Object.keys(fb)])].sort()) {
    if (!(key in fa)) diff.added.push(key);
    else if (!(key in fb)) diff.removed.push(key);
    else if (stableJson(fa[key]) === stableJson(fb[key])) diff.unchanged.push(key);
    else diff.changed.push(key);
  }
  return diff;
}

const perTest = new Set(['test_results', 'failures']);
const graphRecords = new Set(['routes', 'attempts', 'heal', 'test_steps', 'test_costs']);

function flatten(state: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(state)) {
    if (v === undefined) continue;
    if (perTest.has(k) && Array.isArray(v)) {
      for (const item of v as Array<{ test_id?: string }>) out[`${k}.${item.test_id}`] = item;
    } else if (k === 'graph' && isRecord(v)) {
      for (const [gk, gv] of Object.entries(v)) {
        if (gv === undefined) continue;
        if (graphRecords.has(gk) && isRecord(gv)) for (const [rk, rv] of Object.entries(gv)) out[`graph.${gk}.${rk}`] = rv;
        else out[`graph.${gk}`] = gv;
      }
    } else out[k] = v;
  }
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** JSON with object keys sorted, so key order never counts as a change. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) : v));
}
