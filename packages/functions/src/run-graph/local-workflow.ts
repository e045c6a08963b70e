import './promise-with-resolvers.ts';
import { StateMachine } from 'aws-local-stepfunctions';
import type { Logger } from '@svc/core/ports/logger';
import type { Workflow } from '@svc/core/run-graph/workflow';
import type { GraphTasks, TaskResource } from '@svc/core/run-graph/tasks';
import type { GraphDeps } from '@svc/core/run-graph/deps';
import { decisionOutput } from '@svc/core/run-graph/approvals';
import { placeholderResources, renderDefinition, taskStates } from './definition.ts';
import type { LocalWaiters } from './local-waiters.ts';

/** How long a stop waits for in-flight Task handlers (a test aborting, a browser closing). */
const STOP_DRAIN_MS = 15_000;

type JsonValue = Parameters<NonNullable<NonNullable<NonNullable<Parameters<StateMachine['run']>[1]>['overrides']>['taskResourceLocalHandlers']>[string]>[0];

export interface LocalWorkflowOptions {
  tasks: GraphTasks;
  deps: Pick<GraphDeps, 'checkpointer' | 'approvals' | 'threads'>;
  waiters: LocalWaiters;
  logger: Logger;
  /** Called when a thread's execution ends, however it ends. */
  onEnd?: (threadId: string, outcome: { ok: true; output: unknown } | { ok: false; error: Error; aborted: boolean }) => void;
}

/**
 * The Workflow port in-process: asl/run-graph.asl.json executed by aws-local-stepfunctions,
 * with every Task state bound to its handler (`overrides.taskResourceLocalHandlers`) —
 * the same definition and the same handlers as Step Functions and its Lambdas. The
 * approval Tasks (.waitForTaskToken) wait on local task tokens.
 */
export function createLocalWorkflow(o: LocalWorkflowOptions): Workflow & { running(): string[]; settled(threadId: string): Promise<void> } {
  // The definition is a file of this repository, validated with these very checks (and
  // asl-validator) by test/run-graph/asl-definition.test.ts; re-validating it on every run
  // cost about 0.5 s of CPU per `svc run`.
  const machine = new StateMachine(renderDefinition(placeholderResources()) as never, { validationOptions: { noValidate: true } });
  const executions = new Map<string, { abort: () => void; done: Promise<void> }>();

  const approvalHandler = async (raw: JsonValue) => {
    // waitForTaskToken Parameters: { FunctionName, Payload } — the Lambda would get Payload.
    const payload = (raw as { Payload?: Record<string, unknown> }).Payload ?? (raw as Record<string, unknown>);
    const token = o.waiters.newToken();
    const res = await o.tasks.request_approval({ ...payload, task_token: token });
    if (res.status === 'decided') return res.output as JsonValue;
    const threadId = String(payload.thread_id);
    const approvalId = res.approval.approval_id;
    const out = await o.waiters.wait(token, {
      threadId,
      expiresAt: res.approval.expires_at,
      onExpire: async () => {
        const owner = await o.deps.threads.owner(threadId);
        if (owner) await o.tasks.approvals.decide(owner.organization_id, threadId, 'expired', { approvalId, by: null });
      },
      poll: async () => {
        const { state } = await o.deps.checkpointer.load(threadId);
        const entry = state.graph.approvals.find((a) => a.approval_id === approvalId);
        return entry && entry.status !== 'pending' ? decisionOutput(state, entry) : undefined;
      },
    });
    return out as JsonValue;
  };

  /** Task invocations in flight per thread: a stop waits for them, so nothing writes after it. */
  const inflight = new Map<string, Set<Promise<unknown>>>();
  const tracked = (fn: (input: JsonValue) => Promise<JsonValue>) => (input: JsonValue) => {
    const raw = input as { thread_id?: unknown; Payload?: { thread_id?: unknown } };
    const threadId = String(raw.thread_id ?? raw.Payload?.thread_id ?? '');
    const p = fn(input);
    let set = inflight.get(threadId);
    if (!set) inflight.set(threadId, (set = new Set()));
    set.add(p);
    const forget = () => {
      set.delete(p);
      if (!set.size && inflight.get(threadId) === set) inflight.delete(threadId);
    };
    p.then(forget, forget);
    return p;
  };
  const bind = (resource: TaskResource) => {
    if (resource === 'request_approval') return tracked(approvalHandler);
    const task = o.tasks[resource] as (input: unknown) => Promise<unknown>;
    return tracked(async (input: JsonValue) => (await task(input)) as JsonValue);
  };
  const handlers = Object.fromEntries(taskStates().map(({ state, resource }) => [state, bind(resource)]));

  return {
    async start(threadId: string) {
      if (executions.has(threadId)) return;
      const execution = machine.run({ thread_id: threadId }, { overrides: { taskResourceLocalHandlers: handlers }, context: { Task: { Token: 'local' } }, noThrowOnAbort: true });
      let aborted = false;
      const done = execution.result.then(
        (output) => {
          executions.delete(threadId);
          o.onEnd?.(threadId, aborted ? { ok: false, error: new Error('aborted'), aborted: true } : { ok: true, output });
        },
        (error: Error) => {
          executions.delete(threadId);
          o.logger.error('run graph execution failed', { thread_id: threadId, error: error.message });
          o.onEnd?.(threadId, { ok: false, error, aborted });
        },
      );
      executions.set(threadId, {
        abort: () => {
          aborted = true;
          execution.abort();
        },
        done,
      });
    },

    async stop(threadId: string, reason: string) {
      const e = executions.get(threadId);
      o.waiters.rejectThread(threadId, new Error(reason));
      e?.abort();
      await e?.done;
      // Handlers see the run's aborted signal; wait (bounded) until they have let go.
      const pending = [...(inflight.get(threadId) ?? [])];
      if (pending.length) await Promise.race([Promise.allSettled(pending), new Promise((r) => setTimeout(r, STOP_DRAIN_MS).unref())]);
    },

    async sendTaskSuccess(token: string, output: Record<string, unknown>) {
      o.waiters.resolve(token, output);
    },

    isRunning: (threadId: string) => executions.has(threadId),
    running: () => [...executions.keys()],
    settled: async (threadId: string) => executions.get(threadId)?.done,
  };
}
