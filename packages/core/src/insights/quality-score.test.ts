import { describe, expect, it } from 'vitest';
import { qualityScore } from './quality-score.ts';
import type { CodeCoverage, CoverageMapResponse, FlakyRankingResponse } from '../contracts/insights.ts';
import type { RunHistory } from './history.ts';
import type { TestRun } from '../contracts/test-run.ts';

const project = '0196a000-0000-7000-8000-000000000002';
const window = { runs: 1, from: '2026-11-27T10:00:00.000Z', to: '2026-11-27T10:00:00.000Z', executions: 2 };
const now = new Date('2026-11-27T12:00:00.000Z');
const history: RunHistory = {
  window,
  runs: [{
    run: { id: 'r1' } as TestRun,
    executions: (['passed', 'passed'] as const).map((status, i) => ({ test_id: `t${i}`, case_id: `t${i}`, run_id: 'r1', status, retry_flake: false, duration_ms: 10, error_message: null, created_at: window.from, pages_visited: [] })),
  }],
};
const flaky: FlakyRankingResponse = { project_id: project, window, items: [], flaky_tests: 0, tests_executed: 2 };
const noPages = { discovery_session_id: null, pages: [], endpoints: [], visited_elsewhere: [], summary: { pages: 0, covered: 0, failing: 0, declared: 0, uncovered: 0, coverage: null } };
const surface = (kind: string, method: string, path: string, state: 'covered' | 'uncovered') => ({ kind, method, path, file: 'app.js', line: 1, state, tests: [] });
const code: CodeCoverage = {
  ingestion_id: '0196a000-0000-7000-8000-000000000001', codebase_path: 'inline upload', commit_sha: null, analysed_at: null,
  surfaces: [surface('http_route', 'GET', '/api/items', 'covered'), surface('http_route', 'POST', '/api/items', 'uncovered'), surface('page', 'GET', '/cart', 'uncovered'), surface('page', 'GET', '/', 'covered')],
  summary: { surfaces: 4, covered: 2, failing: 0, declared: 0, uncovered: 2, coverage: 0.5 },
};
const map = (extra: Partial<CoverageMapResponse>): CoverageMapResponse => ({ project_id: project, window, ...noPages, code: null, ...extra });
const coverageOf = (score: ReturnType<typeof qualityScore>) => score.components.find((c) => c.name === 'coverage')!;

describe('quality score coverage', () => {
  it('is measured by the analysed code alone when no crawl ran, naming what is untested', () => {
    const score = qualityScore(project, history, flaky, map({ code }), now);
    expect(coverageOf(score)).toMatchObject({ score: 50, weight: 0.25, detail: '2 of 4 routes and pages in the code reached by a test in the window' });
    expect(score.score).toBe(Math.round((0.35 * 100 + 0.25 * 100 + 0.25 * 50 + 0.15 * 100) * 10) / 10);
    expect(score.reasons).toEqual(['2 of 4 routes and pages in the code not tested in the window (POST /api/items, /cart): −12.5 points']);
  });

  it('is left out, saying how to measure it, with neither a crawl nor an analysed codebase', () => {
    const score = qualityScore(project, history, flaky, map({}), now);
    expect(coverageOf(score)).toMatchObject({ score: null, weight: 0 });
    expect(coverageOf(score).detail).toContain('POST /api/analyze');
    expect(score.score).toBe(100);
  });

  it('is the mean of the pages and the code when both are known', () => {
    const pages = [{ url: 'http://app/', page_type: 'page', importance_score: 1, risk_score: 0, state: 'covered' as const, tests: [] }, { url: 'http://app/x', page_type: 'page', importance_score: 1, risk_score: 0, state: 'uncovered' as const, tests: [] }];
    const score = qualityScore(project, history, flaky, map({ code, discovery_session_id: project, pages, summary: { pages: 2, covered: 1, failing: 0, declared: 0, uncovered: 1, coverage: 0.5 } }), now);
    expect(coverageOf(score).score).toBe(50);
    expect(score.reasons[0]).toBe('1 of 2 discovered pages not tested in the window (http://app/x); 2 of 4 routes and pages in the code not tested in the window (POST /api/items, /cart): −12.5 points');
  });
});
