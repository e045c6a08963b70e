import { isSelectorSyntaxMessage } from '@svc/core/contracts/selector-syntax';
import { TestDefinition } from '@svc/core/contracts/steps';
import { AppError, validationFailed } from '@svc/core/errors';
import { toFieldIssues } from '@svc/core/contracts/parse';
import type { TestExecutionResult } from '@svc/core/execution/types';
import { createEvent } from '@svc/core/contracts/events';
import { keys } from '@svc/core/store/keys';
import type { Store } from '@svc/core/store/index';
import type { EventPublisher } from '@svc/core/ports/events';
import type { GeneratedTestRecord, GenerationSource } from '@svc/core/store/generated-tests';
import type { TestRecord } from '@svc/core/store/tests';
import { checksNothing, confidenceScore, type ExecutionOutcome } from '@svc/core/intelligence/generation/confidence';
import type { GenerationExecutor } from './execute-once.ts';
import { parameterSetName } from '@svc/core/contracts/parameter-sets';
import { readableSteps } from '@svc/core/intelligence/generation/readable-locators';

export interface ExecutionReport {
  status: ExecutionOutcome;
  /** Why the test was not executed, or why it failed. */
  error?: string;
  failure_kind?: string;
  failed_step?: number;
  duration_ms?: number;
  base_url?: string;
  steps?: Array<{ index: number; description: string; status: string; error?: string }>;
  console_errors?: string[];
  /** The parameter set that failed, for a parameterised test (each set is run until one fails). */
  parameter_set?: string;
}

/** The test once per parameter set (its values over the shared parameters), or once as it is. */
function casesOf(test: TestDefinition): Array<{ name?: string; test: TestDefinition }> {
  if (!test.parameter_sets.length) return [{ test }];
  return test.parameter_sets.map((set) => ({ name: parameterSetName(set), test: { ...test, parameters: { ...test.parameters, ...set.values } } }));
}

export interface FinishInput {
  store: Store;
  publisher: EventPublisher;
  executor?: GenerationExecutor;
  organizationId: string;
  projectId: string;
  appUrl: string | null;
  baseUrl?: string;
  execute: boolean;
  source: GenerationSource;
  test: TestDefinition;
  /** The generator's own certainty, 0..1. */
  generatorConfidence: number;
  requestId: string;
  /** Tests of one request share a browser (GenerationExecutor.batch). */
  batch?: string;
  /** An extra pass condition on the run (e.g. "the production error did not show up"). */
  judge?: (result: TestExecutionResult) => string | undefined;
  /**
   * After a failed run: a corrected test to run instead (generation with a model rewrites
   * an ambiguous line), or undefined. The corrected test is itself executed once, and it
   * is the one kept.
   */
  retry?: (failed: ExecutionReport) => Promise<{ test: TestDefinition; generatorConfidence: number } | undefined>;
  /** Let the page settle after a passing UI run before `judge` reads its console (runTest's settle). */
  settle?: { quietMs: number; maxMs: number };
  /**
   * Why a pass of this test would not catch what it is for (a regression test with no check
   * that sees its error): the confidence is low, the answer warns, and a passing run is not
   * created in tests — a test that passes while the error still happens is no regression test.
   */
  unguarded?: GenerationWarning;
}

/** Why the generated test's pass proves little (said in the answer; its confidence is low). */
export interface GenerationWarning {
  rule: string;
  message: string;
}

export interface Finished {
  generated_test: GeneratedTestRecord;
  execution: ExecutionReport;
  created_test: TestRecord | null;
  /** Why a pass of this test proves little: it checks nothing (the review's no-assertions rule), or FinishInput.unguarded. */
  warnings: GenerationWarning[];
  /** The failed run of the first version, when `retry` replaced the test. */
  first_attempt?: ExecutionReport;
}

/**
 * A generator's output in the product format. An input with a label, URL or value longer
 * than a test may hold makes a test too big: that is the caller's to shorten, a 400 naming
 * where in the generated test (`test.steps.0.selector`) and the limit (it was a 500 with
 * zod's dump; found by QA), and so is a malformed selector the input gave (a recording's).
 * Anything else invalid is svc's bug, a 500.
 */
