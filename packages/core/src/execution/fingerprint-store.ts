import type { Fingerprint } from '../contracts/fingerprint.ts';

/**
 * The latest fingerprint of each test step's element, kept across runs: when a locator
 * breaks in a later run, the healing engine ranks the page against what the element
 * looked like the last time it was found. Implementations: the Store (server runs) and
 * a folder of JSON files (svc run).
 */
export interface FingerprintStore {
  /** Latest fingerprints of one test, by step index. */
  get(testId: string): Promise<Record<number, Fingerprint>>;
  /** Merges this run's fingerprints into the test's: newer wins per step. */
  save(testId: string, fingerprints: Record<number, Fingerprint>): Promise<void>;
}
