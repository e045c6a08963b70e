import type { TestResult } from '../contracts/run-state.ts';
import type { TestExecutionResult } from '../execution/types.ts';
import type { GraphDeps } from './deps.ts';
import type { RunGraphState } from './state.ts';
import { finalStatuses, plannedResults } from './state.ts';
import { runnerTypeOf, testIdOf } from './spec-to-definition.ts';
import type { TestSpec } from '../contracts/test-spec.ts';
import { forEachLimited } from '../concurrency.ts';

/**
 * The self_heal fix a re-run validated, marked on the steps it changed as in-step heals
 * are (`healed`, an extract step's `healed_fields`): reports list healed selectors from
 * the steps, and a fix the self-healer applied is as much a change to review as one healed
 * in the step. A step already marked (healed in-step on the re-run) keeps its mark.
 */
export function markSelfHealFix(steps: TestExecutionResult['steps'], fix: Record<string, unknown>): TestExecutionResult['steps'] {
  const changes = Array.isArray(fix.changes) ? (fix.changes as Array<Record<string, unknown>>) : [];
  const confidence = typeof fix.confidence === 'number' ? fix.confidence : 0;
  return steps.map((s) => {
    let marked = s;
    for (const c of changes) {
      if (c.step !== s.index || typeof c.from !== 'string' || typeof c.to !== 'string') continue;
      const heal = { original: c.from, healed: c.to, confidence };
      if (typeof c.extract_field === 'string') {
        if (!marked.healed_fields?.some((h) => h.field === c.extract_field)) marked = { ...marked, healed_fields: [...(marked.healed_fields ?? []), { field: c.extract_field, ...heal }] };
      } else if (!marked.healed) marked = { ...marked, healed: heal };
    }
    return marked;
  });
}

/** The same for a fix of a trailing assertion's locator: its change names the runner's index, the number of steps + the assertion's. */
export function markSelfHealFixOfAssertions(assertions: NonNullable<TestExecutionResult['assertion_results']>, stepCount: number, fix: Record<string, unknown>): NonNullable<TestExecutionResult['assertion_results']> {
  const changes = Array.isArray(fix.changes) ? (fix.changes as Array<Record<string, unknown>>) : [];
  const confidence = typeof fix.confidence === 'number' ? fix.confidence : 0;
  return assertions.map((a) => {
    const c = changes.find((x) => x.step === stepCount + a.index && typeof x.from === 'string' && typeof x.to === 'string' && x.extract_field === undefined);
    return c && !a.healed && a.status === 'passed' ? { ...a, healed: { original: c.from as string, healed: c.to as string, confidence } } : a;
  });
}

/**
 * An execution as the run state's TestResult; the details reports need go in metadata.
 * The element fingerprints do not: they have their own store (FingerprintStore, the latest
 * per test step), which is what the healer reads. In the run state they were over half of
 * every result, copied into every later checkpoint of the run and into each stored result.
 * A re-run that validated a self_heal fix (`healed`) has the fix marked on its steps.
 */
export function toTestResult(r: TestExecutionResult, attempt: number, healed: boolean, selfHealFix?: Record<string, unknown> | null): TestResult {
  const status = r.status === 'passed' ? (healed ? 'HEALED' : 'PASSED') : r.status === 'skipped' ? 'SKIPPED' : r.status === 'healed' ? 'HEALED' : 'FAILED';
  const steps = healed && r.status === 'passed' && selfHealFix ? markSelfHealFix(r.steps, selfHealFix) : r.steps;
  const assertionResults = r.assertion_results && healed && r.status === 'passed' && selfHealFix ? markSelfHealFixOfAssertions(r.assertion_results, r.steps.length, selfHealFix) : r.assertion_results;
  return {
    test_id: r.test_id,
    status,
    duration_ms: r.duration_ms,
    assertions_passed: r.assertions_passed,
    assertions_failed: r.assertions_failed,
    error_message: r.error_message ?? null,
    stack_trace: r.stack_trace ?? null,
    screenshots: r.screenshots,
    metadata: {
      attempt,
      name: r.name,
      type: r.type,
      started_at: r.started_at,
      finished_at: r.finished_at,
      ...(r.failure_kind ? { failure_kind: r.failure_kind, failed_step: r.failed_step ?? null } : {}),
      ...(r.trace ? { trace: r.trace } : {}),
      ...(r.screenshots_dropped ? { screenshots_dropped: r.screenshots_dropped } : {}),
      ...(r.dom_snapshot ? { dom_snapshot: r.dom_snapshot } : {}),
      steps,
      ...(assertionResults ? { assertion_results: assertionResults } : {}),
      console_errors: r.console_errors,
      failed_requests: r.failed_requests,
      ...(r.pages_visited?.length ? { pages_visited: r.pages_visited } : {}),
      ...(r.visual ? { visual: r.visual } : {}),
      ...(r.accessibility ? { accessibility: r.accessibility } : {}),
      ...(Array.isArray(r.metadata.heals) ? { heals: r.metadata.heals } : {}),
    },
  };
}

