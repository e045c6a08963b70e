import { z } from 'zod';
import { Cursor, IsoDateTime, listResponse, Uuid } from './common.ts';

export const FailureClustersQuery = z.strictObject({
  project_id: Uuid.describe('Project to look at'),
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Clusters, newest window first, 1..100 (default 20)'),
});
export type FailureClustersQuery = z.output<typeof FailureClustersQuery>;

export const FailureClusterSchema = z.object({
  cluster_id: z.string(),
  error_signature: z.string().describe('The failure type and the error message with ids, numbers and quoted values taken out: what the failures share'),
  failure_type: z.string().nullable().describe('selector_not_found, assertion, timeout, network, …'),
  failure_count: z.number().int().describe('Failures with this signature in the window'),
  tests: z.array(z.object({ id: Uuid, name: z.string().nullable().describe('null: the test was deleted since') })).describe('The tests that failed this way (at most 100)'),
  window_start: IsoDateTime,
  window_end: IsoDateTime,
  first_seen: IsoDateTime,
  last_seen: IsoDateTime,
  suggested_cause: z.string().nullable().describe('What failures of this type usually mean'),
});
export type FailureCluster = z.output<typeof FailureClusterSchema>;

export const FailureClustersResponse = z.object({
  project_id: Uuid,
  threshold: z.number().int().describe('Failures alike within one window that make a cluster'),
  window_minutes: z.number().int(),
  items: z.array(FailureClusterSchema),
});

export const ActivityQuery = z.strictObject({
  project_id: Uuid.optional().describe('Only what concerns this project'),
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('Entries, newest first, 1..200 (default 50)'),
  cursor: Cursor.optional().describe("Opaque cursor from the previous page's next_cursor; omit for the newest entries"),
});
export type ActivityQuery = z.output<typeof ActivityQuery>;

export const ActivityEntrySchema = z.object({
  event_id: z.string(),
  event_type: z.string().describe('test.created, test.failed, healing.completed, patterns.failure-cluster, codebase.analyzed, …'),
  occurred_at: IsoDateTime,
  summary: z.string(),
  refs: z.record(z.string(), z.string()).describe('Ids the event names: project_id, test_id, run_id, cluster_id'),
  correlation_id: z.string().describe('The request or run the event came from'),
  source: z.string(),
});
export const ActivityResponse = listResponse(ActivityEntrySchema);
