import type { Blobs } from '@svc/core/ports/blobs';
import type { Clock } from '@svc/core/ports/clock';
import type { Logger } from '@svc/core/ports/logger';
import type { Store } from '@svc/core/store/index';
import { defaultVisualSweepOptions, sweepVisualImages, type VisualSweepResult } from '@svc/core/visual/sweep-images';

const DAY_MS = 24 * 3600_000;

/**
 * The periodic clean-up both runtimes run (the local runtime on a timer, a daily schedule
 * on AWS): visual images nobody can accept or read any more (core visual/sweep-images.ts).
 */
export async function sweepImages(deps: { store: Store; clock: Clock; logger: Logger }, blobs: Blobs, proposedRetentionDays: number): Promise<VisualSweepResult> {
  const result = await sweepVisualImages({ store: deps.store, blobs, clock: deps.clock }, { ...defaultVisualSweepOptions, proposedRetentionMs: proposedRetentionDays * DAY_MS });
  if (result.deleted) deps.logger.info('visual images swept', { ...result });
  return result;
}
