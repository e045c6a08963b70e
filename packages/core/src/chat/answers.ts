import type { ChatData, ResultRow } from './retrieve.ts';
import { capabilities, type BuiltInIntent } from './intents.ts';
import { quarantineOf, quarantinedFailedTests } from '../execution/totals.ts';

export interface BuiltInAnswer {
  intent: BuiltInIntent;
  answer: string;
  /** The rows behind the answer, and the runs they were read from. */
  data: Record<string, unknown>;
}

const MAX_ROWS = 20;
const row = (r: ResultRow) => ({ run_id: r.run_id, test_id: r.test_id, test_name: r.test_name, status: r.status, duration_ms: r.duration_ms, error_message: r.error_message, quarantined: quarantineOf(r) !== undefined });
const names = (rows: Array<{ test_name: string }>, n = 5) => rows.slice(0, n).map((r) => `"${r.test_name}"`).join(', ') + (rows.length > n ? ` and ${rows.length - n} more` : '');
const runsLooked = (d: ChatData) => d.runs.map((r) => r.id);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
/** " (2 in quarantine)": failures that do not fail the run (docs/quarantine.md) are said to be so. */
const inQuarantine = (n: number) => (n ? ` (${n} in quarantine)` : '');

/** The heals a run recorded on a result (metadata.heals: one per healed locator, in step order). */
function healsOf(r: ResultRow): Array<{ step: number; field?: string; original: string; healed: string; confidence: number | null }> {
  const heals = r.metadata.heals;
  if (!Array.isArray(heals)) return [];
  return heals
    .filter((h): h is Record<string, unknown> => !!h && typeof h === 'object' && typeof (h as Record<string, unknown>).original === 'string' && typeof (h as Record<string, unknown>).healed === 'string')
    .map((h) => ({ step: Number(h.index), ...(typeof h.field === 'string' ? { field: h.field } : {}), original: h.original as string, healed: h.healed as string, confidence: typeof h.confidence === 'number' ? h.confidence : null }));
}

/** Healing data beyond run results (the healing patterns store), when the store has it. */
export interface HealingSource {
  available: boolean;
  patterns: Array<Record<string, unknown>>;
}

/**
 * The deterministic answers. Each says what it is based on and carries the rows in
 * `data`, so the caller (or a model, see service.ts) can check or cite them.
 */
