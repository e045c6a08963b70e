import type { FailureCluster } from '../contracts/failure-clusters.ts';
import type { Table } from '../ports/table.ts';
import { FAILURE_CLUSTER_PREFIX, suggestedCause } from './stream-analytics.ts';

/** Cluster items read per page when looking for a project's (they are kept 30 days, all projects together). */
const PAGE = 200;
/** Pages read at most: a busy organization's other projects cannot make one listing unbounded. */
const MAX_PAGES = 10;

/**
 * A project's failure clusters, newest window first: the ones stream analytics published
 * (they reached its threshold), read from the items it keeps per organization, project,
 * signature and window. Test names come from the caller (`nameOf`), so a deleted test shows
 * as null rather than disappearing from what failed.
 */
export async function listFailureClusters(
  table: Table,
  organizationId: string,
  projectId: string,
  limit: number,
  nameOf: (testIds: string[]) => Promise<Map<string, string>>,
): Promise<FailureCluster[]> {
  const found: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES && found.length < limit; page++) {
    const res = await table.query({ pk: `ORG#${organizationId}`, skPrefix: FAILURE_CLUSTER_PREFIX, descending: true, limit: PAGE, cursor });
    for (const item of res.items) if (item.project_id === projectId && item.published_at && found.length < limit) found.push(item);
    cursor = res.cursor;
    if (!cursor) break;
  }
  const names = await nameOf([...new Set(found.flatMap((c) => (c.test_ids as string[] | undefined) ?? []))]);
  return found.map((c) => ({
    cluster_id: String(c.cluster_id),
    error_signature: String(c.error_signature),
    failure_type: (c.failure_type as string | null) ?? null,
    failure_count: Number(c.failure_count),
    tests: ((c.test_ids as string[] | undefined) ?? []).map((id) => ({ id, name: names.get(id) ?? null })),
    window_start: String(c.window_start),
    window_end: String(c.window_end),
    first_seen: String(c.first_seen),
    last_seen: String(c.last_seen),
    suggested_cause: suggestedCause(c.failure_type as string | null) ?? null,
  }));
}
