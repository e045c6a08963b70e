import { z } from 'zod';
import { IsoDateTime, Uuid } from './common.ts';

/**
 * Analytics and quality insights (spec: /api/analytics/timeline, /api/analytics/heatmap,
 * /api/quality/flaky-ranking, /api/quality/score, /api/coverage/map, /api/coverage/gaps,
 * /api/cost/breakdown). Everything is computed when asked from the project's stored runs
 * and results, over a window of its latest finished runs, so an answer is never staler
 * than the last recorded result. docs/insights.md explains each number.
 */

/** Finished runs an insight reads by default, and at most. */
export const INSIGHT_DEFAULT_RUNS = 30;
export const INSIGHT_MAX_RUNS = 200;

const Since = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })])
  .describe('Only runs created at or after this date or date-time (ISO 8601)');

/** Query of every run-based insight: a project and a window of its latest finished runs. */
export const InsightWindowQuery = z.strictObject({
  project_id: Uuid.describe('Project to look at'),
  runs: z.coerce.number().int().min(1).max(INSIGHT_MAX_RUNS).default(INSIGHT_DEFAULT_RUNS).describe(`Latest finished runs to read, 1..${INSIGHT_MAX_RUNS} (default ${INSIGHT_DEFAULT_RUNS})`),
  since: Since.optional(),
});
export type InsightWindowQuery = z.output<typeof InsightWindowQuery>;

/** The window an answer was computed over. */
export const InsightWindow = z.object({
  runs: z.number().int().describe('Finished runs read'),
  from: IsoDateTime.nullable().describe('Creation time of the oldest run read, or null when there were none'),
  to: IsoDateTime.nullable().describe('Creation time of the newest run read, or null'),
  executions: z.number().int().describe('Test executions in those runs (one per test per run; retries within a run count once)'),
});
export type InsightWindow = z.output<typeof InsightWindow>;

// ---------------------------------------------------------------------------
// Flaky ranking

export const FlakyRankingQuery = InsightWindowQuery.extend({
  limit: z.coerce.number().int().min(1).max(500).default(50).describe('Tests to return, 1..500 (default 50)'),
});
export type FlakyRankingQuery = z.output<typeof FlakyRankingQuery>;

export const FlakyTest = z.object({
  test_id: Uuid,
  parameter_set: z.object({ index: z.number().int(), name: z.string() }).optional().describe('For a parameterised test: the case (set) ranked; each set is ranked on its own'),
  name: z.string().describe('Test name (from the test, or from its last result when the test is gone)'),
  flaky: z.boolean().describe('Meets the definition of flaky (docs/insights.md): passed and failed again with no change to the test in between, or passed on a retry within one run'),
  flakiness: z.number().min(0).max(1).describe('Flips between passing and failing from one run to the next, divided by the chances to flip (executions - 1); flips across an edit of the test are not counted'),
  executions: z.number().int().describe('Runs of the window that executed the test'),
  passed: z.number().int().describe('Executions that passed (healed included)'),
  failed: z.number().int(),
  healed: z.number().int().describe('Executions that passed only after a locator was healed'),
  flips: z.number().int().describe('Pass/fail changes between consecutive executions, not across an edit of the test'),
  retry_flakes: z.number().int().describe('Runs where the test failed an attempt and passed a later attempt'),
  pass_rate: z.number().min(0).max(1),
  history: z.string().describe('Outcomes oldest to newest, one letter per execution: P passed, H healed, F failed, S skipped; | marks an edit of the test'),
  last_status: z.string().describe('Outcome of the latest execution'),
  last_failure_at: IsoDateTime.nullable(),
  last_error: z.string().nullable().describe('Error of the latest failure (first 500 characters)'),
  reasons: z.array(z.string()).describe('Why the test ranks where it does'),
});
export type FlakyTest = z.output<typeof FlakyTest>;

export const FlakyRankingResponse = z.object({
  project_id: Uuid,
  window: InsightWindow,
  items: z.array(FlakyTest).describe('Tests that ever changed outcome in the window, most flaky first'),
  flaky_tests: z.number().int().describe('Tests meeting the definition of flaky'),
  tests_executed: z.number().int().describe('Distinct tests executed in the window'),
});
export type FlakyRankingResponse = z.output<typeof FlakyRankingResponse>;

// ---------------------------------------------------------------------------
// Failure heatmap

export const HeatmapQuery = InsightWindowQuery.extend({
  bucket: z.enum(['day', 'run']).default('day').describe('Columns: UTC days (default) or runs'),
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('Rows (tests with the most failures first), 1..200 (default 50)'),
});
export type HeatmapQuery = z.output<typeof HeatmapQuery>;

