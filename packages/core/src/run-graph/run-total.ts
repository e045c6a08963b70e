import { AppError } from '../errors.ts';
import type { GraphDeps } from './deps.ts';
import type { RunGraphState } from './state.ts';

/**
 * The run record's total_tests as the plan has it, while the run is `status`: the record
 * is made before the plan (a count of the cases asked for), and a plan approval may
 * shorten the plan; the record said the old total until the run ended (noted by QA).
 * A run that left `status` meanwhile (cancelled, finished) keeps what that wrote.
 */
export async function keepRunTotal(deps: GraphDeps, state: RunGraphState, status: 'running' | 'awaiting_approval'): Promise<void> {
  try {
    await deps.store.testRuns.setStatus(state.graph.config.organization_id, state.run_id, status, { total_tests: state.test_plan.length }, status);
  } catch (err) {
    if (!(err instanceof AppError && (err.code === 'CONFLICT' || err.code === 'NOT_FOUND'))) throw err;
  }
}
