import type { TestRunStatus } from '../contracts/test-run.ts';
import { isTerminalRunStatus } from '../contracts/test-run.ts';
import { ConditionFailedError } from '../ports/table.ts';
import { AppError } from '../errors.ts';
import type { GraphDeps } from './deps.ts';
import { nodeEvents } from './node-events.ts';
import { notRunResult, recordResult, recordTestStatuses } from './results.ts';
import { finalStatuses, plannedResults, resultOf, type RunGraphState } from './state.ts';
import type { Write } from './writes.ts';

/**
 * report: the end of every path. Tests that never ran get a SKIPPED result saying why;
 * every final result is (re)stored in test_results — idempotently, so a crash between a
 * test's checkpoint and its stored result loses nothing — each test keeps its outcome as
 * its latest status, and the run record gets its totals and final status. The complete event carries the summary.
 */
export async function report(deps: GraphDeps, threadId: string, input: { error?: string } = {}): Promise<{ status: TestRunStatus; state: RunGraphState }> {
  let { state } = await deps.checkpointer.load(threadId);
  const ev = nodeEvents(deps, threadId);
  const run = await deps.store.testRuns.get(state.graph.config.organization_id, state.run_id);
  if (deps.signal(threadId).aborted || run?.status === 'cancelled') throw new AppError('CONFLICT', 'the run was cancelled');
  if (!state.graph.routes.report) {
    const t0 = await ev.start('report');
    const at = deps.clock.now().toISOString();
    const committed = await deps.checkpointer.commit(threadId, {
      node: 'report',
      writes: (head) => {
        const writes: Write[] = [];
        if (input.error && !head.error) writes.push({ channel: 'replace', field: 'error', value: input.error });
        const why = skipReason(head, input.error);
        for (const t of head.test_plan) {
          const r = resultOf(head, t.id);
          if (!r || !finalStatuses.has(r.status)) writes.push({ channel: 'result', value: notRunResult(t, 'SKIPPED', why, { attempt: 0 }) });
        }
        writes.push(
          { channel: 'replace', field: 'completed_at', value: at },
          { channel: 'replace', field: 'should_continue', value: false },
          { channel: 'replace', field: 'current_test', value: null },
          { channel: 'root_step', value: 'end' },
          { channel: 'route', value: { node: 'report', route: 'end' } },
        );
        return writes;
      },
    });
    state = committed.state;
    await ev.end('report', t0, state);
  }
  // Only the plan's: a result of anything else is no test of this run (nor another test's status).
  for (const r of plannedResults(state)) await recordResult(deps, state, r);
  await recordTestStatuses(deps, state);
  const status = await finishRun(deps, state);
  await deps.threads.markFinished(threadId);
  await deps.events.append(threadId, { type: 'complete', data: { summary: summaryOf(state, status) } });
  // After the stream's complete event: a slow chat endpoint must not hold up the people watching.
  await deps.runFinished?.(state.graph.config.organization_id, state.run_id);
  return { status, state };
}

/** Moves the run record to completed (or failed: a fatal error or a hard limit), unless it is already final. */
async function finishRun(deps: GraphDeps, state: RunGraphState): Promise<TestRunStatus> {
  const { organization_id: org } = state.graph.config;
  const status: TestRunStatus = state.error || state.graph.stop ? 'failed' : 'completed';
  for (let attempt = 0; attempt < 5; attempt++) {
    const run = await deps.store.testRuns.get(org, state.run_id);
    if (!run) return status;
    if (isTerminalRunStatus(run.status)) return run.status;
    try {
      await deps.store.testRuns.setStatus(
        org,
        state.run_id,
        status,
        {
          completed_at: state.completed_at ?? deps.clock.now().toISOString(),
          total_tests: state.test_plan.length,
          passed_tests: state.passed_count,
          failed_tests: state.failed_count,
          error: state.error ?? state.graph.stop?.message ?? null,
          results: summaryOf(state, status),
        },
        run.status,
      );
      return status;
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'CONFLICT') && !(err instanceof ConditionFailedError)) throw err;
    }
  }
  return status;
}

/**
 * The run's summary (stored as run.results, sent in the complete event). `total` is the
 * plan's unless the caller knows better (a run cancelled before its plan was made counts
 * what it was started with). Planned tests with no final result — a cancelled run's rest —
 * count as skipped, as the reports count them, so the figures always add up to the total.
 */
export function summaryOf(state: RunGraphState, status: string, opts: { total?: number } = {}): Record<string, unknown> {
  const results = plannedResults(state);
  const healed = results.filter((r) => r.status === 'HEALED').length;
  const total = opts.total ?? state.test_plan.length;
  const notRun = Math.max(0, total - state.passed_count - state.failed_count - state.skipped_count);
  const started = Date.parse(state.started_at);
  const ended = state.completed_at ? Date.parse(state.completed_at) : NaN;
  return {
    run_id: state.run_id,
    thread_id: state.graph.config.thread_id,
    status,
    total,
    passed: state.passed_count - healed,
    healed,
    failed: state.failed_count,
    // Of the failed, those of quarantined tests: they do not fail the run (blockingFailedTests).
    quarantined_failed: results.filter((r) => r.status === 'FAILED' && state.test_plan.find((t) => t.id === r.test_id)?.quarantine).length,
    skipped: state.skipped_count + notRun,
    duration_ms: Number.isFinite(ended) ? Math.max(0, ended - started) : null,
    error: state.error,
    stopped_by: state.graph.stop ? { limit: state.graph.stop.limit, message: state.graph.stop.message } : null,
    limits: state.graph.limits.map((l) => ({ limit: l.limit, message: l.message, test_id: l.test_id })),
    total_cost: state.total_cost,
    iterations: state.iteration,
  };
}

function skipReason(state: RunGraphState, error?: string): string {
  if (state.graph.stop) return `not executed: ${state.graph.stop.message}`;
  const plan = state.graph.approvals.findLast((a) => a.interrupt_key === 'plan');
  if (plan && (plan.status === 'rejected' || plan.status === 'expired')) return `not executed: the test plan was ${plan.status}${plan.comment ? ` (${plan.comment})` : ''}`;
  if (error ?? state.error) return `not executed: ${error ?? state.error}`;
  return 'not executed';
}