/** A result for a test that never ran (plan rejected, run stopped, not executable). */
export function notRunResult(spec: Pick<TestSpec, 'id' | 'name' | 'type'>, status: 'SKIPPED' | 'FAILED', message: string, metadata: Record<string, unknown> = {}): TestResult {
  // Named and typed as a result that ran is, so reports (JUnit's testcase name, Markdown's heading) show the test, not its id.
  return { test_id: spec.id, status, duration_ms: 0, assertions_passed: 0, assertions_failed: 0, error_message: message, stack_trace: null, screenshots: [], metadata: { name: spec.name, type: runnerTypeOf(spec), ...metadata } };
}

/**
 * Stores a test's result in test_results (idempotent per test and attempt: a resumed or
 * repeated write stores it once). The attempt number continues across replays.
 */
export async function recordResult(deps: GraphDeps, state: RunGraphState, result: TestResult): Promise<void> {
  if (!finalStatuses.has(result.status)) return;
  const cfg = state.graph.config;
  // An executed result carries the attempt it is stored under (fixed when it was produced,
  // so a replay's higher offset never re-stores it); one that never ran takes the next.
  const own = result.metadata.attempt;
  const attempt = typeof own === 'number' && own > 0 ? own : cfg.attempt_offset + Math.max(1, state.graph.attempts[result.test_id] ?? 0);
  // A parameter set's case is stored under its test, with the set it ran.
  const spec = state.test_plan.find((t) => t.id === result.test_id);
  const set = spec?.parameter_set;
  await deps.store.testRuns.recordResult(cfg.organization_id, {
    test_id: set?.test_id ?? result.test_id,
    ...(set ? { parameter_set: { index: set.index, name: set.name } } : {}),
    test_run_id: state.run_id,
    status: result.status.toLowerCase() as 'passed' | 'failed' | 'skipped' | 'healed',
    duration_ms: result.duration_ms,
    error_message: result.error_message,
    screenshots: result.screenshots.slice(0, 100),
    metadata: { ...result.metadata, ...(spec?.quarantine ? { quarantined: spec.quarantine } : {}), thread_id: cfg.thread_id, assertions_passed: result.assertions_passed, assertions_failed: result.assertions_failed, ...(result.stack_trace ? { stack_trace: result.stack_trace } : {}) },
    attempt,
  });
}

/** A test's outcome over its cases in one run: any failed case fails it, any healed one heals a pass. */
const OUTCOME_RANK = ['skipped', 'passed', 'healed', 'failed'] as const;

/**
 * Stores each stored test's outcome in this run as its latest status (tests.status), once
 * per test: a parameterised test's cases are folded into one (failed over healed over passed
 * over skipped), so cases finishing in parallel cannot overwrite one another. svc run's
 * tests live in the run's own store, so theirs is written there; a deleted test is left alone.
 */
export async function recordTestStatuses(deps: GraphDeps, state: RunGraphState): Promise<void> {
  const outcomes = new Map<string, (typeof OUTCOME_RANK)[number]>();
  for (const r of plannedResults(state)) {
    if (!finalStatuses.has(r.status)) continue;
    const spec = state.test_plan.find((t) => t.id === r.test_id);
    const testId = spec ? testIdOf(spec) : r.test_id;
    const status = r.status.toLowerCase() as (typeof OUTCOME_RANK)[number];
    const before = outcomes.get(testId);
    if (!before || OUTCOME_RANK.indexOf(status) > OUTCOME_RANK.indexOf(before)) outcomes.set(testId, status);
  }
  // A few at a time: a large run's report should not wait on one round trip per test.
  await forEachLimited([...outcomes], 8, ([testId, status]) => deps.store.tests.recordOutcome(state.graph.config.organization_id, testId, status));
}
