import type { Clock } from '../ports/clock.ts';
import type { EventPublisher } from '../ports/events.ts';
import type { Logger } from '../ports/logger.ts';
import type { Store } from '../store/index.ts';
import { codebaseIngested, eventSources } from '../events/producers.ts';

/** At most this many are announced again per start (oldest first); the rest wait for the next. */
const MAX_REQUEUED = 1000;

/**
 * Announces again the ingestions still queued when a runtime starts. The local runtime's
 * queues live in memory, so a codebase.ingested sent before a restart is gone while its
 * ingestion says `queued`. The new event names the same ingestion; the worker leaves one
 * that was decided meanwhile as it is. Returns how many were announced.
 */
export async function requeueIngestions(deps: { store: Store; publisher: EventPublisher; clock: Clock; logger: Logger }): Promise<number> {
  const queued = await deps.store.codebaseIngestions.listQueued(deps.clock.now().toISOString(), MAX_REQUEUED);
  for (const { orgId, ingestion } of queued) {
    await deps.publisher.publish(codebaseIngested(
      { source: eventSources.api, tenant_id: orgId, correlation_id: `requeue-${ingestion.id}`, clock: deps.clock },
      { project_id: ingestion.project_id, codebase_path: ingestion.codebase_path, ingestion_id: ingestion.id, ...(ingestion.commit_sha ? { commit_sha: ingestion.commit_sha } : {}) },
    ));
  }
  if (queued.length) deps.logger.info('codebase ingestions queued before the restart were announced again', { count: queued.length });
  return queued.length;
}
