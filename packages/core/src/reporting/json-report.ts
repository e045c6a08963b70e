import { z } from 'zod';
import { quarantineOf, quarantinedFailures } from '../execution/totals.ts';
import type { RunSummary, TestExecutionResult } from '../execution/types.ts';
import type { VisualOutcome } from '../visual/baseline-store.ts';
import { AccessibilityOutcome } from '../contracts/accessibility.ts';
import { droppedScreenshots, failingStep, healedSelectors, screenshotKeys, stripControl, testError } from './format.ts';

/**
 * The JSON report (`report.json`): a stable, versioned document for machines — CI scripts,
 * dashboards, other tools. The schema below is the documentation; a breaking change bumps
 * `schema` to svc.report/v2. Keys are always present (null when unknown) so consumers need
 * no existence checks — except `visual`, `accessibility`, a test's `quarantine` and the run's
 * `quarantined`, added within v1 and so optional: each is present only where it applies. The element fingerprints recorded for healing are left out.
 */

export const REPORT_SCHEMA = 'svc.report/v1' as const;

const Status = z.enum(['passed', 'failed', 'skipped', 'healed']);
const ErrorInfo = z.strictObject({
  kind: z.string().describe('Failure kind: locator, timeout, assertion, navigation, network, http, database, configuration, unsupported, cancelled, internal'),
  message: z.string().describe('What went wrong'),
});

export const JsonReportHealed = z.strictObject({
  step: z.number().int().describe('Index of the healed step'),
  field: z.string().optional().describe('The extract step’s field whose locator was healed; present only for those'),
  assertion: z.number().int().optional().describe('The trailing assertion (0-based, as assertions.results[].index) whose locator was healed; present only for those, whose `step` is then the number of steps + this'),
  original: z.string().describe('Selector before healing'),
  healed: z.string().describe('Selector after healing'),
  confidence: z.number().describe('Confidence of the heal, 0..1'),
});

export const JsonReportStep = z.strictObject({
  index: z.number().int().describe('Position of the step in the test, from 0'),
  type: z.string().describe('Step type: goto, click, fill, request, sql, assert, …'),
  name: z.string().nullable().describe('The step name given in the test, if any'),
  description: z.string().describe('One-line description, e.g. click "#buy"'),
  status: z.enum(['passed', 'failed', 'skipped']),
  duration_ms: z.number(),
  error: ErrorInfo.nullable().describe('Why the step failed'),
  screenshot: z.string().nullable().describe('Artifact key of the screenshot taken at this step'),
  healed: JsonReportHealed.omit({ step: true, field: true, assertion: true }).nullable().describe('Set when this step’s locator was healed'),
  healed_fields: z.array(JsonReportHealed.omit({ step: true, assertion: true }).required({ field: true })).optional().describe('An extract step’s fields whose locators were healed (an extract step reads one element per field); present only then'),
  extracted: z.unknown().optional().describe('An extract step’s result (its JSON at most 32,000 characters; secret values and fields named like credentials masked as ***)'),
  save_as: z.string().optional().describe('The variable an extract step saved its result as; present only then'),
  origin: z.strictObject({ flow: z.string(), step: z.number().int().min(1), via: z.array(z.string()).optional() }).optional().describe('The flow step this step came from (a use step expanded): the flow, its step from 1, and the flows that used it when nested; present only then'),
});

/**
 * The fields of a visual outcome, as the run records them. `satisfies` makes the compiler
 * list every field of VisualOutcome here, so one added later cannot be dropped unnoticed.
 */