export function checkedTest(test: TestDefinition): TestDefinition {
  const checked = TestDefinition.safeParse(test);
  if (checked.success) return checked.data;
  // A malformed selector came from the input (a recording's selectors), not from svc: the caller's to fix.
  if (checked.error.issues.every((i) => i.code === 'too_big' || (i.code === 'custom' && isSelectorSyntaxMessage(i.message)))) {
    throw validationFailed(toFieldIssues(checked.error, 'body', test).map((i) => ({ path: `test.${i.path}`, message: isSelectorSyntaxMessage(i.message) ? `${i.message} (the input gives this selector)` : `${i.message}: the input gives a value longer than a test may hold; shorten it` })));
  }
  throw new AppError('INTERNAL', `generated test is invalid: ${checked.error.message}`);
}

const needsBaseUrl = (t: TestDefinition) => t.steps.some((s) => (s.type === 'goto' || s.type === 'request') && !/^https?:\/\//i.test(s.url));

/**
 * Executes a generated test once, keeps it in generated_tests with its confidence, and
 * creates it in tests (status passed, test.created published) only when the run passed.
 */
export async function finishGeneration(i: FinishInput): Promise<Finished> {
  const baseUrl = i.baseUrl ?? i.appUrl ?? undefined;
  let ran = i.execute ? await executeOnce(i, baseUrl) : { report: { status: 'not_executed' as const, error: 'execution was not requested (execute: false)' } as ExecutionReport };
  let execution = ran.report;
  let firstAttempt: ExecutionReport | undefined;
  const corrected = execution.status === 'failed' && i.retry ? await i.retry(execution) : undefined;
  if (corrected) {
    firstAttempt = execution;
    i = { ...i, ...corrected };
    ran = await executeOnce(i, baseUrl);
    execution = ran.report;
  }
  if (execution.status === 'passed') i = { ...i, test: await withReadableLocators(i, baseUrl, ran.fingerprints) };
  // A test that checks nothing passes as long as no step throws (a goto to a 404 page passed with confidence 1; found by QA).
  const warnings: GenerationWarning[] = checksNothing(i.test)
    ? [{ rule: 'no-assertions', message: `the test checks nothing, so its ${execution.status === 'passed' ? 'pass' : 'run'} says only that its steps ran (a page that answered an error passes too); its confidence is low: add a check of what should be seen (expect heading "…", expect text "…", expect the URL to contain "…") or of the response (status, fields)` }]
    : [];
  if (i.unguarded) warnings.push(i.unguarded);
  const generated = await i.store.generatedTests.create(i.organizationId, {
    project_id: i.projectId,
    name: i.test.name,
    code: JSON.stringify(i.test, null, 2),
    confidence_score: confidenceScore(i.generatorConfidence, execution.status, { weak: warnings.length > 0 }),
    source: i.source,
    execution_status: execution.status,
    test_id: null,
  });
  let created: TestRecord | null = null;
  if (execution.status === 'passed' && !i.unguarded) {
    const test = await i.store.tests.create(i.organizationId, {
      project_id: i.projectId,
      name: i.test.name,
      description: i.test.description ?? null,
      type: i.test.type,
      steps: i.test.steps,
      assertions: i.test.assertions,
      priority: i.test.priority,
      tags: i.test.tags,
      timeout_ms: i.test.timeout_ms,
      parameters: i.test.parameters,
      parameter_sets: i.test.parameter_sets,
    }, { changed_by: 'system:generation' });
    // It ran and passed just now: that is its latest status.
    await i.store.table.update({ key: keys.test(i.organizationId, test.id), set: { status: 'passed', updated_at: new Date().toISOString() } });
    await i.store.table.update({ key: keys.generatedTest(i.organizationId, generated.id), set: { test_id: test.id } });
    generated.test_id = test.id;
    created = { ...test, status: 'passed' };
    await i.publisher.publish(
      createEvent({
        type: 'test.created',
        source: 'svc.api',
        tenant_id: i.organizationId,
        correlation_id: i.requestId,
        payload: { test_id: test.id, test_name: test.name, test_type: test.type, project_id: test.project_id, test_spec: { steps: test.steps, assertions: test.assertions, priority: test.priority, tags: test.tags, ...(test.parameter_sets.length && { parameter_sets: test.parameter_sets }) } },
      }),
    );
  }
  return { generated_test: generated, execution, created_test: created, warnings, ...(firstAttempt && { first_attempt: firstAttempt }) };
}

/**
 * The grammar's union locators of a test that passed, replaced by the readable locators of
 * the elements they matched (readable-locators.ts) — kept only when a second run with them
 * passes too. A parameterised test keeps its unions: its sets may match different elements.
 */
async function withReadableLocators(i: FinishInput, baseUrl: string | undefined, fingerprints: TestExecutionResult['fingerprints'] | undefined): Promise<TestDefinition> {
  if (!fingerprints || !i.executor) return i.test;
  const readable = readableSteps(i.test.steps, fingerprints);
  if (!readable.replaced) return i.test;
  const test = { ...i.test, steps: readable.steps };
  const again = await i.executor.run(test, { organizationId: i.organizationId, projectId: i.projectId, baseUrl, batch: i.batch }).catch(() => undefined);
  return again?.status === 'passed' ? test : i.test;
}

/** A run's report, and for a passing test of one case the fingerprints of the elements its steps found. */
interface Executed {
  report: ExecutionReport;
  fingerprints?: TestExecutionResult['fingerprints'];
}

async function executeOnce(i: FinishInput, baseUrl: string | undefined): Promise<Executed> {
  const { report, result } = await runCases(i, baseUrl);
  return { report, ...(report.status === 'passed' && result && casesOf(i.test).length === 1 && { fingerprints: result.fingerprints }) };
}

async function runCases(i: FinishInput, baseUrl: string | undefined): Promise<{ report: ExecutionReport; result?: TestExecutionResult }> {
  if (!i.executor) return { report: { status: 'not_executed', error: 'this server has no test executor configured, so the generated test was not run' } };
  if (i.test.type === 'ui' && !i.executor.browser) return { report: { status: 'not_executed', error: 'no browser is configured on this server, so the UI test was not run' } };
  if (!baseUrl && needsBaseUrl(i.test)) return { report: { status: 'not_executed', error: "the test uses relative URLs and there is no base URL: give base_url or set the project's app_url" } };
  // A parameterised test (a Scenario Outline's examples) passes when every set does; the first failing set is reported.
  let result: TestExecutionResult | undefined;
  let failedSet: string | undefined;
  for (const c of casesOf(i.test)) {
    try {
      result = await i.executor.run(c.test, { organizationId: i.organizationId, projectId: i.projectId, baseUrl, batch: i.batch, ...(i.settle && { settle: i.settle }) });
    } catch (err) {
      return { report: { status: 'not_executed', error: `the test could not be executed${c.name ? ` (parameter set ${c.name})` : ''}: ${(err as Error).message}`, ...(baseUrl && { base_url: baseUrl }) } };
    }
    if (result.status !== 'passed') {
      failedSet = c.name;
      break;
    }
  }
  if (!result) return { report: { status: 'not_executed', error: 'the test has nothing to run' } };
  const verdict = result.status === 'passed' ? i.judge?.(result) : undefined;
  const passed = result.status === 'passed' && !verdict;
  const report: ExecutionReport = {
    status: passed ? 'passed' : 'failed',
    ...(!passed && { error: `${failedSet ? `parameter set ${failedSet}: ` : ''}${verdict ?? result.error_message ?? `the test ${result.status}`}` }),
    ...(failedSet && { parameter_set: failedSet }),
    ...(result.failure_kind && { failure_kind: result.failure_kind }),
    ...(result.failed_step !== undefined && { failed_step: result.failed_step }),
    duration_ms: result.duration_ms,
    ...(baseUrl && { base_url: baseUrl }),
    steps: result.steps.map((s) => ({ index: s.index, description: s.description, status: s.status, ...(s.error && { error: s.error.message }) })),
    console_errors: result.console_errors.slice(0, 20),
  };
  return { report, result };
}
