import { AppError } from '../errors.ts';
import type { GraphDeps } from './deps.ts';
import type { RunGraphState } from './state.ts';

/**
 * The run record's status (`from` → `to`) and, once the plan is made, its total_tests as the
 * plan has it: the record is made before the plan (a count of the cases asked for), and a
 * plan approval may shorten the plan; the record said the old total until the run ended
 * (noted by QA). A run that left `from` meanwhile (cancelled, finished) keeps what that wrote.
 */
export async function setRunStatus(deps: GraphDeps, state: RunGraphState, to: 'running' | 'awaiting_approval', from: 'running' | 'awaiting_approval'): Promise<void> {
  try {
    const planned = state.graph.routes.plan_tests ? { total_tests: state.test_plan.length } : {};
    await deps.store.testRuns.setStatus(state.graph.config.organization_id, state.run_id, to, planned, from);
  } catch (err) {
    if (!(err instanceof AppError && (err.code === 'CONFLICT' || err.code === 'NOT_FOUND'))) throw err;
  }
}