const visualFields = {
  name: z.string().describe('Baseline name'),
  status: z
    .enum(['matched', 'created', 'updated', 'differs', 'missing'])
    .describe('matched: as the baseline; created: no baseline, this screenshot became it; updated: differed and replaced it; differs: failed; missing: no baseline and none may be written'),
  diff_pixels: z.number().optional().describe('Pixels that differ from the baseline'),
  diff_ratio: z.number().optional().describe('diff_pixels as a share of all pixels, 0..1'),
  actual: z.string().optional().describe('Artifact key of the screenshot taken'),
  baseline: z.string().optional().describe('Artifact key of the baseline it was compared with (when it differs)'),
  diff: z.string().optional().describe('Artifact key of the diff image: differing pixels in red'),
  baseline_hash: z.string().optional().describe('SHA-256 of the baseline now in force'),
  proposed_hash: z.string().optional().describe('SHA-256 of a screenshot kept so it can be accepted as the baseline'),
  message: z.string().optional(),
} satisfies { [K in keyof VisualOutcome]-?: z.ZodType };
export const JsonReportVisual = z.strictObject(visualFields);

export const JsonReportAssertion = z.strictObject({
  index: z.number().int().describe('0-based position among the test\'s assertions (checked after its steps)'),
  name: z.string().nullable(),
  description: z.string(),
  status: z.enum(['passed', 'failed', 'skipped']).describe('skipped: a step failed first, or an earlier assertion ran out of time'),
  duration_ms: z.number(),
  error: ErrorInfo.nullable(),
  healed: JsonReportHealed.omit({ step: true, field: true, assertion: true }).optional().describe('Set when this assertion’s locator was healed; present only then'),
});

export const JsonReportTest = z.strictObject({
  id: z.string(),
  name: z.string(),
  type: z.enum(['ui', 'api', 'db']),
  status: Status.describe('healed = passed after a locator was healed'),
  started_at: z.string(),
  finished_at: z.string(),
  duration_ms: z.number(),
  assertions: z.strictObject({
    passed: z.number().int(),
    failed: z.number().int(),
    results: z.array(JsonReportAssertion).optional().describe('Each of the test\'s assertions (checked after its steps), in order; present only for tests that have them'),
  }),
  error: ErrorInfo.extend({
    stack: z.string().nullable(),
    step: z.number().int().nullable().describe('Index of the failing step'),
    step_description: z.string().nullable(),
  })
    .nullable()
    .describe('Why the test failed (or was skipped); null when it passed'),
  steps: z.array(JsonReportStep),
  screenshots: z.array(z.string()).describe('Artifact keys of the screenshots of this test (images of visual comparisons are under visual)'),
  screenshots_dropped: z.number().int().positive().optional().describe('Screenshots of this test not taken because the run reached its cap (MAX_SCREENSHOTS, 100); present only then'),
  visual: z.array(JsonReportVisual).optional().describe('Each visual assertion’s outcome, in order; present only for tests with visual assertions'),
  accessibility: z.array(AccessibilityOutcome).optional().describe('Each accessibility assertion’s outcome (axe-core violations at or above min_impact), in order; present only for tests with accessibility assertions'),
  trace: z.string().nullable().describe('Artifact key of the Playwright trace (open with npx playwright show-trace)'),
  quarantine: z.string().optional().describe('Why the test was in quarantine when it ran (its failure does not fail the run); present only then'),
  healed_selectors: z.array(JsonReportHealed),
  console_errors: z.array(z.string()),
  failed_requests: z.array(z.strictObject({ url: z.string(), method: z.string(), failure: z.string() })),
  metadata: z.record(z.string(), z.unknown()),
});

