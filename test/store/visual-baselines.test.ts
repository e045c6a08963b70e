/**
 * visual_baselines and the server's BaselineStore on both Table adapters (the local file
 * table and DynamoDB Local) with images in a real blob folder: one record per test and
 * name however many writers race, ids that survive a replacement, reads by id, test and
 * project, deletes that take the id with them, and organizations that never see each other.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, type Store } from '@svc/core/store/index';
import { storeBaselineStore, visualBlobKeys } from '@svc/core/store/baseline-store';
import { screenshotHash } from '@svc/core/visual/compare';
import { pngOf } from '@svc/core/visual/test-png';
import { uuidv7 } from '@svc/core/ids';
import type { Clock } from '@svc/core/ports/clock';
import type { Table } from '@svc/core/ports/table';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { FsBlobs } from '../../packages/functions/src/local/fs-blobs.ts';
import { useDynamoDbLocal } from '../support/dynamodb-local.ts';

const ddb = useDynamoDbLocal('visual');
const adapters: Array<[string, () => Promise<Table>]> = [
  ['FileTable', async () => new FileTable()],
  ['DynamoDbTable', () => ddb.freshTable()],
];

let time = Date.parse('2025-03-01T10:00:00.000Z');
const clock: Clock = { now: () => new Date(time) };
const hash = (n: number) => n.toString(16).padStart(64, '0');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-visual-store-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

for (const [adapter, makeTable] of adapters) {
  describe(`visual baselines on ${adapter}`, () => {
    let store: Store;
    const org = uuidv7();
    const other = uuidv7();
    const project = uuidv7();
    const test = uuidv7();
    beforeAll(async () => {
      time = Date.parse('2025-03-01T10:00:00.000Z');
      store = createStore(await makeTable(), clock);
    });

    it('put creates one record per test and name; a second put replaces its image and keeps id and created_at', async () => {
      const first = await store.visualBaselines.put(org, { project_id: project, test_id: test, name: 'home', screenshot_hash: hash(1), metadata: { step: 0 } });
      expect(first).toMatchObject({ organization_id: org, project_id: project, test_id: test, name: 'home', screenshot_hash: hash(1), created_at: '2025-03-01T10:00:00.000Z', updated_at: '2025-03-01T10:00:00.000Z' });
      time += 60_000;
      const second = await store.visualBaselines.put(org, { project_id: project, test_id: test, name: 'home', screenshot_hash: hash(2), metadata: { step: 1 } });
      expect(second).toMatchObject({ id: first.id, screenshot_hash: hash(2), metadata: { step: 1 }, created_at: first.created_at, updated_at: '2025-03-01T10:01:00.000Z' });
      expect(await store.visualBaselines.getByName(org, test, 'home')).toEqual(second);
      expect(await store.visualBaselines.get(org, first.id)).toEqual(second);
    });

    it('racing puts of one baseline leave one record, which a read by id finds', async () => {
      const raced = await Promise.all([1, 2, 3, 4, 5].map((n) => store.visualBaselines.put(org, { project_id: project, test_id: test, name: 'raced', screenshot_hash: hash(10 + n), metadata: {} })));
      expect(new Set(raced.map((r) => r.id)).size).toBe(1);
      const page = await store.visualBaselines.list(org, { test_id: test, limit: 50 });
      expect(page.items.filter((b) => b.name === 'raced')).toHaveLength(1);
      expect((await store.visualBaselines.get(org, raced[0].id))?.name).toBe('raced');
    });

    it('lists by organization, test and project, and pages', async () => {
      const otherTest = uuidv7();
      const otherProject = uuidv7();
      await store.visualBaselines.put(org, { project_id: otherProject, test_id: otherTest, name: 'cart', screenshot_hash: hash(3), metadata: {} });
      const all = await store.visualBaselines.list(org, { limit: 50 });
      expect(all.items.map((b) => b.name).sort()).toEqual(['cart', 'home', 'raced']);
      expect(all.items[0].test_id).toBe(otherTest); // newest test first
      expect((await store.visualBaselines.list(org, { test_id: test, limit: 50 })).items.map((b) => b.name)).toEqual(['home', 'raced']);
      expect((await store.visualBaselines.list(org, { project_id: otherProject, limit: 50 })).items.map((b) => b.name)).toEqual(['cart']);
      expect((await store.visualBaselines.list(org, { test_id: test, project_id: otherProject, limit: 50 })).items).toEqual([]);
      const first = await store.visualBaselines.list(org, { limit: 2 });
      expect(first.items).toHaveLength(2);
      const rest = await store.visualBaselines.list(org, { limit: 2, cursor: first.next_cursor! });
      expect([...first.items, ...rest.items].map((b) => b.name).sort()).toEqual(['cart', 'home', 'raced']);
    });

    it('another organization sees nothing, by id, by name or listed', async () => {
      const home = (await store.visualBaselines.getByName(org, test, 'home'))!;
      expect(await store.visualBaselines.get(other, home.id)).toBeUndefined();
      expect(await store.visualBaselines.getByName(other, test, 'home')).toBeUndefined();
      expect((await store.visualBaselines.list(other, { limit: 50 })).items).toEqual([]);
      expect(await store.visualBaselines.delete(other, home.id)).toBeUndefined();
      expect(await store.visualBaselines.get(org, home.id)).toBeDefined();
    });

    it('delete removes the record and its id; the next put creates a new one', async () => {
      const home = (await store.visualBaselines.getByName(org, test, 'home'))!;
      expect((await store.visualBaselines.delete(org, home.id))?.id).toBe(home.id);
      expect(await store.visualBaselines.get(org, home.id)).toBeUndefined();
      expect(await store.visualBaselines.getByName(org, test, 'home')).toBeUndefined();
      expect(await store.visualBaselines.delete(org, home.id)).toBeUndefined();
      const again = await store.visualBaselines.put(org, { project_id: project, test_id: test, name: 'home', screenshot_hash: hash(4), metadata: {} });
      expect(again.id).not.toBe(home.id);
    });

    it('storeBaselineStore keeps images in Blobs by hash, proposals apart, and treats a lost image as no baseline', async () => {
      const blobs = new FsBlobs(join(dir, adapter));
      const baselines = storeBaselineStore(store, blobs, org, project);
      const png = pngOf(8, 6, [0, 102, 204]);
      const t = uuidv7();
      expect(await baselines.get(t, 'page')).toBeUndefined();
      const { hash: h } = await baselines.put(t, 'page', png, { name: 'page', step: 2, selector: '#card' });
      expect(h).toBe(screenshotHash(png));
      expect((await blobs.get(visualBlobKeys.baseline(org, h)))?.contentType).toBe('image/png');
      expect(await store.visualBaselines.getByName(org, t, 'page')).toMatchObject({ project_id: project, screenshot_hash: h, metadata: { name: 'page', step: 2, selector: '#card', width: 8, height: 6 } });
      const got = await baselines.get(t, 'page');
      expect(got?.hash).toBe(h);
      expect(Buffer.compare(got!.png, png)).toBe(0);

      const changed = pngOf(8, 6, [0, 102, 204], { x: 0, y: 0, w: 2, h: 2, rgb: [221, 0, 0] });
      const proposed = await baselines.propose!(t, 'page', changed);
      expect(await blobs.get(visualBlobKeys.proposed(org, proposed.hash))).toBeDefined();
      expect(await blobs.get(visualBlobKeys.baseline(org, proposed.hash))).toBeUndefined();
      expect((await baselines.get(t, 'page'))?.hash).toBe(h); // a proposal is not a baseline

      // Another organization's store over the same blobs and table sees none of it.
      expect(await storeBaselineStore(store, blobs, other, project).get(t, 'page')).toBeUndefined();

      await blobs.delete(visualBlobKeys.baseline(org, h));
      expect(await baselines.get(t, 'page')).toBeUndefined();
    });
  });
}
