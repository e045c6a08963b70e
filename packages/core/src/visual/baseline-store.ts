/**
 * Accepted screenshots that visual assertions compare against, one per test and baseline
 * name. Implementations: the Store with Blobs (server runs; visual_baselines) and a
 * folder of PNG files beside the tests (svc run), which a team commits like code.
 */
export interface BaselineStore {
  /** The baseline's PNG bytes; undefined when the test has none of that name yet. */
  get(testId: string, name: string): Promise<{ png: Uint8Array; hash: string } | undefined>;
  /** Accepts `png` as the baseline (replacing any earlier one); returns its SHA-256. */
  put(testId: string, name: string, png: Uint8Array, metadata: Record<string, unknown>): Promise<{ hash: string }>;
  /**
   * Keeps a screenshot that differed (or had no baseline) so it can be accepted later by its
   * hash (server: POST /api/visual/baselines). Optional: svc run's files need no such step,
   * a rerun with --update-baselines all accepts.
   */
  propose?(testId: string, name: string, png: Uint8Array): Promise<{ hash: string }>;
}

/**
 * What a run does with baselines:
 * - missing (default): compare where a baseline exists, record the screenshot where none does;
 * - all: as missing, and a screenshot that differs replaces its baseline (after a wanted UI change);
 * - none: never write; a missing baseline fails the assertion (CI that must not drift).
 */
export const baselineModes = ['missing', 'all', 'none'] as const;
export type BaselineMode = (typeof baselineModes)[number];

/** How one visual assertion ended; artifact keys are the run's (ArtifactSink). */
export interface VisualOutcome {
  name: string;
  /** matched: as the baseline; created: no baseline, this screenshot became it; updated: differed and replaced it (mode all); differs: failed. */
  status: 'matched' | 'created' | 'updated' | 'differs' | 'missing';
  diff_pixels?: number;
  diff_ratio?: number;
  /** The screenshot taken (kept when it did not simply match). */
  actual?: string;
  /** The baseline it was compared with (copied into the run's artifacts when it differs). */
  baseline?: string;
  /** Differing pixels in red over a faded copy. */
  diff?: string;
  /** SHA-256 of the baseline now in force. */
  baseline_hash?: string;
  /** SHA-256 of the screenshot that differed or had no baseline, when the store kept it for acceptance. */
  proposed_hash?: string;
  message?: string;
}