export const HeatmapColumn = z.object({
  key: z.string().describe('The UTC day (YYYY-MM-DD) or the run id'),
  label: z.string(),
  executions: z.number().int(),
  failures: z.number().int(),
});
export const HeatmapCell = z.object({
  executions: z.number().int(),
  failures: z.number().int(),
});
export const HeatmapRow = z.object({
  test_id: Uuid,
  name: z.string(),
  failures: z.number().int(),
  executions: z.number().int(),
  cells: z.array(HeatmapCell).describe('One per column, in column order'),
});
export const HeatmapResponse = z.object({
  project_id: Uuid,
  window: InsightWindow,
  bucket: z.enum(['day', 'run']),
  columns: z.array(HeatmapColumn).describe('Oldest first'),
  rows: z.array(HeatmapRow).describe('Tests with the most failures first'),
  total_rows: z.number().int().describe('Tests executed in the window (rows beyond the limit are left out)'),
});
export type HeatmapResponse = z.output<typeof HeatmapResponse>;

// ---------------------------------------------------------------------------
// Execution timeline

export const TimelineRun = z.object({
  run_id: Uuid,
  status: z.string(),
  trigger: z.string(),
  created_at: IsoDateTime,
  started_at: IsoDateTime.nullable(),
  completed_at: IsoDateTime.nullable(),
  duration_ms: z.number().int().nullable().describe('From start to completion, or null when either is unknown'),
  executed: z.number().int(),
  passed: z.number().int().describe('Passed, healed included'),
  failed: z.number().int().describe('Failed, quarantined tests included'),
  quarantined_failed: z.number().int().describe('Of failed, the tests that were quarantined when the run planned them: kept and counted, but their failures do not fail the run'),
  failing: z.boolean().describe('Whether the run failed: it stopped on an error (status failed), or a test that was not quarantined failed. A run whose only failures are quarantined tests is not failing'),
  healed: z.number().int(),
  skipped: z.number().int(),
  pass_rate: z.number().nullable().describe('passed / (passed + failed), or null when nothing passed or failed; quarantined failures count as failures here, as they do in the pass rate of the quality score'),
});
export const TimelineDay = z.object({
  date: z.iso.date(),
  runs: z.number().int(),
  executed: z.number().int(),
  passed: z.number().int(),
  failed: z.number().int(),
  pass_rate: z.number().nullable(),
  median_run_ms: z.number().int().nullable(),
});
export const TimelineResponse = z.object({
  project_id: Uuid,
  window: InsightWindow,
  runs: z.array(TimelineRun).describe('Oldest first'),
  days: z.array(TimelineDay).describe('UTC days that had runs, oldest first'),
});
export type TimelineResponse = z.output<typeof TimelineResponse>;

// ---------------------------------------------------------------------------
// Coverage

export const CoverageQuery = InsightWindowQuery.extend({
  discovery_session_id: Uuid.optional().describe("Discovery session whose pages are the map; default the project's latest completed one"),
});
export type CoverageQuery = z.output<typeof CoverageQuery>;

export const CoverageGapsQuery = CoverageQuery.extend({
  limit: z.coerce.number().int().min(1).max(500).default(50).describe('Gaps to return, 1..500 (default 50)'),
});
export type CoverageGapsQuery = z.output<typeof CoverageGapsQuery>;

export const coverageStates = ['covered', 'failing', 'declared', 'uncovered'] as const;
export const CoverageState = z
  .enum(coverageStates)
  .describe('covered: a test visited it in the window and the latest such test passed; failing: visited, latest failed; declared: a test goes there but none ran in the window; uncovered: no test goes there');

/** How many pages or surfaces are in each coverage state. */
const stateCounts = { covered: z.number().int(), failing: z.number().int(), declared: z.number().int(), uncovered: z.number().int() };

export const CoveredPage = z.object({
  url: z.string(),
  page_type: z.string(),
  importance_score: z.number(),
  risk_score: z.number(),
  state: CoverageState,
  tests: z.array(z.object({ test_id: Uuid, name: z.string() })).describe('Tests that visit the page (at most 20)'),
});
export const CoveredEndpoint = z.object({
  method: z.string(),
  url: z.string().describe('Request URL as the test declares it ({{variables}} kept)'),
  tests: z.array(z.object({ test_id: Uuid, name: z.string() })),
});
export const CodeCoverage = z.object({
  ingestion_id: Uuid.describe('The codebase ingestion the surfaces come from (the project\'s latest analysed one)'),
  codebase_path: z.string(),
  commit_sha: z.string().nullable(),
  analysed_at: z.string().nullable(),
  surfaces: z.array(z.object({
    kind: z.string().describe('http_route, api_route, page, client_route, openapi_operation'),
    method: z.string(),
    path: z.string().describe('Route path as declared (:param, * for the rest)'),
    file: z.string(),
    line: z.number().int(),
    state: CoverageState,
    tests: z.array(z.object({ test_id: Uuid, name: z.string() })).describe('Tests that reach it (at most 20)'),
  })).describe('At most 500, in the analyser\'s order; the summary counts them all'),
  summary: z.object({
    surfaces: z.number().int(),
    ...stateCounts,
    coverage: z.number().nullable().describe('(covered + failing) / surfaces, or null without surfaces'),
  }),
});
export type CodeCoverage = z.output<typeof CodeCoverage>;

