import type { Blobs } from '../ports/blobs.ts';
import type { Clock } from '../ports/clock.ts';
import type { Store } from '../store/index.ts';

export interface VisualSweepOptions {
  /** A proposed image (a failed comparison's screenshot) is kept this long for someone to accept it. */
  proposedRetentionMs: number;
  /**
   * An accepted image no baseline names any more (replaced or deleted) is kept this long:
   * accepting writes the image before the record, and an image written a moment ago must
   * not lose that race.
   */
  unreferencedGraceMs: number;
}

export const defaultVisualSweepOptions: VisualSweepOptions = {
  proposedRetentionMs: 30 * 24 * 3600_000,
  unreferencedGraceMs: 24 * 3600_000,
};

export interface VisualSweepResult {
  organizations: number;
  deleted: number;
  kept: number;
}

const IMAGE_KEY = /^visual\/([^/]+)\/(baselines|proposed)\/([0-9a-f]+)\.png$/;
const PAGE = 100;

/**
 * Removes visual images nobody can need any more: proposed images older than their
 * retention, and accepted images that no baseline record names (a baseline replaced or
 * deleted) once they are past the grace period. Images are content-addressed and shared
 * by every record with the same pixels, so an image is kept while any record names it.
 * Organizations are found from the keys themselves: no table scan. Run reports keep their
 * own copies of the images they show (run artifacts), so no report loses a picture.
 */
export async function sweepVisualImages(
  deps: { store: Store; blobs: Blobs; clock: Clock },
  options: VisualSweepOptions = defaultVisualSweepOptions,
): Promise<VisualSweepResult> {
  const now = deps.clock.now().getTime();
  const byOrg = new Map<string, Array<{ key: string; kind: string; hash: string; age: number }>>();
  for (const entry of await deps.blobs.listModified('visual/')) {
    const m = IMAGE_KEY.exec(entry.key);
    if (!m) continue; // not an image this sweep knows: left alone
    const list = byOrg.get(m[1]) ?? [];
    list.push({ key: entry.key, kind: m[2], hash: m[3], age: now - Date.parse(entry.modified) });
    byOrg.set(m[1], list);
  }

  let deleted = 0;
  let kept = 0;
  for (const [orgId, images] of byOrg) {
    const named = images.some((i) => i.kind === 'baselines' && i.age > options.unreferencedGraceMs) ? await namedHashes(deps.store, orgId) : new Set<string>();
    for (const image of images) {
      const expired = image.kind === 'proposed'
        ? image.age > options.proposedRetentionMs
        : image.age > options.unreferencedGraceMs && !named.has(image.hash);
      if (expired) {
        await deps.blobs.delete(image.key);
        deleted++;
      } else {
        kept++;
      }
    }
  }
  return { organizations: byOrg.size, deleted, kept };
}

/** Every image hash a baseline record of the organization names. */
async function namedHashes(store: Store, orgId: string): Promise<Set<string>> {
  const hashes = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await store.visualBaselines.list(orgId, { limit: PAGE, cursor });
    for (const record of page.items) hashes.add(record.screenshot_hash);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return hashes;
}
