import type { Blobs } from '../ports/blobs.ts';
import type { Clock } from '../ports/clock.ts';

export interface ArtifactSweepResult {
  deleted: number;
  kept: number;
}

/**
 * Deletes run artifacts (traces, screenshots, comparison images under `prefix`) written
 * longer ago than the operator's retention. Each object goes by its own age: a run writes
 * its artifacts within minutes, so a run loses them together. The run's records — status,
 * results, errors, what a report says — stay: the history and the flakiness figures are
 * read from them, and a report then names what it can no longer show.
 */
export async function sweepRunArtifacts(deps: { blobs: Blobs; clock: Clock }, options: { prefix: string; retentionMs: number }): Promise<ArtifactSweepResult> {
  const now = deps.clock.now().getTime();
  let deleted = 0;
  let kept = 0;
  for (const entry of await deps.blobs.listModified(options.prefix)) {
    if (now - Date.parse(entry.modified) > options.retentionMs) {
      await deps.blobs.delete(entry.key);
      deleted++;
    } else {
      kept++;
    }
  }
  return { deleted, kept };
}
