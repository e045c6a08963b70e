/**
 * The visual image sweep over a real blob folder and the local file table: proposed
 * images go after their retention, accepted images once no baseline names them and the
 * grace period is over, and nothing another organization's records name is touched.
 */
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStore, type Store } from '@svc/core/store/index';
import { storeBaselineStore, visualBlobKeys } from '@svc/core/store/baseline-store';
import { sweepVisualImages } from '@svc/core/visual/sweep-images';
import { pngOf } from '@svc/core/visual/test-png';
import { uuidv7 } from '@svc/core/ids';
import type { Clock } from '@svc/core/ports/clock';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { FsBlobs } from '../../packages/functions/src/local/fs-blobs.ts';
import { startTestServer } from '../support/server.ts';

const DAY = 24 * 3600_000;
const options = { proposedRetentionMs: 30 * DAY, unreferencedGraceMs: DAY };

let dir: string;
let blobs: FsBlobs;
let store: Store;
let now: number;
const clock: Clock = { now: () => new Date(now) };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-visual-sweep-'));
  blobs = new FsBlobs(dir);
  store = createStore(new FileTable(), clock);
  now = Date.now();
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Makes an image look `days` old, as the file's mtime is what the folder adapter reports. */
async function age(key: string, days: number) {
  const when = new Date(now - days * DAY);
  await utimes(join(dir, ...key.split('/')), when, when);
}

const png = (shade: number) => pngOf(4, 4, [shade, shade, shade]);

describe('sweepVisualImages', () => {
  it('removes proposed images past their retention and keeps younger ones', async () => {
    const org = uuidv7();
    const baselines = storeBaselineStore(store, blobs, org, uuidv7());
    const old = await baselines.propose!('t1', 'home', png(10));
    const recent = await baselines.propose!('t1', 'home', png(20));
    await age(visualBlobKeys.proposed(org, old.hash), 31);
    await age(visualBlobKeys.proposed(org, recent.hash), 29);

    const result = await sweepVisualImages({ store, blobs, clock }, options);

    expect(result).toEqual({ organizations: 1, deleted: 1, kept: 1 });
    expect(await blobs.get(visualBlobKeys.proposed(org, old.hash))).toBeUndefined();
    expect(await blobs.get(visualBlobKeys.proposed(org, recent.hash))).toBeDefined();
  });

  it('removes an accepted image once no baseline names it, after the grace period, and keeps the one in use', async () => {
    const org = uuidv7();
    const baselines = storeBaselineStore(store, blobs, org, uuidv7());
    const first = await baselines.put('t1', 'home', png(30), {});
    const second = await baselines.put('t1', 'home', png(40), {}); // replaces the first
    const justReplaced = await baselines.put('t2', 'cart', png(50), {});
    await baselines.put('t2', 'cart', png(60), {});
    await age(visualBlobKeys.baseline(org, first.hash), 2);
    await age(visualBlobKeys.baseline(org, second.hash), 2);
    // The third image is unnamed too, but only an hour old: an accept may be writing its record.
    await age(visualBlobKeys.baseline(org, justReplaced.hash), 1 / 24);

    await sweepVisualImages({ store, blobs, clock }, options);

    expect(await blobs.get(visualBlobKeys.baseline(org, first.hash))).toBeUndefined();
    expect(await blobs.get(visualBlobKeys.baseline(org, second.hash))).toBeDefined();
    expect(await blobs.get(visualBlobKeys.baseline(org, justReplaced.hash))).toBeDefined();
    // The baseline the run reads is still whole.
    expect((await baselines.get('t1', 'home'))?.hash).toBe(second.hash);
  });

  it('judges each organization by its own records', async () => {
    const a = uuidv7();
    const b = uuidv7();
    const image = png(70);
    // The same pixels accepted in a, and left unnamed in b (its baseline was deleted).
    const inA = await storeBaselineStore(store, blobs, a, uuidv7()).put('t1', 'home', image, {});
    await storeBaselineStore(store, blobs, b, uuidv7()).put('t9', 'home', image, {});
    const recordInB = await store.visualBaselines.getByName(b, 't9', 'home');
    await store.visualBaselines.delete(b, recordInB!.id);
    await age(visualBlobKeys.baseline(a, inA.hash), 5);
    await age(visualBlobKeys.baseline(b, inA.hash), 5);

    const result = await sweepVisualImages({ store, blobs, clock }, options);

    expect(result.organizations).toBe(2);
    expect(await blobs.get(visualBlobKeys.baseline(a, inA.hash))).toBeDefined();
    expect(await blobs.get(visualBlobKeys.baseline(b, inA.hash))).toBeUndefined();
  });

  it('leaves keys it does not know alone', async () => {
    await blobs.put('visual/notes.txt', 'kept', 'text/plain');
    await blobs.put(`visual/${uuidv7()}/baselines/not-a-hash.png`, 'kept', 'image/png');
    await age('visual/notes.txt', 400);
    expect(await sweepVisualImages({ store, blobs, clock }, options)).toEqual({ organizations: 0, deleted: 0, kept: 0 });
    expect(await blobs.list('visual/')).toHaveLength(2);
  });
});

describe('the local runtime', () => {
  it('sweeps visual images on its housekeeping timer, with the configured retention', async () => {
    const server = await startTestServer({ env: { SVC_HOUSEKEEPING_INTERVAL_MS: '200', SVC_VISUAL_PROPOSED_RETENTION_DAYS: '2' } });
    try {
      const runtimeBlobs = server.runtime.blobs as FsBlobs;
      const org = server.admin.organizationId;
      const baselines = storeBaselineStore(server.runtime.deps.store, runtimeBlobs, org, uuidv7());
      const old = await baselines.propose!('t1', 'home', png(80));
      const young = await baselines.propose!('t1', 'home', png(90));
      const setAge = async (key: string, days: number) => {
        const when = new Date(Date.now() - days * DAY);
        await utimes(join(runtimeBlobs.root, ...key.split('/')), when, when);
      };
      await setAge(visualBlobKeys.proposed(org, old.hash), 3);
      await setAge(visualBlobKeys.proposed(org, young.hash), 1);
      const gone = async () => {
        for (let i = 0; i < 100; i++) {
          if (!(await runtimeBlobs.get(visualBlobKeys.proposed(org, old.hash)))) return true;
          await new Promise((r) => setTimeout(r, 100));
        }
        return false;
      };
      expect(await gone()).toBe(true);
      expect(await runtimeBlobs.get(visualBlobKeys.proposed(org, young.hash))).toBeDefined();
    } finally {
      await server.stop();
    }
  });
});