export const JsonReport = z.strictObject({
  schema: z.literal(REPORT_SCHEMA),
  run: z.strictObject({
    id: z.string(),
    name: z.string(),
    base_url: z.string().nullable(),
    started_at: z.string(),
    finished_at: z.string(),
    duration_ms: z.number(),
    workers: z.number().int(),
    total: z.number().int(),
    passed: z.number().int().describe('Passed without healing'),
    failed: z.number().int(),
    quarantined: z.number().int().optional().describe('Of the failed, tests in quarantine (their failure does not fail the run); present only when there are some'),
    healed: z.number().int().describe('Passed after healing'),
    skipped: z.number().int(),
    pass_rate: z.number().nullable().describe('(passed + healed) / (total − skipped), 0..1; null when nothing ran'),
    unfinished: z.enum(['interrupted', 'cancelled', 'running']).optional().describe('The run did not end on its own: interrupted (svc run stopped by Ctrl-C or SIGTERM; `svc run --resume` continues it), cancelled, or running (the report of a run as it stands). The tests not run are counted as skipped. Present only then'),
    screenshots_dropped: z.number().int().positive().optional().describe('Screenshots not taken because the run reached its cap (MAX_SCREENSHOTS, 100), over all tests; present only then'),
    error: z.string().optional().describe('Why the run failed as a whole — an error, or a limit that stopped it — whatever its tests did (its tests not run are skipped); present only then'),
  }),
  tests: z.array(JsonReportTest),
});
export type JsonReport = z.output<typeof JsonReport>;

/** The JSON Schema (draft 2020-12) of report.json, generated from the zod schema, for consumers in other languages. */
export function jsonReportSchema(): Record<string, unknown> {
  return z.toJSONSchema(JsonReport, { target: 'draft-2020-12' }) as Record<string, unknown>;
}

/** Renders the JSON report: pretty-printed, keys in schema order, newline-terminated. */
export function renderJsonReport(summary: RunSummary): string {
  return `${JSON.stringify(buildJsonReport(summary), null, 2)}\n`;
}

/** The report as an object (what renderJsonReport serializes). */
export function buildJsonReport(summary: RunSummary): JsonReport {
  const ran = summary.total - summary.skipped;
  const dropped = droppedScreenshots(summary);
  const quarantined = quarantinedFailures(summary.results);
  return {
    schema: REPORT_SCHEMA,
    run: {
      id: clean(summary.run_id),
      name: clean(summary.name),
      base_url: summary.base_url === undefined ? null : clean(summary.base_url),
      started_at: summary.started_at,
      finished_at: summary.finished_at,
      duration_ms: summary.duration_ms,
      workers: summary.workers,
      total: summary.total,
      passed: summary.passed,
      failed: summary.failed,
      ...(quarantined ? { quarantined } : {}),
      healed: summary.healed,
      skipped: summary.skipped,
      pass_rate: ran > 0 ? round4((summary.passed + summary.healed) / ran) : null,
      ...(summary.unfinished ? { unfinished: summary.unfinished } : {}),
      ...(dropped ? { screenshots_dropped: dropped } : {}),
      ...(summary.error !== undefined ? { error: clean(summary.error) } : {}),
    },
    tests: summary.results.map(testOf),
  };
}

