import type { Store } from '@svc/core/store/index';
import { deliveryFetch } from '../net/metadata-safe-fetch.ts';
import type { Table } from '@svc/core/ports/table';
import type { Clock } from '@svc/core/ports/clock';
import type { Logger } from '@svc/core/ports/logger';
import type { TestRun } from '@svc/core/contracts/test-run';
import { isTerminalRunStatus } from '@svc/core/contracts/test-run';
import { AppError } from '@svc/core/errors';
import { createCheckpointer } from '@svc/core/run-graph/checkpointer';
import { createEventLog } from '@svc/core/run-graph/event-log';
import { threadsRepo } from '@svc/core/run-graph/threads';
import { approvalsRepo } from '@svc/core/run-graph/approvals-repo';
import { createGraphTasks } from '@svc/core/run-graph/tasks';
import { runService } from '@svc/core/run-graph/run-service';
import { endOpenNodes } from '@svc/core/run-graph/node-events';
import type { GraphDeps } from '@svc/core/run-graph/deps';
import type { Healer } from '@svc/core/run-graph/healer';
import type { RunStartInput } from '@svc/core/run-graph/contracts';
import type { RunSource } from '@svc/core/contracts/run-source';
import type { Workflow } from '@svc/core/run-graph/workflow';
import { createLocalWaiters } from './local-waiters.ts';
import { createLocalWorkflow, type LocalWorkflowOptions } from './local-workflow.ts';
import type { GraphTasks } from '@svc/core/run-graph/tasks';
import { runHooks } from '@svc/core/services/run-hooks';
import type { LocalWaiters } from './local-waiters.ts';
import type { ExecutionEnvs } from './execution-env.ts';

export interface RunManagerOptions {
  store: Store;
  table: Table;
  clock: Clock;
  logger: Logger;
  envs: ExecutionEnvs;
  healer?: Healer;
  /** analyze_code's codebase reader (createRepositoryAnalyzer); absent → stored tests only. */
  analyzer?: GraphDeps['analyzer'];
  /** Domain events of the nodes (codebase.analyzed). */
  publisher?: GraphDeps['publisher'];
  testExtras?: GraphDeps['testExtras'];
  /** Test hooks: checkpoint commit timings (benchmark). */
  onCommit?: (ms: number) => void;
  /** See GraphDeps.stateUpdates (default true). */
  stateUpdates?: boolean;
  /** Where people reach this svc (SVC_PUBLIC_URL): commit statuses link to the run's report there. */
  publicUrl?: string;
  /**
   * Where executions run. Default: in this process (the local ASL interpreter). On AWS:
   * Step Functions (createSfnWorkflow), the Task Lambdas doing the work (lambda-tasks.ts).
   */
  workflow?: (ctx: { tasks: GraphTasks; deps: GraphDeps; waiters: LocalWaiters; onEnd: LocalWorkflowOptions['onEnd'] }) => ManagedWorkflow;
}

/** A Workflow plus what the manager asks of one that runs executions in-process. */
export type ManagedWorkflow = Workflow & { running?(): string[]; settled?(threadId: string): Promise<void> };

/**
 * The run graph in one process: the domain service, the Task handlers, the local
 * interpreter executing asl/run-graph.asl.json, and the bookkeeping a process owns —
 * which executions run here, their cancel signals, their browsers. Runs survive a
 * restart: `resumeUnfinished()` starts every unfinished thread again from its last
 * checkpoint (handlers skip what the checkpoint says is done).
 */
