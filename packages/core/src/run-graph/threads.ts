import type { Table } from '../ports/table.ts';
import { keys } from '../store/keys.ts';
import { runGraphKeys as k } from '../store/run-graph-keys.ts';
import { queryAll } from '../store/context.ts';
import { threadIdsNamedBy } from './thread-names.ts';

export interface ThreadOwner {
  organization_id: string;
  run_id: string;
}

/**
 * Which organization and run a thread belongs to (from the thread claim the run
 * repository writes), and the set of threads not yet finished — the local runtime
 * resumes those when it starts.
 */
export function threadsRepo(table: Table) {
  async function owner(threadId: string): Promise<ThreadOwner | undefined> {
    const item = await table.get(keys.threadClaim(threadId));
    if (!item) return undefined;
    return { organization_id: item.organization_id as string, run_id: item.run_id as string };
  }

  return {
    owner,

    /**
     * The thread `given` names for `orgId` — svc's thread id, or a name the organization
     * chose (thread-names.ts) — and its owner; undefined when the organization owns neither
     * (another organization's thread reads as no thread).
     */
    async ownedBy(orgId: string, given: string): Promise<{ threadId: string; owner: ThreadOwner } | undefined> {
      for (const threadId of threadIdsNamedBy(orgId, given)) {
        const found = await owner(threadId);
        if (found?.organization_id === orgId) return { threadId, owner: found };
      }
      return undefined;
    },

    async markActive(threadId: string, owner: ThreadOwner): Promise<void> {
      await table.put({ ...k.activeThread(threadId), entity: 'active_thread', thread_id: threadId, ...owner });
    },

    /** The thread's current workflow execution (Step Functions execution ARN). */
    async setExecution(threadId: string, executionArn: string): Promise<void> {
      await table.update({ key: k.activeThread(threadId), set: { execution_arn: executionArn } }).catch(() => {});
    },

    async execution(threadId: string): Promise<string | undefined> {
      return ((await table.get(k.activeThread(threadId)))?.execution_arn as string | undefined) ?? undefined;
    },

    async markFinished(threadId: string): Promise<void> {
      await table.delete(k.activeThread(threadId));
    },

    async active(): Promise<Array<ThreadOwner & { thread_id: string }>> {
      const items = await queryAll(table, { pk: k.activeThreads });
      return items.map((i) => ({ thread_id: i.thread_id as string, organization_id: i.organization_id as string, run_id: i.run_id as string }));
    },
  };
}

export type ThreadsRepo = ReturnType<typeof threadsRepo>;
