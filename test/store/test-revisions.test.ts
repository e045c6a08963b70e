/**
 * Test revisions on both Table adapters: the test update and its revision are one
 * transaction conditioned on the revision, so on DynamoDB Local as on the file table
 * two writers of one revision cannot both succeed, a test stored before revisions
 * gains its pre-history revision, at most 100 are kept, and deleting a test deletes them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createStore, type Store } from '@svc/core/store/index';
import { keys } from '@svc/core/store/keys';
import { REVISIONS_KEPT } from '@svc/core/store/test-revisions';
import { systemClock } from '@svc/core/ports/clock';
import { AppError } from '@svc/core/errors';
import type { Table } from '@svc/core/ports/table';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { useDynamoDbLocal } from '../support/dynamodb-local.ts';

const ddb = useDynamoDbLocal('revisions');
const adapters: Array<[string, () => Promise<Table>]> = [
  ['FileTable', async () => new FileTable()],
  ['DynamoDbTable', () => ddb.freshTable()],
];

const ORG = 'org-rev';
const PROJECT = '0190a000-0000-7000-8000-000000000001';
const author = { changed_by: 'user:u-1', source: 'edited' as const };
const newTest = (store: Store, name: string) =>
  store.tests.create(ORG, { project_id: PROJECT, name, description: null, type: 'ui', steps: [{ type: 'goto', url: '/' }], assertions: [], priority: 'medium', tags: [] }, { changed_by: 'user:u-1' });

const failure = async (p: Promise<unknown>) => {
  try {
    await p;
    return undefined;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
};

for (const [name, makeTable] of adapters) {
  describe(`test revisions on ${name}`, () => {
    let store: Store;
    let table: Table;
    beforeAll(async () => {
      table = await makeTable();
      store = createStore(table, systemClock);
    });

    it('create writes revision 1; an update writes the next in one transaction; a stale expected revision is PRECONDITION_FAILED', async () => {
      const test = await newTest(store, 'first');
      expect(test.revision).toBe(1);
      const updated = await store.tests.update(ORG, test.id, { tags: ['x'], browser: { locale: 'de-DE' } }, author, 1);
      expect(updated).toMatchObject({ revision: 2, tags: ['x'], browser: { locale: 'de-DE' } });
      expect(await store.tests.get(ORG, test.id)).toEqual(updated);
      const kept = await store.tests.revisions.get(ORG, test.id, 2);
      expect(kept).toMatchObject({ revision: 2, changed_by: 'user:u-1', source: 'edited', restored_from: null, definition: { name: 'first', tags: ['x'], browser: { locale: 'de-DE' } } });
      expect(kept!.changed_fields.sort()).toEqual(['browser', 'tags']);

      const stale = await failure(store.tests.update(ORG, test.id, { name: 'late' }, author, 1));
      expect(stale?.code).toBe('PRECONDITION_FAILED');
      expect(stale?.status).toBe(412);
      expect(stale?.details).toEqual({ current_revision: 2, changed_by: 'user:u-1', changed_by_name: 'user:u-1', changed_at: updated!.updated_at });
      expect((await store.tests.get(ORG, test.id))?.name).toBe('first');

      // Back to the default browser: the attribute goes, and the restore of revision 1 brings the same back.
      const restored = await store.tests.restore(ORG, test.id, 1, { changed_by: 'api_key:k-1' }, 2);
      expect(restored).toMatchObject({ revision: 3, tags: [] });
      expect(restored?.browser).toBeUndefined();
      expect(await store.tests.revisions.get(ORG, test.id, 3)).toMatchObject({ source: 'restored', restored_from: 1, changed_by: 'api_key:k-1' });
      expect((await store.tests.revisions.list(ORG, test.id, { limit: 10 })).items.map((r) => r.revision)).toEqual([3, 2, 1]);
    });

    it('two writers of the same revision: the condition lets exactly one through, and the history has no gap', async () => {
      const test = await newTest(store, 'raced');
      const outcomes = await Promise.allSettled([1, 2, 3, 4].map((i) => store.tests.update(ORG, test.id, { description: `writer ${i}` }, author, 1)));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as AppError).code).toBe('PRECONDITION_FAILED');
      const now = await store.tests.get(ORG, test.id);
      expect(now?.revision).toBe(2);
      expect((await store.tests.revisions.get(ORG, test.id, 2))?.definition.description).toBe(now?.description);
    });

    it('the transaction condition itself holds: a write prepared at a revision that has moved on fails and leaves nothing', async () => {
      const test = await newTest(store, 'conditioned');
      await store.tests.update(ORG, test.id, { name: 'moved on' }, author);
      // What a writer that read revision 1 would commit: the test at 2 and revision 2's snapshot.
      const ops = [
        { type: 'update' as const, update: { key: keys.test(ORG, test.id), set: { name: 'lost', revision: 2 }, condition: { kind: 'equals' as const, attr: 'revision', value: 1 } } },
        { type: 'put' as const, item: { ...keys.testRevision(ORG, test.id, 3), revision: 3 }, condition: { kind: 'notExists' as const } },
      ];
      await expect(table.transact(ops)).rejects.toMatchObject({ code: 'CONDITION_FAILED' });
      expect((await store.tests.get(ORG, test.id))?.name).toBe('moved on');
      expect(await store.tests.revisions.get(ORG, test.id, 3)).toBeUndefined();
    });

    it('a test stored before revisions reads as revision 1, and its first change keeps the old definition as revision 1', async () => {
      const test = await newTest(store, 'legacy');
      // As stored before revisions: no attribute and no snapshot.
      await table.update({ key: keys.test(ORG, test.id), remove: ['revision'] });
      await table.delete(keys.testRevision(ORG, test.id, 1));
      expect((await store.tests.get(ORG, test.id))?.revision).toBe(1);
      const both = await Promise.allSettled([store.tests.update(ORG, test.id, { name: 'legacy A' }, author, 1), store.tests.update(ORG, test.id, { name: 'legacy B' }, author, 1)]);
      expect(both.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const history = await store.tests.revisions.list(ORG, test.id, { limit: 10 });
      expect(history.items.map((r) => [r.revision, r.source])).toEqual([[2, 'edited'], [1, 'before_history']]);
      expect((await store.tests.revisions.get(ORG, test.id, 1))?.definition.name).toBe('legacy');
    });

    it('timeout_ms and parameters are definition fields: a test stored before them reads with the defaults, and restoring a revision from before them brings the defaults back', async () => {
      const test = await store.tests.create(ORG, { project_id: PROJECT, name: 'timed', description: null, type: 'api', steps: [{ type: 'request', method: 'GET', url: '/{{path}}' }], assertions: [], priority: 'medium', tags: [], timeout_ms: 5000, parameters: { path: 'ok' } }, { changed_by: 'user:u-1' });
      expect(test).toMatchObject({ timeout_ms: 5000, parameters: { path: 'ok' } });
      expect((await store.tests.revisions.get(ORG, test.id, 1))?.definition).toMatchObject({ timeout_ms: 5000, parameters: { path: 'ok' } });

      const changed = await store.tests.update(ORG, test.id, { timeout_ms: 20_000, parameters: { path: 'fail' } }, author);
      expect((await store.tests.revisions.get(ORG, test.id, 2))?.changed_fields.sort()).toEqual(['parameters', 'timeout_ms']);
      expect(changed).toMatchObject({ revision: 2, timeout_ms: 20_000, parameters: { path: 'fail' } });

      // Revision 1 as written before the fields existed, and the test as stored then.
      const first = (await table.get(keys.testRevision(ORG, test.id, 1)))!;
      const { timeout_ms: _t, parameters: _p, ...oldDefinition } = first.definition as Record<string, unknown>;
      await table.put({ ...first, definition: oldDefinition });
      await table.update({ key: keys.test(ORG, test.id), remove: ['timeout_ms', 'parameters'] });
      expect(await store.tests.get(ORG, test.id)).toMatchObject({ revision: 2, timeout_ms: 600_000, parameters: {} });

      await store.tests.update(ORG, test.id, { timeout_ms: 20_000, parameters: { path: 'fail' } }, author);
      const restored = await store.tests.restore(ORG, test.id, 1, { changed_by: 'user:u-1' });
      expect(restored).toMatchObject({ revision: 4, timeout_ms: 600_000, parameters: {} });
      expect(await store.tests.get(ORG, test.id)).toEqual(restored);
    });

    it(`keeps the newest ${REVISIONS_KEPT} revisions, and deleting the test deletes them`, async () => {
      const test = await newTest(store, 'busy');
      for (let i = 1; i <= REVISIONS_KEPT + 1; i++) await store.tests.update(ORG, test.id, { name: `busy ${i}` }, author);
      const all = [];
      let cursor: string | undefined;
      do {
        const page = await store.tests.revisions.list(ORG, test.id, { limit: 40, cursor });
        all.push(...page.items);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      expect(all).toHaveLength(REVISIONS_KEPT);
      expect(all[0].revision).toBe(REVISIONS_KEPT + 2);
      expect(all.at(-1)?.revision).toBe(3);
      expect(await store.tests.revisions.get(ORG, test.id, 2)).toBeUndefined();

      // Quarantine and outcomes are not definition changes.
      await store.tests.setQuarantine(ORG, test.id, { reason: 'flaky', since: new Date().toISOString(), by: null });
      await store.tests.recordOutcome(ORG, test.id, 'failed');
      expect((await store.tests.get(ORG, test.id))?.revision).toBe(REVISIONS_KEPT + 2);

      await store.tests.delete(ORG, test.id);
      expect((await table.query({ pk: `ORG#${ORG}`, skPrefix: keys.testRevisionsOf(test.id) })).items).toEqual([]);
    }, 60_000);
  });
}
