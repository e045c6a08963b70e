import type { StateDiff } from '../contracts/checkpoint.ts';

/**
 * Compare (spec "Checkpoint operations"): which fields of two states were added,
 * removed, changed or left unchanged. Fields are the state's top-level fields; the
 * graph's own bookkeeping is compared one level down (graph.routes, graph.heal …) so a
 * diff says what the graph did, not just "graph changed".
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

function flatten(state: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(state)) {
    if (v === undefined) continue;
    if (k === 'graph' && v && typeof v === 'object' && !Array.isArray(v)) {
      for (const [gk, gv] of Object.entries(v as Record<string, unknown>)) if (gv !== undefined) out[`graph.${gk}`] = gv;
    } else out[k] = v;
  }
  return out;
}

/** JSON with object keys sorted, so key order never counts as a change. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) : v));
}
