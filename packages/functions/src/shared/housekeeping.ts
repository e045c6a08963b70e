import type { Blobs } from '@svc/core/ports/blobs';
import type { Clock } from '@svc/core/ports/clock';
import type { Logger } from '@svc/core/ports/logger';
import type { Store } from '@svc/core/store/index';
import { defaultVisualSweepOptions, sweepVisualImages, type VisualSweepResult } from '@svc/core/visual/sweep-images';
import { sweepRunArtifacts, type ArtifactSweepResult } from '@svc/core/run-graph/sweep-artifacts';
import { RUN_ARTIFACTS_ROOT } from '../run-graph/blob-artifacts.ts';

const DAY_MS = 24 * 3600_000;

export interface HousekeepingSettings {
  /** Days a proposed visual image is kept for accepting (SVC_VISUAL_PROPOSED_RETENTION_DAYS). */
  visualProposedRetentionDays: number;
  /** Days run artifacts are kept (SVC_RUN_ARTIFACT_RETENTION_DAYS); undefined: kept for good. */
  runArtifactRetentionDays?: number;
}

export interface HousekeepingResult {
  visual: VisualSweepResult;
  /** Absent when no artifact retention is set. */
  run_artifacts?: ArtifactSweepResult;
}

/**
 * The periodic clean-up both runtimes run (the local runtime on a timer, a daily schedule
 * on AWS): visual images nobody can accept or read any more (core visual/sweep-images.ts)
 * and, when the operator set a retention, run artifacts past it (core
 * run-graph/sweep-artifacts.ts).
 */
export async function housekeeping(deps: { store: Store; clock: Clock; logger: Logger }, blobs: Blobs, settings: HousekeepingSettings): Promise<HousekeepingResult> {
  const visual = await sweepVisualImages({ store: deps.store, blobs, clock: deps.clock }, { ...defaultVisualSweepOptions, proposedRetentionMs: settings.visualProposedRetentionDays * DAY_MS });
  if (visual.deleted) deps.logger.info('visual images swept', { ...visual });
  if (settings.runArtifactRetentionDays === undefined) return { visual };
  const runArtifacts = await sweepRunArtifacts({ blobs, clock: deps.clock }, { prefix: RUN_ARTIFACTS_ROOT, retentionMs: settings.runArtifactRetentionDays * DAY_MS });
  if (runArtifacts.deleted) deps.logger.info('run artifacts swept', { ...runArtifacts, retention_days: settings.runArtifactRetentionDays });
  return { visual, run_artifacts: runArtifacts };
}
