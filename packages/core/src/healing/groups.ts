/**
 * Visual groups (VON Similo's insight): on a rendered page several nodes are often the same
 * logical element — a `<label>` and the `<span>` inside it, an `<a>` and its `<svg>` icon,
 * a `<button>` and its text `<span>`. Redesigns move attributes between such nodes (the
 * text from the link to its inner span, the id from the button to its icon), so each node
 * is also compared through the attributes of its group.
 *
 * Two candidates are linked when one is the other's nearest candidate ancestor (within
 * GROUP_DEPTH xpath steps) and that ancestor has no other candidate below it — a wrapper,
 * not a container — or when their boxes nearly coincide (intersection over union ≥
 * GROUP_IOU). Groups are the connected parts, at most GROUP_MAX nodes. Linear in the page
 * size (a map of xpaths, a grid of box centres).
 */
import { overlap } from './geometry.ts';
import type { Prepared } from './prepare.ts';

export const GROUP_DEPTH = 2;
export const GROUP_IOU = 0.7;
export const GROUP_MAX = 6;
/** Grid cell for box-centre bucketing, px: boxes whose centres are this close are compared. */
const CELL = 24;

/** Sets `group` (the other members) and `groupTokens` (tokens of all members) on every candidate. */
export function linkGroups(candidates: readonly Prepared[]): void {
  const n = candidates.length;
  const byXpath = new Map<string, number>();
  candidates.forEach((c, i) => {
    if (c.xpathKey && !byXpath.has(c.xpathKey)) byXpath.set(c.xpathKey, i);
  });
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const size = new Int32Array(n).fill(1);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  const union = (a: number, b: number) => {
    const [ra, rb] = [find(a), find(b)];
    if (ra === rb || size[ra] + size[rb] > GROUP_MAX) return;
    parent[rb] = ra;
    size[ra] += size[rb];
  };
  // Nearest candidate ancestor of each node, and how many nodes have it as nearest ancestor.
  const up = new Int32Array(n).fill(-1);
  const below = new Int32Array(n);
  candidates.forEach((c, i) => {
    let key = c.xpathKey;
    for (let d = 0; d < GROUP_DEPTH && key; d++) {
      const cut = key.lastIndexOf('/');
      if (cut <= 0) break;
      key = key.slice(0, cut);
      const a = byXpath.get(key);
      if (a !== undefined) {
        up[i] = a;
        below[a]++;
        break;
      }
    }
  });
  for (let i = 0; i < n; i++) if (up[i] >= 0 && below[up[i]] === 1) union(up[i], i);
  // Coinciding boxes: compare only nodes whose centres fall in neighbouring grid cells.
  const grid = new Map<string, number[]>();
  candidates.forEach((c, i) => {
    const b = c.box;
    if (!b || b.width <= 0 || b.height <= 0) return;
    const gx = Math.floor((b.x + b.width / 2) / CELL);
    const gy = Math.floor((b.y + b.height / 2) / CELL);
    for (let dx = -1; dx <= 1; dx++)
      for (let dy = -1; dy <= 1; dy++) for (const o of grid.get(`${gx + dx},${gy + dy}`) ?? []) if (overlap(b, candidates[o].box!) >= GROUP_IOU) union(o, i);
    const k = `${gx},${gy}`;
    const list = grid.get(k);
    if (list) list.push(i);
    else grid.set(k, [i]);
  });
  const members = new Map<number, Prepared[]>();
  candidates.forEach((c, i) => {
    const r = find(i);
    const list = members.get(r);
    if (list) list.push(c);
    else members.set(r, [c]);
  });
  candidates.forEach((c, i) => {
    c.groupId = find(i);
    const all = members.get(c.groupId)!;
    c.group = all.filter((m) => m !== c);
    if (!c.group.length) {
      c.groupTokens = c.contextTokens;
      return;
    }
    const t = new Set(c.contextTokens);
    for (const m of c.group) for (const x of m.contextTokens) t.add(x);
    c.groupTokens = t;
  });
}
