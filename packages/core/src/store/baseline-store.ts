import type { Blobs } from '../ports/blobs.ts';
import type { BaselineStore } from '../visual/baseline-store.ts';
import { pngSize, screenshotHash } from '../visual/compare.ts';
import type { Store } from './index.ts';

/**
 * Where visual images live in Blobs: content-addressed by SHA-256 under the organization.
 * Accepted baselines and proposed screenshots (ones that differed or had no baseline, kept
 * so they can be accepted later) are apart, so a proposal never counts as accepted.
 */
export const visualBlobKeys = {
  baseline: (orgId: string, hash: string) => `visual/${orgId}/baselines/${hash}.png`,
  proposed: (orgId: string, hash: string) => `visual/${orgId}/proposed/${hash}.png`,
};

/** width and height from the PNG header, for the record's metadata (nothing when it is not a PNG). */
export function imageMetadata(png: Uint8Array): Record<string, number> {
  const size = pngSize(png);
  return size ? { width: size.width, height: size.height } : {};
}

/**
 * The BaselineStore of a server run: records in visual_baselines (the Store), images in
 * Blobs. A record whose image is gone counts as no baseline, so the next run records one
 * again instead of failing on a missing file.
 */
export function storeBaselineStore(store: Store, blobs: Blobs, organizationId: string, projectId: string): BaselineStore {
  return {
    async get(testId, name) {
      const record = await store.visualBaselines.getByName(organizationId, testId, name);
      if (!record) return undefined;
      const blob = await blobs.get(visualBlobKeys.baseline(organizationId, record.screenshot_hash));
      return blob ? { png: blob.body, hash: record.screenshot_hash } : undefined;
    },

    async put(testId, name, png, metadata) {
      const hash = screenshotHash(png);
      // Image first: a record never names an image that was not written.
      await blobs.put(visualBlobKeys.baseline(organizationId, hash), png, 'image/png');
      await store.visualBaselines.put(organizationId, { project_id: projectId, test_id: testId, name, screenshot_hash: hash, metadata: { ...metadata, ...imageMetadata(png) } });
      return { hash };
    },

    async propose(_testId, _name, png) {
      const hash = screenshotHash(png);
      await blobs.put(visualBlobKeys.proposed(organizationId, hash), png, 'image/png');
      return { hash };
    },
  };
}