export function builtInAnswer(intent: BuiltInIntent, d: ChatData, healing: HealingSource): BuiltInAnswer {
  const noRuns = d.runs.length === 0;
  const base = { runs_considered: runsLooked(d), project_id: d.scope.project_id };
  switch (intent) {
    case 'failed': {
      if (noRuns) return { intent, answer: 'There are no runs yet, so nothing has failed.', data: { ...base, rows: [] } };
      const latest = d.runs[0];
      const lastFailed = d.results.filter((r) => r.run_id === latest.id && r.status === 'failed');
      const recentFailed = d.results.filter((r) => r.status === 'failed');
      const distinct = new Set(recentFailed.map((r) => r.test_id)).size;
      const quarantined = lastFailed.filter((r) => quarantineOf(r) !== undefined).length;
      const answer = lastFailed.length
        ? `In the last run (${latest.id}, ${latest.status}) ${plural(lastFailed.length, 'test')} failed${inQuarantine(quarantined)}: ${names(lastFailed)}. Across the last ${plural(d.runs.length, 'run')}, ${plural(distinct, 'test')} failed at least once.`
        : `Nothing failed in the last run (${latest.id}, ${latest.status}). Across the last ${plural(d.runs.length, 'run')}, ${plural(distinct, 'test')} failed at least once${distinct ? `: ${names(uniqueByTest(recentFailed))}` : ''}.`;
      return { intent, answer, data: { ...base, last_run_id: latest.id, rows: (lastFailed.length ? lastFailed : recentFailed).slice(0, MAX_ROWS).map(row), quarantined_failures: quarantined, recent_failures: recentFailed.length } };
    }
    case 'healed': {
      const healed = d.results.filter((r) => r.status === 'healed' || r.metadata.healed === true || typeof r.metadata.healed_selector === 'string' || healsOf(r).length > 0);
      const rows = healed.slice(0, MAX_ROWS).map((r) => {
        const heals = healsOf(r);
        // A run records each heal in metadata.heals; results written by older code carry one selector pair.
        const first = heals[0];
        return { ...row(r), healed_selector: first?.healed ?? r.metadata.healed_selector ?? null, original_selector: first?.original ?? r.metadata.original_selector ?? null, heals };
      });
      const patternNote = healing.available ? ` ${plural(healing.patterns.length, 'healing pattern')} stored.` : ' Healing pattern data isn\'t available in this installation; this answer uses run results only.';
      const answer = healed.length
        ? `${plural(healed.length, 'test execution')} healed in the last ${plural(d.runs.length, 'run')}: ${names(uniqueByTest(healed))}.${patternNote}`
        : `Nothing healed in the last ${plural(d.runs.length, 'run')}.${patternNote}`;
      return { intent, answer, data: { ...base, rows, healing_patterns: healing.available ? healing.patterns.slice(0, MAX_ROWS) : null } };
    }
    case 'flaky': {
      // By case: one parameter set failing while another passes in the same run is not flakiness.
      const byCase = new Map<string, ResultRow[]>();
      for (const r of d.results) byCase.set(r.case_id, [...(byCase.get(r.case_id) ?? []), r]);
      const flaky = [...byCase.values()]
        .filter((rs) => rs.some((r) => r.status === 'passed' || r.status === 'healed') && rs.some((r) => r.status === 'failed'))
        .map((rs) => ({ test_id: rs[0].test_id, test_name: rs[0].test_name, runs: rs.length, passed: rs.filter((r) => r.status === 'passed' || r.status === 'healed').length, failed: rs.filter((r) => r.status === 'failed').length }))
        .sort((a, b) => b.failed / b.runs - a.failed / a.runs);
      const answer = flaky.length
        ? `${plural(flaky.length, 'test')} both passed and failed across the last ${plural(d.runs.length, 'run')}: ${flaky.slice(0, 5).map((f) => `"${f.test_name}" (${f.failed}/${f.runs} failed)`).join(', ')}${flaky.length > 5 ? ` and ${flaky.length - 5} more` : ''}.`
        : noRuns ? 'There are no runs yet, so no test can be called flaky.' : `No test both passed and failed across the last ${plural(d.runs.length, 'run')}.`;
      return { intent, answer, data: { ...base, rows: flaky.slice(0, MAX_ROWS) } };
    }
    case 'test_count': {
      const answer = `There ${d.testCount === 1 ? 'is' : 'are'} ${d.testsCapped ? 'at least ' : ''}${plural(d.testCount, 'test')}${d.scope.project_id ? ' in this project' : ' in this organization'}.`;
      return { intent, answer, data: { ...base, rows: [{ test_count: d.testCount, capped: d.testsCapped }] } };
    }
    case 'last_run': {
      if (noRuns) return { intent, answer: 'There are no runs yet.', data: { ...base, rows: [] } };
      const r = d.runs[0];
      const quarantined = quarantinedFailedTests(r);
      const answer = `The last run (${r.id}, started by ${r.trigger} at ${r.created_at}) is ${r.status}: ${r.passed_tests} passed, ${r.failed_tests} failed${inQuarantine(quarantined)} of ${r.total_tests}.${r.error ? ` Error: ${r.error}` : ''}`;
      return { intent, answer, data: { ...base, rows: [{ run_id: r.id, status: r.status, trigger: r.trigger, total_tests: r.total_tests, passed_tests: r.passed_tests, failed_tests: r.failed_tests, quarantined_failed_tests: quarantined, created_at: r.created_at, completed_at: r.completed_at, error: r.error }] } };
    }
    case 'slowest': {
      const timed = d.results.filter((r) => r.duration_ms !== null).sort((a, b) => (b.duration_ms ?? 0) - (a.duration_ms ?? 0));
      const slowest = uniqueByTest(timed).slice(0, 10);
      const answer = slowest.length
        ? `The slowest tests in the last ${plural(d.runs.length, 'run')}: ${slowest.slice(0, 5).map((r) => `"${r.test_name}" (${r.duration_ms} ms)`).join(', ')}.`
        : 'No timed results yet.';
      return { intent, answer, data: { ...base, rows: slowest.map(row) } };
    }
    case 'search': // answered by searchAnswer when search finds something; otherwise as help
    case 'help':
      return { intent: 'help', answer: `I can answer: ${capabilities.join('; ')}. Configure a language model (docs/intelligence.md "Models") for other questions.`, data: { ...base, rows: [], capabilities } };
  }
}

/** First row of each test (rows come newest run first, or already sorted). */
function uniqueByTest(rows: ResultRow[]): ResultRow[] {
  const seen = new Set<string>();
  return rows.filter((r) => !seen.has(r.test_id) && seen.add(r.test_id));
}

/** A search hit as chat shows it. */
export interface ChatSearchHit {
  kind: 'test' | 'failure' | 'heal';
  id: string;
  title: string;
  score: number;
  snippet: string;
  project_id: string | null;
  links: Record<string, string>;
}

const KIND_WORDS = { test: 'test', failure: 'failure of', heal: 'heal' } as const;

/** The vector tier's answer: what semantic search found for a question the matcher did not recognise. */
export function searchAnswer(hits: ChatSearchHit[], d: ChatData): BuiltInAnswer {
  const lines = hits.map((h, i) => `${i + 1}. ${KIND_WORDS[h.kind]} "${h.title}" (${h.score.toFixed(2)}): ${h.snippet}`);
  return {
    intent: 'search',
    answer: `I did not recognise the question, but these match it by meaning (semantic search over tests, recent failures and heals):\n${lines.join('\n')}`,
    data: { runs_considered: runsLooked(d), project_id: d.scope.project_id, rows: hits },
  };
}
