import { priorities, type Priority, type TestSpec } from '../contracts/test-spec.ts';
import { buildPlan, priorityOf, type PlanItem, type PlanSurface } from '../intelligence/planning/plan.ts';
import type { CodeSurface } from './surfaces.ts';

/** Where one stored test goes in the plan, and why (kept in the plan_tests message of the state). */
export interface PlannedTest {
  spec: TestSpec;
  test_id: string;
  /** The stored test's own priority. */
  stored_priority: Priority;
  /** What the planner makes of the surfaces the test exercises (null: it exercises none the planner knows). */
  planned_priority: Priority | null;
  /** The higher of the two: the plan only ever raises a test's priority. */
  priority: Priority;
  risk_score: number;
  /** A surface it exercises is touched by the run's changed files. */
  changed: boolean;
  reasons: string[];
  /** "METHOD path" of the surfaces it exercises; code surfaces also name their file. */
  surfaces: string[];
}

interface Touch {
  method: string;
  path: string;
}

type Scored = PlanSurface & { ref: string; fromCode: boolean };

/**
 * Orders the run's stored tests with the planning module (intelligence/planning): each
 * test is scored by the surfaces it exercises — its UI `goto` pages and API `request`s,
 * matched against the code analyser's surfaces when there are any — and the run's
 * changed files. Order: tests touching a changed surface first, then by priority (the
 * higher of the stored and planned one), then by risk score; ties keep the run's order.
 */
export function prioritiseTests(specs: TestSpec[], code: CodeSurface[], changedFiles: string[]): PlannedTest[] {
  const touches = specs.map(touchesOf);
  const surfaces: Scored[] = code.map((c) => ({ kind: c.surface_kind, method: c.method, path: c.path, file: c.file, name: c.name, ref: `${c.method} ${c.path} (${c.file}:${c.line})`, fromCode: true }));
  // A page or request no analysed surface serves is scored on its own (sensitivity, changed paths).
  for (const t of touches.flat()) {
    if (!surfaces.some((s) => serves(s, t))) surfaces.push({ kind: t.method === 'GET' ? 'page' : 'http_route', method: t.method, path: t.path, ref: `${t.method} ${t.path}`, fromCode: false });
  }
  // One surface at a time, so each plan item is known to belong to its surface.
  const itemOf = new Map<Scored, PlanItem>(surfaces.map((s) => [s, buildPlan({ surfaces: [s], changed_files: changedFiles }).items[0]]));

  const planned = specs.map((spec, i): PlannedTest => {
    const hit = surfaces.filter((s) => touches[i].some((t) => serves(s, t)));
    const items = hit.map((s) => itemOf.get(s)).filter((x): x is PlanItem => !!x);
    const risk = items.reduce((m, it) => Math.max(m, it.risk_score), 0);
    const plannedPriority = items.length ? priorityOf(risk) : null;
    const priority = plannedPriority && rank(plannedPriority) < rank(spec.priority) ? plannedPriority : spec.priority;
    const reasons = [...new Set(items.flatMap((it) => it.reasons))];
    return {
      spec: { ...spec, priority },
      test_id: spec.id,
      stored_priority: spec.priority,
      planned_priority: plannedPriority,
      priority,
      risk_score: risk,
      changed: reasons.some((r) => r.startsWith('changed in this diff')),
      reasons: reasons.length ? reasons : ['exercises no page or request the planner can score'],
      surfaces: [...new Set(hit.map((s) => s.ref))],
    };
  });
  const order = new Map(planned.map((p, i) => [p, i]));
  return planned.sort((a, b) => Number(b.changed) - Number(a.changed) || rank(a.priority) - rank(b.priority) || b.risk_score - a.risk_score || order.get(a)! - order.get(b)!);
}

const rank = (p: Priority) => priorities.indexOf(p);

/** Pages a UI test opens and requests an API test sends, as METHOD + path (query and host dropped). */
function touchesOf(spec: TestSpec): Touch[] {
  const out: Touch[] = [];
  for (const step of spec.steps as Array<{ type: string; url?: unknown; method?: unknown }>) {
    if ((step.type !== 'goto' && step.type !== 'request') || typeof step.url !== 'string') continue;
    const path = pathOf(step.url);
    if (!path) continue;
    const method = step.type === 'goto' ? 'GET' : typeof step.method === 'string' ? step.method.toUpperCase() : 'GET';
    if (!out.some((t) => t.method === method && t.path === path)) out.push({ method, path });
  }
  return out;
}

function pathOf(url: string): string | undefined {
  url = url.replace(/^(\$\{[^}]*\}|\{\{[^}]*\}\})(?=\/)/, ''); // "${BASE_URL}/login", "{{base}}/login" → "/login"
  if (/\{\{|\$\{/.test(url)) return undefined; // a parameterised path names no one surface
  try {
    return new URL(url, 'http://base.invalid').pathname.replace(/\/+$/, '') || '/';
  } catch {
    return undefined;
  }
}

/** A code surface serves a touch when the method agrees (ANY serves all) and its path pattern matches; a test's own surface, when it is the touch. */
function serves(s: Scored, t: Touch): boolean {
  if (!s.fromCode) return s.method === t.method && s.path === t.path;
  if (s.method !== 'ANY' && s.method !== t.method) return false;
  return patternOf(s.path).test(t.path);
}

const patterns = new Map<string, RegExp>();
function patternOf(path: string): RegExp {
  let re = patterns.get(path);
  if (!re) {
    // Each segment brings its own leading slash, so an optional one can leave it out: `/shop/:path*?` matches `/shop`.
    // `:slug*` (Next.js [...slug]) and `:p+` are one or more segments, `:slug*?` ([[...slug]]) zero or more, `:id?` one
    // or none (found by QA: `:slug*` matched one segment only, so a changed catch-all page did not put its tests first).
    const segments = (path.replace(/\/+$/, '') || '/').split('/').slice(1);
    const body = segments
      .map((seg) => {
        if (seg === '*' || seg.startsWith('*')) return '(?:/.*)?';
        if (/^:\w+(?:\*\?)$/.test(seg)) return '(?:/.*)?';
        if (/^:\w+[*+]$/.test(seg)) return '/.+';
        if (/^:\w+\?$/.test(seg)) return '(?:/[^/]+)?';
        if (seg.startsWith(':') || /^\{.+\}$/.test(seg)) return '/[^/]+';
        return `/${seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
      })
      .join('');
    re = new RegExp(`^${body || '/'}$`);
    patterns.set(path, re);
  }
  return re;
}
