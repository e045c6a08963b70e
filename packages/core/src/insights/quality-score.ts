import type { CoverageMapResponse, FlakyRankingResponse, QualityScoreResponse } from '../contracts/insights.ts';
import type { RunHistory } from './history.ts';

/** Weights of the components; those that cannot be measured drop out and the rest are scaled. */
export const QUALITY_WEIGHTS = { pass_rate: 0.35, stability: 0.25, coverage: 0.25, maintenance: 0.15 } as const;
type ComponentName = keyof typeof QUALITY_WEIGHTS;

const STALE_DAYS = 7;
const pct = (n: number) => Math.round(n * 1000) / 10;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const list = (names: string[]) => names.slice(0, 3).join(', ') + (names.length > 3 ? ', …' : '');

export function gradeOf(score: number): 'A' | 'B' | 'C' | 'D' | 'F' {
  return score >= 90 ? 'A' : score >= 80 ? 'B' : score >= 70 ? 'C' : score >= 60 ? 'D' : 'F';
}

/**
 * One number for a project's test health, 0..100, with the parts it is made of and what
 * costs it most. Parts: pass rate of the window's executions; stability (tests that are
 * not flaky); coverage of the pages discovery found and of the routes and pages in the
 * analysed code; maintenance (executions that did not need a healed locator). A part with
 * nothing to measure (neither discovery nor an analysed codebase: no coverage) is left out
 * rather than guessed, and says so.
 */
export function qualityScore(projectId: string, history: RunHistory, flaky: FlakyRankingResponse, coverage: CoverageMapResponse, now: Date): QualityScoreResponse {
  const executions = history.runs.flatMap((r) => r.executions).filter((e) => e.status !== 'skipped');
  const failed = executions.filter((e) => e.status === 'failed');
  const healed = executions.filter((e) => e.status === 'healed');
  const flakyTests = flaky.items.filter((i) => i.flaky);

  const parts: Array<{ name: ComponentName; score: number | null; detail: string; loss: string | null }> = [];
  if (executions.length) {
    const rate = (executions.length - failed.length) / executions.length;
    const failingNames = [...new Set(failed.map((e) => e.name ?? e.test_id))];
    parts.push({ name: 'pass_rate', score: pct(rate), detail: `${executions.length - failed.length} of ${plural(executions.length, 'execution')} passed`, loss: failed.length ? `${failed.length} of ${plural(executions.length, 'execution')} failed (${list(failingNames)})` : null });
    parts.push({
      name: 'stability',
      score: pct(flaky.tests_executed ? 1 - flakyTests.length / flaky.tests_executed : 1),
      detail: `${flakyTests.length} of ${plural(flaky.tests_executed, 'test')} flaky`,
      loss: flakyTests.length ? `${plural(flakyTests.length, 'flaky test')} (${list(flakyTests.map((t) => t.name))})` : null,
    });
    parts.push({ name: 'maintenance', score: pct(1 - healed.length / executions.length), detail: `${healed.length} of ${plural(executions.length, 'execution')} needed a healed locator`, loss: healed.length ? `${plural(healed.length, 'execution')} passed only after healing a locator: accept the heals into the tests` : null });
  } else {
    parts.push({ name: 'pass_rate', score: null, detail: 'no finished run in the window', loss: null });
    parts.push({ name: 'stability', score: null, detail: 'no finished run in the window', loss: null });
    parts.push({ name: 'maintenance', score: null, detail: 'no finished run in the window', loss: null });
  }
  parts.push(coveragePart(coverage));
  parts.sort((a, b) => Object.keys(QUALITY_WEIGHTS).indexOf(a.name) - Object.keys(QUALITY_WEIGHTS).indexOf(b.name));

  const measured = parts.filter((p) => p.score !== null);
  const weightSum = measured.reduce((n, p) => n + QUALITY_WEIGHTS[p.name], 0);
  const components = parts.map((p) => ({ name: p.name, score: p.score, weight: p.score === null || !weightSum ? 0 : Math.round((QUALITY_WEIGHTS[p.name] / weightSum) * 1000) / 1000, detail: p.detail }));
  const score = executions.length && weightSum ? Math.round((measured.reduce((n, p) => n + QUALITY_WEIGHTS[p.name] * p.score!, 0) / weightSum) * 10) / 10 : null;

  const reasons = measured
    .filter((p) => p.loss && p.score! < 100)
    .map((p) => ({ lost: (QUALITY_WEIGHTS[p.name] / weightSum) * (100 - p.score!), text: p.loss! }))
    .sort((a, b) => b.lost - a.lost)
    .map((r) => `${r.text}: −${Math.round(r.lost * 10) / 10} points`);
  if (history.window.to && now.getTime() - Date.parse(history.window.to) > STALE_DAYS * 86_400_000) reasons.push(`the latest run is more than ${STALE_DAYS} days old: the score may not describe the app as it is now`);
  if (!executions.length) reasons.push('no finished run in the window: run the tests to get a score');

  return { project_id: projectId, window: history.window, score, grade: score === null ? null : gradeOf(score), components, reasons, computed_at: now.toISOString() };
}

/**
 * Coverage: the share of discovered pages and the share of the analysed code's surfaces a
 * test reached in the window; with both, their mean (each says something the other cannot:
 * a crawl finds what users reach, the code what exists), with neither, not measured.
 */
function coveragePart(coverage: CoverageMapResponse): { name: 'coverage'; score: number | null; detail: string; loss: string | null } {
  const measures: Array<{ share: number; detail: string; untested: string[]; of: string }> = [];
  const s = coverage.summary;
  if (s.coverage !== null) {
    const of = plural(s.pages, 'discovered page');
    measures.push({ share: s.coverage, of, detail: `${s.covered + s.failing} of ${of} visited by a test in the window`, untested: coverage.pages.filter((p) => p.state === 'uncovered' || p.state === 'declared').map((p) => p.url) });
  }
  const code = coverage.code;
  if (code && code.summary.coverage !== null) {
    const c = code.summary;
    const of = plural(c.surfaces, 'route or page', 'routes and pages') + ' in the code';
    measures.push({ share: c.coverage!, of, detail: `${c.covered + c.failing} of ${of} reached by a test in the window`, untested: code.surfaces.filter((x) => x.state === 'uncovered' || x.state === 'declared').map((x) => (x.kind === 'page' || x.kind === 'client_route' ? x.path : `${x.method} ${x.path}`)) });
  }
  if (!measures.length) {
    return { name: 'coverage', score: null, detail: 'no completed discovery session and no analysed codebase: run discovery (POST /api/v1/discovery/start) or analyse the code (POST /api/analyze with async) to measure coverage', loss: null };
  }
  const score = pct(measures.reduce((n, m) => n + m.share, 0) / measures.length);
  const losses = measures.filter((m) => m.untested.length).map((m) => `${m.untested.length} of ${m.of} not tested in the window (${list(m.untested)})`);
  return { name: 'coverage', score, detail: measures.map((m) => m.detail).join('; '), loss: losses.length ? losses.join('; ') : null };
}
