import type { CodeCoverage, CoverageGapsResponse, CoverageMapResponse } from '../contracts/insights.ts';
import { isHashRoute } from '../intelligence/discovery/urls.ts';
import { buildPlan, type PlanPage } from '../intelligence/planning/index.ts';
import { isPassing, type Execution, type RunHistory } from './history.ts';

/** What coverage reads of a test: its name and the steps that say where it goes. */
export interface CoverageTest {
  id: string;
  name: string;
  steps: unknown[];
}

export interface CoverageInput {
  projectId: string;
  /** The project's app URL: relative goto URLs resolve against it. */
  appUrl: string | null;
  discoverySessionId: string | null;
  pages: PlanPage[];
  tests: Map<string, CoverageTest>;
  history: RunHistory;
  /** The code's side (code-coverage.ts), when the project has an analysed codebase. */
  code?: CodeCoverage | null;
}

const MAX_TESTS_PER_PAGE = 20;
const MAX_VISITED_ELSEWHERE = 50;

/**
 * A page's place on the map: its path, plus a hash route (#/cart) since on single-page
 * apps those are pages. The origin is not compared (tests often run against another
 * host than the one discovery crawled) and neither is the query: /orders?page=2 is the
 * orders page. Undefined for what is not an http(s) URL or path.
 */
export function pageKey(url: string, base?: string | null): string | undefined {
  let u: URL;
  try {
    u = new URL(url, base ?? 'http://svc.invalid');
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  const path = u.pathname.length > 1 ? u.pathname.replace(/\/+$/, '') : '/';
  const hash = isHashRoute(u.hash) && u.hash.replace(/^#!?/, '') !== '/' ? u.hash.replace(/^#!/, '#') : '';
  return path + hash;
}

const TEMPLATE = /\{\{[^}]*\}\}/g;
const HAS_TEMPLATE = /\{\{[^}]*\}\}/;
/** What a variable ({{id}}) in a test's URL stands for while matching: one path segment. */
export const VARIABLE_MARKER = 'svcvar0';

/**
 * A test URL as a page key with each variable replaced by VARIABLE_MARKER; a leading
 * variable is the host ({{env.BASE_URL}}/x → /x).
 */
export function sampleKey(url: string, base: string | null): string | undefined {
  return pageKey(url.replace(/^\{\{[^}]*\}\}/, '').replace(TEMPLATE, VARIABLE_MARKER), base);
}

/**
 * Where a goto step says a test goes, as a matcher on page keys. A URL with variables
 * ({{env.BASE}}/users/{{id}}) matches any value in their place within one path segment;
 * a goto whose host is itself a variable is taken as a path.
 */
export function declaredMatcher(url: string, base: string | null): ((key: string) => boolean) | undefined {
  if (!HAS_TEMPLATE.test(url)) {
    const key = pageKey(url, base);
    return key ? (k) => k === key : undefined;
  }
  const key = sampleKey(url, base);
  if (!key) return undefined;
  const pattern = new RegExp(`^${key.split(VARIABLE_MARKER).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/#]+')}$`);
  return (k) => pattern.test(k);
}

/** Every execution of the window that ran, newest first, with the page keys its browser was on. */
export function visitedExecutions(history: RunHistory): Array<{ e: Execution; keys: Set<string> }> {
  const out: Array<{ e: Execution; keys: Set<string> }> = [];
  for (const { executions } of history.runs) for (const e of executions) if (e.status !== 'skipped') out.push({ e, keys: new Set(e.pages_visited.map((u) => pageKey(u)).filter((k): k is string => !!k)) });
  return out.reverse();
}

/** The goto steps of a test, as matchers. */
function declaredPages(test: CoverageTest, base: string | null) {
  const out: Array<(key: string) => boolean> = [];
  for (const step of test.steps) {
    const s = step as { type?: unknown; url?: unknown };
    if (s.type === 'goto' && typeof s.url === 'string') {
      const m = declaredMatcher(s.url, base);
      if (m) out.push(m);
    }
  }
  return out;
}

/**
 * The coverage map: every page discovery found, with the tests that go there and what
 * the latest of them did in the window. A test goes to a page when one of its goto steps
 * names it, or when its browser was on it during a run of the window (after a click, a
 * redirect, a form). Also the HTTP endpoints API tests call, and pages tests visited that
 * discovery never found.
 */
