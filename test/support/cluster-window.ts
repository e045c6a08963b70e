import { DEFAULT_CLUSTER_WINDOW_MS } from '../../packages/core/src/events/stream-analytics.ts';

/**
 * Stream analytics' failure-cluster windows are 15 minutes on the clock: a run that
 * straddles an edge splits its failures between two windows. A test that expects one
 * cluster starts its run away from an edge (waiting at most 20 s).
 */
export async function awayFromClusterWindowEdge(): Promise<void> {
  const left = DEFAULT_CLUSTER_WINDOW_MS - (Date.now() % DEFAULT_CLUSTER_WINDOW_MS);
  if (left < 20_000) await new Promise((r) => setTimeout(r, left + 100));
}
