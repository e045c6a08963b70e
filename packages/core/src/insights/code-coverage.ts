import type { CodeCoverage } from '../contracts/insights.ts';
import type { CodebaseIngestion } from '../contracts/codebase-ingestions.ts';
import type { Surface } from '../intelligence/analysis/types.ts';
import { sampleKey, visitedExecutions, type CoverageTest } from './coverage.ts';
import { isPassing, type RunHistory } from './history.ts';

export interface CodeCoverageInput {
  ingestion: CodebaseIngestion;
  surfaces: Surface[];
  tests: Map<string, CoverageTest>;
  history: RunHistory;
  appUrl: string | null;
}

/** Surfaces listed in the answer; the summary counts them all. */
export const MAX_CODE_SURFACES = 500;
const MAX_TESTS_PER_SURFACE = 20;

/**
 * A route path as a matcher on page keys (pageKey: path, plus a hash route). Express style:
 * `:id` one segment, `:id?` an optional one, `:rest*` / `*` anything. Client routes also
 * match the hash part (`#/cart` for a hash router's `/cart`).
 */
export function routeMatcher(path: string, hashToo = false): (key: string) => boolean {
  const segments = path.replace(/\/+$/, '').split('/').filter((s, i) => i === 0 || s !== '');
  let source = '';
  for (const seg of segments.slice(1)) {
    if (seg === '*' || /^:[\w$]+\*\??$/.test(seg)) source += '(?:/.*)?';
    else if (/^:[\w$]+\?$/.test(seg)) source += '(?:/[^/#]+)?';
    else if (seg.startsWith(':')) source += '/[^/#]+';
    else source += `/${seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
  }
  const re = new RegExp(`^${source || '/'}$`);
  const test = (p: string) => re.test(p) || (source === '' && p === '/');
  return (key) => {
    const hash = key.indexOf('#');
    const path = hash >= 0 ? key.slice(0, hash) : key;
    if (test(path)) return true;
    return hashToo && hash >= 0 && test(key.slice(hash + 1).replace(/^!/, '') || '/');
  };
}

interface TestReach {
  pages: string[];
  requests: Array<{ method: string; key: string }>;
}

function reachOf(test: CoverageTest, base: string | null): TestReach {
  const out: TestReach = { pages: [], requests: [] };
  for (const step of test.steps) {
    const s = step as { type?: unknown; url?: unknown; method?: unknown };
    if (typeof s.url !== 'string') continue;
    const key = sampleKey(s.url, base);
    if (!key) continue;
    if (s.type === 'goto') out.pages.push(key);
    else if (s.type === 'request') out.requests.push({ method: typeof s.method === 'string' ? s.method.toUpperCase() : 'GET', key });
  }
  return out;
}

/** Browser-facing surfaces are reached by visiting them; endpoints by requests (a GET route by either). */
const isPage = (s: Surface) => s.kind === 'page' || s.kind === 'client_route';
const byVisit = (s: Surface) => isPage(s) || (s.kind === 'http_route' && (s.method === 'GET' || s.method === 'ANY'));
const byRequest = (s: Surface) => !isPage(s);

/**
 * The code's side of the coverage map: each route, page and operation the knowledge worker
 * found in the project's latest analysed codebase, with the tests that reach it and what the
 * latest of them did in the window. A test reaches a page when a goto names it or its browser
 * was on it; an endpoint when a request step calls it with its method (ANY: any method).
 */
export function codeCoverage(input: CodeCoverageInput): CodeCoverage {
  const reach = new Map([...input.tests.values()].map((t) => [t.id, reachOf(t, input.appUrl)]));
  const executions = visitedExecutions(input.history);

  const surfaces = input.surfaces.map((s) => {
    const matches = routeMatcher(s.path, s.kind === 'client_route');
    const declaring = [...reach].filter(([, r]) =>
      (byVisit(s) && r.pages.some(matches)) || (byRequest(s) && r.requests.some((q) => (s.method === 'ANY' || q.method === s.method) && matches(q.key))),
    ).map(([id]) => id);
    const visits = executions.filter(({ e, keys }) => declaring.includes(e.test_id) || (byVisit(s) && [...keys].some(matches)));
    const latest = visits[0]?.e;
    const state = latest ? (isPassing(latest.status) ? 'covered' : 'failing') : declaring.length ? 'declared' : 'uncovered';
    const testIds = [...new Set([...visits.map((v) => v.e.test_id), ...declaring])];
    return {
      kind: s.kind, method: s.method, path: s.path, file: s.file, line: s.line,
      state: state as CodeCoverage['surfaces'][number]['state'],
      tests: testIds.slice(0, MAX_TESTS_PER_SURFACE).map((id) => ({ test_id: id, name: input.tests.get(id)?.name ?? visits.find((v) => v.e.test_id === id)?.e.name ?? id })),
    };
  });

  const count = (state: string) => surfaces.filter((s) => s.state === state).length;
  const { ingestion } = input;
  return {
    ingestion_id: ingestion.id,
    codebase_path: ingestion.codebase_path,
    commit_sha: ingestion.commit_sha,
    analysed_at: ingestion.finished_at,
    surfaces: surfaces.slice(0, MAX_CODE_SURFACES),
    summary: {
      surfaces: surfaces.length,
      covered: count('covered'),
      failing: count('failing'),
      declared: count('declared'),
      uncovered: count('uncovered'),
      coverage: surfaces.length ? Math.round(((count('covered') + count('failing')) / surfaces.length) * 1000) / 1000 : null,
    },
  };
}
