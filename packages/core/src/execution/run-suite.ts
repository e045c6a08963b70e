import type { TestDefinition } from '../contracts/steps.ts';
import type { FlowDefinition } from '../contracts/flow.ts';
import type { TestExecutionResult, StepResult } from './types.ts';

/**
 * A suite as `svc run` loads it and the run graph executes it (run-graph/cli-run.ts): the
 * tests and the progress they report.
 */
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