export function createRunManager(o: RunManagerOptions) {
  const controllers = new Map<string, AbortController>();
  /** Threads being cancelled here: their execution's end is not a failure. */
  const cancelling = new Set<string>();
  const waiters = createLocalWaiters();
  let closing = false;
  let workflow: ManagedWorkflow;
  // Deliveries go to URLs tenants chose: never to a metadata address, even through a name.
  const hooks = runHooks({ store: o.store, clock: o.clock, logger: o.logger, publicUrl: o.publicUrl, fetch: deliveryFetch });

  const deps: GraphDeps = {
    store: o.store,
    checkpointer: createCheckpointer(o.store.checkpoints, o.clock, { onCommit: o.onCommit }),
    events: createEventLog(o.table, o.clock),
    threads: threadsRepo(o.table),
    approvals: approvalsRepo(o.table),
    clock: o.clock,
    logger: o.logger,
    healer: o.healer,
    analyzer: o.analyzer,
    publisher: o.publisher,
    // In this process the pending status is not awaited: a slow host must not hold up the tests
    // (the process outlives it; the outcome waits for it, so the host ends on the outcome).
    runStarted: async (orgId, runId, tests) => void hooks.runStarted(orgId, runId, tests),
    // Every run tells the organization's notification channels how it ended (the channels' rules decide), and a webhook's run its commit.
    runFinished: hooks.runFinished,
    testExtras: o.testExtras,
    execution: (run) => o.envs.forRun(run),
    signal: (threadId) => (controllers.get(threadId) ?? new AbortController()).signal,
    sendTaskSuccess: (token, output) => workflow.sendTaskSuccess(token, output),
    stateUpdates: o.stateUpdates,
  };
  const tasks = createGraphTasks(deps);
  const runs = runService(deps);

  const onEnd: LocalWorkflowOptions['onEnd'] = (threadId, outcome) => void ended(threadId, outcome);
  workflow = o.workflow ? o.workflow({ tasks, deps, waiters, onEnd }) : createLocalWorkflow({ tasks, deps, waiters, logger: o.logger, onEnd });

  async function ended(threadId: string, outcome: { ok: true; output: unknown } | { ok: false; error: Error; aborted: boolean }) {
    // An aborted execution's handlers may still be finishing: they keep seeing the aborted
    // signal for a while (a new launch replaces it), so none of them writes after a cancel.
    const controller = controllers.get(threadId);
    if (controller?.signal.aborted) setTimeout(() => controllers.get(threadId) === controller && controllers.delete(threadId), 10 * 60_000).unref();
    else controllers.delete(threadId);
    await o.envs.release(threadId).catch((err) => o.logger.warn('closing the run browser failed', { thread_id: threadId, error: (err as Error).message }));
    if (outcome.ok || outcome.aborted || closing || cancelling.has(threadId)) return;
    // A fatal execution error: the run fails with it and the stream gets an error event.
    try {
      const owner = await deps.threads.owner(threadId);
      if (!owner) return;
      const run = await o.store.testRuns.get(owner.organization_id, owner.run_id);
      if (!run || isTerminalRunStatus(run.status)) return;
      await o.store.testRuns.setStatus(owner.organization_id, run.id, 'failed', { completed_at: o.clock.now().toISOString(), error: outcome.error.message }, run.status);
      await deps.threads.markFinished(threadId);
      // The nodes the error cut off end (failed) before the error event ends the streams.
      await endOpenNodes(deps, threadId, 'failed');
      await deps.events.append(threadId, { type: 'error', data: { error: outcome.error.message, ...(outcome.error.stack ? { stack: outcome.error.stack } : {}) } });
      // The report node never ran: the hooks hear of the end here (a webhook's commit would stay pending).
      await deps.runFinished?.(owner.organization_id, run.id);
    } catch (err) {
      o.logger.error('could not record a failed run', { thread_id: threadId, error: (err as Error).message });
    }
  }

  async function launch(threadId: string) {
    if (closing) throw new AppError('UNAVAILABLE', 'the server is shutting down');
    if (await workflow.isRunning(threadId)) return;
    controllers.set(threadId, new AbortController());
    await workflow.start(threadId);
  }

  return {
    deps,
    tasks,
    runs,
    approvals: tasks.approvals,
    events: deps.events,
    checkpointer: deps.checkpointer,
    store: o.store,

    isActive: async (threadId: string) => workflow.isRunning(threadId),
    /** Resolves once the thread's execution in this process has ended. */
    settled: async (threadId: string) => workflow.settled?.(threadId),

    async start(orgId: string, userId: string | null, input: RunStartInput, trigger?: string, source?: RunSource): Promise<{ run: TestRun; threadId: string }> {
      const started = await runs.start(orgId, userId, input, trigger, source);
      await launch(started.threadId);
      return started;
    },

    /** Cancels a run: its execution stops, in-flight tests abort (closing their browser), status cancelled. */
    async cancel(orgId: string, id: string, by: string | null): Promise<TestRun> {
      const { threadId } = await runs.resolve(orgId, id);
      cancelling.add(threadId);
      try {
        const { run: current } = await runs.resolve(orgId, threadId);
        if (isTerminalRunStatus(current.status)) throw new AppError('CONFLICT', `run ${current.id} is already ${current.status}`);
        // Stop first (the execution's ARN is forgotten once the run is marked finished), then mark.
        controllers.get(threadId)?.abort(new Error('the run was cancelled'));
        await workflow.stop(threadId, 'the run was cancelled');
        const run = await runs.markCancelled(orgId, threadId, by);
        await o.envs.release(threadId);
        // No report node runs for a cancelled run: the hooks hear of it here (its commit status says cancelled).
        await deps.runFinished?.(orgId, run.id);
        return run;
      } finally {
        cancelling.delete(threadId);
      }
    },

    async replay(orgId: string, threadId: string, checkpointId: string): Promise<TestRun> {
      if (await workflow.isRunning(threadId)) throw new AppError('CONFLICT', `thread ${threadId} is running; cancel it or wait for it to finish before replaying`);
      const run = await runs.prepareReplay(orgId, threadId, checkpointId);
      await launch(threadId);
      return run;
    },

    async fork(orgId: string, userId: string | null, threadId: string, checkpointId: string, patch?: Record<string, unknown>) {
      const forked = await runs.fork(orgId, userId, threadId, checkpointId, patch);
      await launch(forked.threadId);
      return forked;
    },

    /** Resumes an unfinished run's execution here if none is running (after a crash, or a Lambda hand-over). */
    async resume(orgId: string, id: string): Promise<{ run: TestRun; threadId: string; resumed: boolean }> {
      const { run, threadId } = await runs.resolve(orgId, id);
      if (isTerminalRunStatus(run.status) || (await workflow.isRunning(threadId))) return { run, threadId, resumed: false };
      // Nothing executes the run: what its last execution left running was cut off, and runs again.
      await endOpenNodes(deps, threadId, 'interrupted');
      await launch(threadId);
      return { run, threadId, resumed: true };
    },

    /** Starts every unfinished thread again from its last checkpoint (called at runtime start). */
    async resumeUnfinished(): Promise<string[]> {
      const resumed: string[] = [];
      for (const t of await deps.threads.active()) {
        const run = await o.store.testRuns.get(t.organization_id, t.run_id);
        if (!run || isTerminalRunStatus(run.status)) {
          await deps.threads.markFinished(t.thread_id);
          continue;
        }
        if (!(await o.store.checkpoints.head(t.thread_id))) {
          await o.store.testRuns.setStatus(t.organization_id, run.id, 'failed', { completed_at: o.clock.now().toISOString(), error: 'the server stopped before the run saved its first checkpoint' }, run.status);
          await deps.threads.markFinished(t.thread_id);
          continue;
        }
        // The nodes the stop cut off end (interrupted) before the resumed run starts them again.
        await endOpenNodes(deps, t.thread_id, 'interrupted');
        await deps.events.append(t.thread_id, { type: 'log', data: { level: 'info', message: 'resuming the run from its last checkpoint after a restart' } });
        await launch(t.thread_id);
        resumed.push(t.thread_id);
      }
      return resumed;
    },

    /** Stops executions without cancelling their runs (they resume at the next start). */
    async close(): Promise<void> {
      closing = true;
      for (const c of controllers.values()) c.abort(new Error('the server is shutting down'));
      waiters.rejectAll(new Error('the server is shutting down'));
      await Promise.all((workflow.running?.() ?? []).map((t) => workflow.stop(t, 'the server is shutting down')));
      for (const t of o.envs.held()) await o.envs.release(t).catch(() => {});
    },
  };
}

export type RunManager = ReturnType<typeof createRunManager>;
