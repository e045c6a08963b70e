import type { Fingerprint } from '../contracts/fingerprint.ts';

/**
 * A test's fingerprints by where their element is used: a step's (or assertion's) index,
 * or `<index>.<field>` for a field of an extract step, which reads one element per field
 * (field names hold no dot, so the key is unambiguous).
 */
export type StepFingerprints = Record<string, Fingerprint>;

/** The key of an extract step's field. */
export const fieldKey = (index: number, field: string): string => `${index}.${field}`;

/**
 * The latest fingerprint of each test step's element, kept across runs: when a locator
 * breaks in a later run, the healing engine ranks the page against what the element
 * looked like the last time it was found. Implementations: the Store (server runs) and
 * a folder of JSON files (svc run).
 */
export interface FingerprintStore {
  /** Latest fingerprints of one test, by step index (or fieldKey). */
  get(testId: string): Promise<StepFingerprints>;
  /** Merges this run's fingerprints into the test's: newer wins per step (and per field). */
  save(testId: string, fingerprints: StepFingerprints): Promise<void>;
}
