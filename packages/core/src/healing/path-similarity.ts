/**
 * XPath similarity, compared step by step (Healenium compares DOM paths by their longest
 * common subsequence; so do we, with partial credit for a step whose tag matches but whose
 * sibling index moved).
 */

/** One location step: lower-case tag (or `#id` for an id anchor) and its 1-based index. */
export interface Step {
  tag: string;
  index: number;
}

const MAX_STEPS = 128;

/**
 * Parses the XPath forms runners emit: `/html/body/div[2]/a`, `/html[1]/body[1]/…`,
 * `//*[@id="main"]/ul[1]/li[3]`, `id("main")/ul[1]`, `*[local-name()="svg"][1]`.
 * An id anchor becomes a step `#main`. Unparseable steps are kept as opaque tags.
 */
export function parseXpath(xpath: string | undefined): Step[] {
  if (!xpath) return [];
  let rest = xpath.trim();
  const steps: Step[] = [];
  const anchor = /^(?:\/\/\*\[@id=(?:"([^"]*)"|'([^']*)')\]|id\((?:"([^"]*)"|'([^']*)')\))/.exec(rest);
  if (anchor) {
    steps.push({ tag: `#${anchor[1] ?? anchor[2] ?? anchor[3] ?? anchor[4] ?? ''}`, index: 1 });
    rest = rest.slice(anchor[0].length);
  }
  for (const raw of splitSteps(rest)) {
    if (steps.length >= MAX_STEPS) break;
    const local = /^\*\[local-name\(\)\s*=\s*["']([^"']+)["']\](?:\[(\d+)\])?$/.exec(raw);
    if (local) {
      steps.push({ tag: local[1].toLowerCase(), index: local[2] ? Number(local[2]) : 1 });
      continue;
    }
    const m = /^([\w:.-]+|\*)(?:\[(\d+)\])?/.exec(raw);
    steps.push(m ? { tag: m[1].toLowerCase(), index: m[2] ? Number(m[2]) : 1 } : { tag: raw.toLowerCase(), index: 1 });
  }
  return steps;
}

/** Splits on `/` outside brackets and quotes. */
function splitSteps(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote = '';
  let cur = '';
  for (const ch of s) {
    if (quote) {
      if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[') depth++;
    else if (ch === ']') depth = Math.max(0, depth - 1);
    else if (ch === '/' && depth === 0) {
      if (cur) out.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  if (cur) out.push(cur);
  return out;
}

const stepScore = (a: Step, b: Step): number => (a.tag !== b.tag ? 0 : a.index === b.index ? 1 : 0.5);

/**
 * Weighted LCS of two step lists (a step with the same tag but another index counts ½),
 * normalised by the longer path: 1 = identical paths.
 */
export function pathLcs(a: readonly Step[], b: readonly Step[]): number {
  if (!a.length || !b.length) return a.length === b.length ? 1 : 0;
  const n = b.length;
  let prev = new Float64Array(n + 1);
  let cur = new Float64Array(n + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = 0;
    for (let j = 1; j <= n; j++) {
      const s = stepScore(a[i - 1], b[j - 1]);
      const diag = s > 0 ? prev[j - 1] + s : 0;
      const best = prev[j] > cur[j - 1] ? prev[j] : cur[j - 1];
      cur[j] = diag > best ? diag : best;
    }
    const t = prev;
    prev = cur;
    cur = t;
  }
  return prev[n] / Math.max(a.length, n);
}

/**
 * How much of the two paths' ends agree, leaf first (the leaf and its parents identify an
 * element better than the page scaffolding above them): matched trailing steps / longer
 * length of the compared tail (at most 6 steps).
 */
export function pathSuffix(a: readonly Step[], b: readonly Step[], depth = 6): number {
  const k = Math.min(depth, Math.max(a.length, b.length));
  if (!k) return 1;
  let score = 0;
  for (let i = 1; i <= Math.min(k, a.length, b.length); i++) {
    const s = stepScore(a[a.length - i], b[b.length - i]);
    if (!s) break;
    score += s;
  }
  return score / k;
}
