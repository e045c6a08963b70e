import { createHash } from 'node:crypto';
import { DescribeExecutionCommand, ExecutionAlreadyExists, SendTaskSuccessCommand, SFNClient, StartExecutionCommand, StopExecutionCommand, TaskDoesNotExist, TaskTimedOut, InvalidToken } from '@aws-sdk/client-sfn';
import type { Workflow } from '@svc/core/run-graph/workflow';

export interface SfnWorkflowOptions {
  client: SFNClient;
  stateMachineArn: string;
  /** Where a thread's current execution ARN is kept (the active-thread item). */
  executions: {
    save(threadId: string, executionArn: string): Promise<void>;
    get(threadId: string): Promise<string | undefined>;
  };
}

/**
 * The Workflow port on AWS: the same asl/run-graph.asl.json as a Step Functions state
 * machine (infra/run-graph.ts). A start is StartExecution with the thread id as input;
 * an approval decision is SendTaskSuccess with the stored task token; a cancel is
 * StopExecution. Each start of a thread (first run, resume, replay) is a new execution,
 * named after the thread and a sequence so names never collide.
 */
export function createSfnWorkflow(o: SfnWorkflowOptions): Workflow {
  return {
    async start(threadId: string) {
      const name = executionName(threadId);
      try {
        const out = await o.client.send(new StartExecutionCommand({ stateMachineArn: o.stateMachineArn, name, input: JSON.stringify({ thread_id: threadId }) }));
        await o.executions.save(threadId, out.executionArn!);
      } catch (err) {
        if (!(err instanceof ExecutionAlreadyExists)) throw err;
      }
    },

    async stop(threadId: string, reason: string) {
      const arn = await o.executions.get(threadId);
      if (!arn) return;
      await o.client.send(new StopExecutionCommand({ executionArn: arn, error: 'svc.Cancelled', cause: reason.slice(0, 32_768) }));
    },

    async sendTaskSuccess(token: string, output: Record<string, unknown>) {
      try {
        await o.client.send(new SendTaskSuccessCommand({ taskToken: token, output: JSON.stringify(output) }));
      } catch (err) {
        // The waiting task is gone (timed out, execution stopped): the decision is in the
        // checkpoint, which a resumed execution reads.
        if (err instanceof TaskDoesNotExist || err instanceof TaskTimedOut || err instanceof InvalidToken) return;
        throw err;
      }
    },

    async isRunning(threadId: string) {
      const arn = await o.executions.get(threadId);
      if (!arn) return false;
      const out = await o.client.send(new DescribeExecutionCommand({ executionArn: arn }));
      return out.status === 'RUNNING';
    },
  };
}

/** Execution names: at most 80 of [A-Za-z0-9-_], unique per start. */
export function executionName(threadId: string, now = Date.now()): string {
  const safe = threadId.replace(/[^A-Za-z0-9_-]/g, '_');
  const suffix = `-${now.toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const head = safe.length + suffix.length <= 80 ? safe : `${safe.slice(0, 40)}_${createHash('sha256').update(threadId).digest('hex').slice(0, 16)}`;
  return `${head}${suffix}`;
}
