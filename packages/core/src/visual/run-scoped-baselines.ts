import type { BaselineStore } from './baseline-store.ts';
import { screenshotHash } from './compare.ts';

/**
 * Baselines kept for one run only: a generated test's check-run has no identity yet, so
 * its visual assertions record their first screenshot (and compare within the run) but
 * nothing outlives it; the test's first real run records the baselines that count.
 */
export function runScopedBaselineStore(): BaselineStore {
  const images = new Map<string, { png: Uint8Array; hash: string }>();
  const key = (testId: string, name: string) => JSON.stringify([testId, name]);
  return {
    async get(testId, name) {
      return images.get(key(testId, name));
    },
    async put(testId, name, png) {
      const entry = { png, hash: screenshotHash(png) };
      images.set(key(testId, name), entry);
      return { hash: entry.hash };
    },
  };
}
