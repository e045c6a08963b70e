import type { TestDefinition } from '../contracts/steps.ts';
import type { FlowDefinition } from '../contracts/flow.ts';
import type { RunSummary, TestExecutionResult, StepResult } from './types.ts';
import { runTest, type TestRunDeps } from './run-test.ts';
import { runTotals } from './totals.ts';

export interface SuiteTest {
  id: string;
  definition: TestDefinition;
  /** Carried into the result's metadata, e.g. { file } so reports can group by file. */
  metadata?: Record<string, unknown>;
  /** For a parameterised test: run only these sets (1-based; absent: every set). */
  cases?: number[];
  /** The flows its `use` steps name (from flow files), expanded right before it runs. */
  flows?: FlowDefinition[];
}

export type ProgressEvent =
  | { type: 'test_start'; test_id: string; name: string; worker: number }
  | { type: 'step_end'; test_id: string; step: StepResult }
  | { type: 'test_end'; result: TestExecutionResult; done: number; total: number };

export interface SuiteOptions extends Omit<TestRunDeps, 'onStep'> {
  runId: string;
  name: string;
  tests: SuiteTest[];
  /** Tests run concurrently, each in its own browser context. */
  workers: number;
  onProgress?: (event: ProgressEvent) => void;
}

/**
 * Runs a suite with N workers pulling from one queue. Results come back in the order the
 * tests were given, whatever order they finished in. A cancelled run marks the tests it
 * never started as skipped.
 */
export async function runSuite(options: SuiteOptions): Promise<RunSummary> {
  const now = options.now ?? Date.now;
  const started = now();
  const results: TestExecutionResult[] = new Array(options.tests.length);
  let next = 0;
  let done = 0;
  const workers = Math.max(1, Math.min(options.workers, options.tests.length || 1));

  const worker = async (workerIndex: number) => {
    while (next < options.tests.length) {
      const i = next++;
      const { id, definition, metadata } = options.tests[i];
      if (options.signal?.aborted) {
        results[i] = skipped(id, definition, now(), 'the run was cancelled before this test started');
      } else {
        options.onProgress?.({ type: 'test_start', test_id: id, name: definition.name, worker: workerIndex });
        const result = await runTest(id, definition, { ...options, onStep: (testId, step) => options.onProgress?.({ type: 'step_end', test_id: testId, step }) });
        results[i] = metadata ? { ...result, metadata: { ...metadata, ...result.metadata } } : result;
      }
      done++;
      options.onProgress?.({ type: 'test_end', result: results[i], done, total: options.tests.length });
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));

  const finished = now();
  return {
    run_id: options.runId,
    name: options.name,
    ...(options.baseUrl ? { base_url: options.baseUrl } : {}),
    started_at: new Date(started).toISOString(),
    finished_at: new Date(finished).toISOString(),
    duration_ms: finished - started,
    workers,
    ...runTotals(results),
    results,
  };
}

function skipped(id: string, test: TestDefinition, at: number, reason: string): TestExecutionResult {
  const ts = new Date(at).toISOString();
  return {
    test_id: id, name: test.name, type: test.type, status: 'skipped', started_at: ts, finished_at: ts, duration_ms: 0,
    steps: [], assertions_passed: 0, assertions_failed: 0, error_message: reason, screenshots: [], console_errors: [],
    failed_requests: [], fingerprints: {}, metadata: { priority: test.priority, tags: test.tags },
  };
}