export function coverageMap(input: CoverageInput): CoverageMapResponse {
  const declared = new Map<string, Array<(key: string) => boolean>>();
  for (const t of input.tests.values()) declared.set(t.id, declaredPages(t, input.appUrl));

  const executions = visitedExecutions(input.history);

  const pageKeys = new Set<string>();
  const pages = input.pages.map((p) => {
    const key = pageKey(p.url) ?? p.url;
    pageKeys.add(key);
    const declaring = [...declared].filter(([, ms]) => ms.some((m) => m(key))).map(([id]) => id);
    const visits = executions.filter(({ e, keys }) => keys.has(key) || declaring.includes(e.test_id));
    const testIds = [...new Set([...visits.map((v) => v.e.test_id), ...declaring])];
    const latest = visits[0]?.e;
    const state = latest ? (isPassing(latest.status) ? 'covered' : 'failing') : declaring.length ? 'declared' : 'uncovered';
    return {
      url: p.url,
      page_type: p.page_type,
      importance_score: p.importance_score,
      risk_score: p.risk_score,
      state: state as 'covered' | 'failing' | 'declared' | 'uncovered',
      tests: testIds.slice(0, MAX_TESTS_PER_PAGE).map((id) => ({ test_id: id, name: input.tests.get(id)?.name ?? visits.find((v) => v.e.test_id === id)?.e.name ?? id })),
    };
  });

  const elsewhere = new Set<string>();
  for (const { keys } of executions) for (const k of keys) if (!pageKeys.has(k) && elsewhere.size < MAX_VISITED_ELSEWHERE) elsewhere.add(k);

  const endpoints = new Map<string, { method: string; url: string; tests: Array<{ test_id: string; name: string }> }>();
  for (const t of input.tests.values()) {
    for (const step of t.steps) {
      const s = step as { type?: unknown; method?: unknown; url?: unknown };
      if (s.type !== 'request' || typeof s.url !== 'string') continue;
      const method = typeof s.method === 'string' ? s.method : 'GET';
      const id = `${method} ${s.url}`;
      const entry = endpoints.get(id) ?? { method, url: s.url, tests: [] };
      endpoints.set(id, entry);
      if (!entry.tests.some((x) => x.test_id === t.id) && entry.tests.length < MAX_TESTS_PER_PAGE) entry.tests.push({ test_id: t.id, name: t.name });
    }
  }

  const count = (s: string) => pages.filter((p) => p.state === s).length;
  const reached = count('covered') + count('failing');
  return {
    project_id: input.projectId,
    window: input.history.window,
    discovery_session_id: input.discoverySessionId,
    pages,
    endpoints: [...endpoints.values()].sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method)),
    summary: {
      pages: pages.length,
      covered: count('covered'),
      failing: count('failing'),
      declared: count('declared'),
      uncovered: count('uncovered'),
      coverage: pages.length ? Math.round((reached / pages.length) * 1000) / 1000 : null,
    },
    visited_elsewhere: [...elsewhere].sort(),
    code: input.code ?? null,
  };
}

/**
 * The map's gaps, riskiest first: pages no test goes to, and pages a test goes to that
 * did not run in the window. Priorities and reasons are the planner's (/api/suggest), so
 * a gap and a plan item rank the same page the same way.
 */
export function coverageGaps(map: CoverageMapResponse, limit: number): CoverageGapsResponse {
  const open = map.pages.filter((p) => p.state === 'uncovered' || p.state === 'declared');
  const stateOf = new Map(open.map((p) => [p.url, p.state as 'uncovered' | 'declared']));
  const plan = buildPlan({ pages: open });
  const items = plan.items
    .filter((i) => i.kind === 'page' && stateOf.has(i.target))
    .map((i) => {
      const state = stateOf.get(i.target)!;
      return {
        url: i.target,
        page_type: open.find((p) => p.url === i.target)!.page_type,
        priority: i.priority,
        risk_score: i.risk_score,
        reasons: state === 'declared' ? [...i.reasons, 'a test goes here but did not run in the window'] : [...i.reasons, 'no test goes here'],
        suggested_test: i.suggested_test,
        state,
      };
    });
  return { project_id: map.project_id, discovery_session_id: map.discovery_session_id, items: items.slice(0, limit), total: items.length, pages: map.pages.length, code: map.code ? codeGaps(map.code, limit) : null };
}

/** The code's gaps, ranked as the planner ranks surfaces (sensitive, writes data, parameters). */
function codeGaps(code: CodeCoverage, limit: number) {
  const open = code.surfaces.filter((s) => s.state === 'uncovered' || s.state === 'declared');
  const byTarget = new Map<string, typeof open>();
  for (const s of open) byTarget.set(`${s.method} ${s.path}`, [...(byTarget.get(`${s.method} ${s.path}`) ?? []), s]);
  const plan = buildPlan({ surfaces: open.map((s) => ({ kind: s.kind, method: s.method, path: s.path, file: s.file })) });
  const items = plan.items.filter((i) => i.kind === 'surface').map((i) => {
    const s = byTarget.get(i.target)!.shift()!; // one plan item per surface, in any order
    const why = s.state === 'declared' ? 'a test goes here but did not run in the window' : 'no test reaches it';
    return { kind: s.kind, method: s.method, path: s.path, file: s.file, line: s.line, priority: i.priority, risk_score: i.risk_score, reasons: [...i.reasons, why], suggested_test: i.suggested_test, state: s.state as 'uncovered' | 'declared' };
  });
  return { ingestion_id: code.ingestion_id, items: items.slice(0, limit), total: items.length };
}