function testOf(r: TestExecutionResult): JsonReport['tests'][number] {
  const error = r.status === 'passed' || r.status === 'healed' ? undefined : testError(r);
  const step = error ? failingStep(r) : undefined;
  const quarantine = quarantineOf(r);
  return {
    id: clean(r.test_id),
    name: clean(r.name),
    type: r.type,
    status: r.status,
    started_at: r.started_at,
    finished_at: r.finished_at,
    duration_ms: r.duration_ms,
    assertions: {
      passed: r.assertions_passed,
      failed: r.assertions_failed,
      ...(r.assertion_results && { results: r.assertion_results.map((a) => ({ index: a.index, name: a.name === undefined ? null : clean(a.name), description: clean(a.description), status: a.status, duration_ms: a.duration_ms, error: a.error ? { kind: a.error.kind, message: clean(a.error.message) } : null, ...(a.healed && { healed: { original: clean(a.healed.original), healed: clean(a.healed.healed), confidence: a.healed.confidence } }) })) }),
    },
    error: error
      ? { kind: error.kind, message: clean(error.message), stack: error.stack === undefined ? null : clean(error.stack), step: step?.index ?? null, step_description: step ? clean(step.description) : null }
      : null,
    steps: r.steps.map((s) => ({
      index: s.index,
      type: s.type,
      name: s.name === undefined ? null : clean(s.name),
      description: clean(s.description),
      status: s.status,
      duration_ms: s.duration_ms,
      error: s.error ? { kind: s.error.kind, message: clean(s.error.message) } : null,
      screenshot: s.screenshot ?? null,
      healed: s.healed ? { original: clean(s.healed.original), healed: clean(s.healed.healed), confidence: s.healed.confidence } : null,
      ...(s.healed_fields?.length && { healed_fields: s.healed_fields.map((h) => ({ field: clean(h.field), original: clean(h.original), healed: clean(h.healed), confidence: h.confidence })) }),
      ...(s.extracted !== undefined && { extracted: s.extracted }),
      ...(s.save_as !== undefined && { save_as: clean(s.save_as) }),
      ...(s.origin && { origin: { flow: clean(s.origin.flow), step: s.origin.step, ...(s.origin.via && { via: s.origin.via.map(clean) }) } }),
    })),
    screenshots: screenshotKeys(r),
    ...(r.screenshots_dropped ? { screenshots_dropped: r.screenshots_dropped } : {}),
    ...(r.visual ? { visual: r.visual.map(visualOf) } : {}),
    ...(r.accessibility ? { accessibility: r.accessibility.map(accessibilityOf) } : {}),
    trace: r.trace ?? null,
    ...(quarantine === undefined ? {} : { quarantine: clean(quarantine) }),
    healed_selectors: healedSelectors(r).map((h) => ({ step: h.step, ...(h.field !== undefined && { field: clean(h.field) }), ...(h.assertion !== undefined && { assertion: h.assertion }), original: clean(h.original), healed: clean(h.healed), confidence: h.confidence })),
    console_errors: r.console_errors.map(clean),
    failed_requests: r.failed_requests.map((f) => ({ url: clean(f.url), method: f.method, failure: clean(f.failure) })),
    metadata: jsonSafe(r.metadata, new WeakSet()) as Record<string, unknown>,
  };
}

/** An outcome as recorded, text cleaned; absent fields (and numbers JSON cannot hold) are left out. */
function visualOf(v: VisualOutcome): z.output<typeof JsonReportVisual> {
  const finiteOrUndefined = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? n : undefined);
  return withoutUndefined({
    name: clean(v.name),
    status: v.status,
    diff_pixels: finiteOrUndefined(v.diff_pixels),
    diff_ratio: finiteOrUndefined(v.diff_ratio),
    actual: v.actual,
    baseline: v.baseline,
    diff: v.diff,
    baseline_hash: v.baseline_hash,
    proposed_hash: v.proposed_hash,
    message: v.message === undefined ? undefined : clean(v.message),
  });
}

/** An outcome as recorded, through its schema (a result read back from the store is only JSON), page text cleaned. */
function accessibilityOf(o: AccessibilityOutcome): AccessibilityOutcome {
  const parsed = AccessibilityOutcome.parse(o);
  return withoutUndefined({
    ...parsed,
    message: parsed.message === undefined ? undefined : clean(parsed.message),
    violations: parsed.violations.map((v) => ({ ...v, nodes: v.nodes.map((n) => withoutUndefined({ ...n, html: clean(n.html), failure_summary: n.failure_summary === undefined ? undefined : clean(n.failure_summary) })) })),
  });
}

/** Drops keys whose value is undefined, so the object equals its JSON round trip. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

const clean = (s: string) => stripControl(s);
const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/** A JSON-serializable copy: bigint → string, undefined/functions/symbols dropped, cycles cut. */
function jsonSafe(value: unknown, seen: WeakSet<object>): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return typeof value === 'string' ? clean(value) : value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return undefined;
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  try {
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
    if (Array.isArray(value)) return value.map((v) => jsonSafe(v, seen) ?? null);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const safe = jsonSafe(v, seen);
      if (safe !== undefined) out[k] = safe;
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

