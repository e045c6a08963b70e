/**
 * Keys of the run graph's items in the single table (checkpoints, their writes, the
 * thread head, the SSE event log, approvals and the set of unfinished threads). Kept
 * apart from keys.ts so the run graph's layout reads in one place; docs/run-graph.md
 * lists the same layout with its access patterns.
 */
export const runGraphKeys = {
  /** Checkpoints and writes of a thread share one partition, in creation order. */
  checkpointPartition: (threadId: string) => `THREAD#${threadId}#CP`,
  checkpoint: (threadId: string, ns: string, checkpointId: string) => ({ pk: `THREAD#${threadId}#CP`, sk: `CP#${ns}#${checkpointId}` }),
  checkpointChunk: (threadId: string, ns: string, checkpointId: string, n: number) => ({ pk: `THREAD#${threadId}#CP`, sk: `CPCHUNK#${ns}#${checkpointId}#${String(n).padStart(3, '0')}` }),
  checkpointWrite: (threadId: string, ns: string, checkpointId: string, taskId: number, idx: number) => ({
    pk: `THREAD#${threadId}#CP`,
    sk: `WR#${ns}#${checkpointId}#${String(taskId).padStart(6, '0')}#${String(idx + 1000).padStart(6, '0')}`,
  }),
  /** The newest checkpoint of a namespace: commits are conditional on it (optimistic concurrency). */
  head: (threadId: string, ns: string) => ({ pk: `THREAD#${threadId}`, sk: `HEAD#${ns}` }),
  /** The event log of a thread: a counter item and one item per event, ids ascending. */
  eventCounter: (threadId: string) => ({ pk: `THREAD#${threadId}`, sk: 'EVENTS' }),
  eventPartition: (threadId: string) => `THREAD#${threadId}#EVENTS`,
  event: (threadId: string, seq: number) => ({ pk: `THREAD#${threadId}#EVENTS`, sk: `EVT#${String(seq).padStart(12, '0')}` }),
  /** Approvals live in their organization's partition; pending ones are also on two sparse indexes. */
  approval: (orgId: string, approvalId: string) => ({ pk: `ORG#${orgId}`, sk: `APPROVAL#${approvalId}` }),
  pendingApprovalsOfOrg: (orgId: string) => `APPROVALS#PENDING#${orgId}`, // gsi1pk of pending approvals
  pendingApprovals: 'APPROVALS#PENDING', // gsi2pk of pending approvals (gsi2sk: expires_at), for expiry
  /** Threads that have not finished: resumed when the local runtime starts. */
  activeThreads: 'RUNGRAPH#ACTIVE',
  activeThread: (threadId: string) => ({ pk: 'RUNGRAPH#ACTIVE', sk: `THREAD#${threadId}` }),
} as const;