export const CoverageMapResponse = z.object({
  project_id: Uuid,
  window: InsightWindow,
  discovery_session_id: Uuid.nullable().describe('Discovery session the pages come from, or null when the project has none'),
  pages: z.array(CoveredPage),
  endpoints: z.array(CoveredEndpoint).describe('HTTP endpoints the project\'s API tests call'),
  summary: z.object({
    pages: z.number().int(),
    ...stateCounts,
    coverage: z.number().nullable().describe('(covered + failing) / pages, or null without pages'),
  }),
  visited_elsewhere: z.array(z.string()).describe('Pages tests visited that discovery did not find (at most 50)'),
  code: CodeCoverage.nullable().describe("The routes, pages and operations in the project's code (its latest codebase the knowledge worker analysed: POST /api/analyze with async), each with the tests that reach it; null when none was analysed"),
});
export type CoverageMapResponse = z.output<typeof CoverageMapResponse>;

export const CoverageGap = z.object({
  url: z.string(),
  page_type: z.string(),
  priority: z.enum(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW']),
  risk_score: z.number(),
  reasons: z.array(z.string()),
  suggested_test: z.string(),
  state: z.enum(['uncovered', 'declared']).describe('uncovered: no test goes there; declared: a test does, but did not run in the window'),
});
export const CodeGap = z.object({
  kind: z.string(),
  method: z.string(),
  path: z.string(),
  file: z.string(),
  line: z.number().int(),
  priority: z.enum(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW']),
  risk_score: z.number(),
  reasons: z.array(z.string()),
  suggested_test: z.string(),
  state: z.enum(['uncovered', 'declared']),
});
export const CoverageGapsResponse = z.object({
  project_id: Uuid,
  discovery_session_id: Uuid.nullable(),
  items: z.array(CoverageGap).describe('Riskiest first'),
  total: z.number().int().describe('Gaps before the limit'),
  pages: z.number().int().describe('Pages on the map'),
  code: z.object({
    ingestion_id: Uuid,
    items: z.array(CodeGap).describe('Riskiest first, at most `limit`'),
    total: z.number().int().describe('Gaps before the limit (among the surfaces the map lists)'),
  }).nullable().describe("Routes, pages and operations of the project's analysed codebase that no test reached in the window; null without one"),
});
export type CoverageGapsResponse = z.output<typeof CoverageGapsResponse>;

// ---------------------------------------------------------------------------
// Quality score

export const QualityComponent = z.object({
  name: z.enum(['pass_rate', 'stability', 'coverage', 'maintenance']),
  score: z.number().min(0).max(100).nullable().describe('0..100, or null when there is nothing to measure it on'),
  weight: z.number().describe('Weight in the total (the weights of measured components are scaled to sum to 1)'),
  detail: z.string().describe('What it was measured on'),
});
export const QualityScoreResponse = z.object({
  project_id: Uuid,
  window: InsightWindow,
  score: z.number().min(0).max(100).nullable().describe('Weighted mean of the measured components, or null when the project has no finished run'),
  grade: z.enum(['A', 'B', 'C', 'D', 'F']).nullable(),
  components: z.array(QualityComponent),
  reasons: z.array(z.string()).describe('What lowers the score most, biggest first'),
  computed_at: IsoDateTime,
});
export type QualityScoreResponse = z.output<typeof QualityScoreResponse>;

// ---------------------------------------------------------------------------
// Cost breakdown (model spend, from ai_usage)

export const CostBreakdownQuery = z.strictObject({
  project_id: Uuid.optional().describe("Only calls made for this project's runs; omit for the whole organization"),
  days: z.coerce.number().int().min(1).max(366).default(30).describe('UTC days back from today, 1..366 (default 30)'),
});
export type CostBreakdownQuery = z.output<typeof CostBreakdownQuery>;

const Spend = {
  requests: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cost_usd: z.number(),
};
export const CostBreakdownResponse = z.object({
  organization_id: Uuid,
  project_id: Uuid.nullable(),
  from: z.iso.date(),
  to: z.iso.date(),
  total: z.object(Spend),
  by_day: z.array(z.object({ date: z.iso.date(), ...Spend })).describe('Days with calls, oldest first'),
  by_model: z.array(z.object({ model: z.string(), ...Spend })).describe('Costliest first'),
  by_task: z.array(z.object({ task_type: z.string(), ...Spend })).describe('Costliest first'),
  by_run: z.array(z.object({ run_id: Uuid, ...Spend })).describe('Costliest 20 runs'),
  outside_runs: z.object(Spend).describe('Calls made outside a run (generation, chat, healing endpoints); only for the whole organization'),
  truncated: z.boolean().describe('More than 50,000 calls in the window: the oldest were not read'),
});
export type CostBreakdownResponse = z.output<typeof CostBreakdownResponse>;
