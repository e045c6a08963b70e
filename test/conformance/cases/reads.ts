/** Conformance cases: queries on the main index and both GSIs, ordering and cursors. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Table, WriteOp } from '@svc/core/ports/table';
import { allPages, expectRejected, sks } from './helpers.ts';

export function readCases(current: () => Table): void {
  describe('reads', () => {
    let table: Table;
    beforeEach(() => {
      table = current();
    });

    describe('query', () => {
      const seed = async () => {
        for (const sk of ['b#2', 'a#1', 'a#3', 'b#1', 'a#2', 'c']) await table.put({ pk: 'P', sk, v: sk });
        await table.put({ pk: 'P2', sk: 'a#1' });
        await table.put({ pk: 'P#', sk: 'a#1' }); // a pk sharing a prefix must not leak in
      };

      it('returns one partition in ascending sort-key order', async () => {
        await seed();
        const page = await table.query({ pk: 'P' });
        expect(sks(page.items)).toEqual(['a#1', 'a#2', 'a#3', 'b#1', 'b#2', 'c']);
        expect(page.items[0]).toEqual({ pk: 'P', sk: 'a#1', v: 'a#1' });
        expect(page.cursor).toBeUndefined();
        expect((await table.query({ pk: 'nobody' })).items).toEqual([]);
      });

      it('filters by prefix and by inclusive ranges', async () => {
        await seed();
        expect(sks((await table.query({ pk: 'P', skPrefix: 'a#' })).items)).toEqual(['a#1', 'a#2', 'a#3']);
        expect(sks((await table.query({ pk: 'P', skPrefix: 'b#1' })).items)).toEqual(['b#1']);
        expect(sks((await table.query({ pk: 'P', skPrefix: 'z' })).items)).toEqual([]);
        expect(sks((await table.query({ pk: 'P', skFrom: 'a#2', skTo: 'b#1' })).items)).toEqual(['a#2', 'a#3', 'b#1']);
        expect(sks((await table.query({ pk: 'P', skFrom: 'b' })).items)).toEqual(['b#1', 'b#2', 'c']);
        expect(sks((await table.query({ pk: 'P', skTo: 'a#2' })).items)).toEqual(['a#1', 'a#2']);
        expect(sks((await table.query({ pk: 'P', skFrom: 'b#2', skTo: 'a' })).items)).toEqual([]);
      });

      it('rejects a prefix combined with a range, and bad limits or cursors', async () => {
        await seed();
        await expectRejected(table.query({ pk: 'P', skPrefix: 'a', skFrom: 'a#2' }), /skPrefix/);
        await expectRejected(table.query({ pk: 'P', limit: 0 }), /limit/);
        await expectRejected(table.query({ pk: 'P', cursor: 'not-a-cursor' }), /cursor/);
      });

      it('orders sort keys by UTF-8 bytes', async () => {
        const keys = ['a', 'B', 'a#1', 'é', '\uFFFF', '\u{1F600}', 'Z', '0', 'a b'];
        for (const sk of keys) await table.put({ pk: 'U', sk });
        expect(sks((await table.query({ pk: 'U' })).items)).toEqual(['0', 'B', 'Z', 'a', 'a b', 'a#1', 'é', '\uFFFF', '\u{1F600}']);
      });

      it('reads descending', async () => {
        await seed();
        expect(sks((await table.query({ pk: 'P', descending: true })).items)).toEqual(['c', 'b#2', 'b#1', 'a#3', 'a#2', 'a#1']);
        expect(sks((await table.query({ pk: 'P', skPrefix: 'a#', descending: true })).items)).toEqual(['a#3', 'a#2', 'a#1']);
        expect(sks((await table.query({ pk: 'P', skFrom: 'a#2', skTo: 'b#1', descending: true })).items)).toEqual([
          'b#1',
          'a#3',
          'a#2',
        ]);
      });

      it('pages with cursors, ascending and descending, with and without a prefix', async () => {
        const all = Array.from({ length: 23 }, (_, i) => `item#${String(i).padStart(3, '0')}`);
        for (const sk of [...all].reverse()) await table.put({ pk: 'P', sk });
        await table.put({ pk: 'P', sk: 'other' });

        const pages = await allPages(table, { pk: 'P', skPrefix: 'item#', limit: 5 });
        expect(pages.slice(0, 4).map((p) => p.length)).toEqual([5, 5, 5, 5]);
        expect(sks(pages.flat())).toEqual(all);

        const down = await allPages(table, { pk: 'P', skPrefix: 'item#', limit: 7, descending: true });
        expect(down[0]).toHaveLength(7);
        expect(sks(down.flat())).toEqual([...all].reverse());

        const ranged = await allPages(table, { pk: 'P', skFrom: 'item#005', skTo: 'item#014', limit: 4 });
        expect(sks(ranged.flat())).toEqual(all.slice(5, 15));
      });

      it('pages by 100 items unless told otherwise', async () => {
        const ops = (start: number): WriteOp[] =>
          Array.from({ length: 25 }, (_, i) => ({ type: 'put', item: { pk: 'P', sk: `k${String(start + i).padStart(4, '0')}` } }));
        for (let start = 0; start < 125; start += 25) await table.transact(ops(start));
        const first = await table.query({ pk: 'P' });
        expect(first.items).toHaveLength(100);
        expect(first.cursor).toBeDefined();
        const second = await table.query({ pk: 'P', cursor: first.cursor });
        expect(sks(second.items)).toEqual(Array.from({ length: 25 }, (_, i) => `k${String(100 + i).padStart(4, '0')}`));
      });

      it('a cursor resumes after its item even if that item was deleted meanwhile', async () => {
        for (const sk of ['a', 'b', 'c', 'd']) await table.put({ pk: 'P', sk });
        const first = await table.query({ pk: 'P', limit: 2 });
        expect(sks(first.items)).toEqual(['a', 'b']);
        await table.delete({ pk: 'P', sk: 'b' });
        const rest = await table.query({ pk: 'P', cursor: first.cursor });
        expect(sks(rest.items)).toEqual(['c', 'd']);
      });
    });

    describe('global secondary indexes', () => {
      const seed = async () => {
        await table.put({ pk: 'U#1', sk: 'PROFILE', gsi1pk: 'ORG#1', gsi1sk: 'USER#b', gsi2pk: 'EMAIL#b', gsi2sk: 'x' });
        await table.put({ pk: 'U#2', sk: 'PROFILE', gsi1pk: 'ORG#1', gsi1sk: 'USER#a' });
        await table.put({ pk: 'U#3', sk: 'PROFILE', gsi1pk: 'ORG#1', gsi1sk: 'ADMIN#c' });
        await table.put({ pk: 'U#4', sk: 'PROFILE', gsi1pk: 'ORG#1' }); // no gsi1sk: not in gsi1
        await table.put({ pk: 'U#5', sk: 'PROFILE', gsi1sk: 'USER#e' }); // no gsi1pk: not in gsi1
        await table.put({ pk: 'U#6', sk: 'PROFILE', gsi1pk: 'ORG#2', gsi1sk: 'USER#f' });
      };

      it('queries gsi1 by partition, ordered by gsi1sk, skipping items without both keys', async () => {
        await seed();
        const page = await table.query({ index: 'gsi1', pk: 'ORG#1' });
        expect(page.items.map((i) => i.pk)).toEqual(['U#3', 'U#2', 'U#1']);
        expect(page.items[2]).toEqual({ pk: 'U#1', sk: 'PROFILE', gsi1pk: 'ORG#1', gsi1sk: 'USER#b', gsi2pk: 'EMAIL#b', gsi2sk: 'x' });
        expect((await table.query({ index: 'gsi1', pk: 'ORG#1', skPrefix: 'USER#' })).items.map((i) => i.pk)).toEqual(['U#2', 'U#1']);
        expect((await table.query({ index: 'gsi1', pk: 'ORG#1', descending: true, limit: 1 })).items.map((i) => i.pk)).toEqual(['U#1']);
      });

      it('queries gsi2 independently of gsi1', async () => {
        await seed();
        expect((await table.query({ index: 'gsi2', pk: 'EMAIL#b' })).items.map((i) => i.pk)).toEqual(['U#1']);
        expect((await table.query({ index: 'gsi2', pk: 'ORG#1' })).items).toEqual([]);
        expect((await table.query({ index: 'main', pk: 'ORG#1' })).items).toEqual([]);
      });

      it('follows updates: moving, removing and adding index keys', async () => {
        await seed();
        await table.update({ key: { pk: 'U#2', sk: 'PROFILE' }, set: { gsi1pk: 'ORG#2' } });
        await table.update({ key: { pk: 'U#1', sk: 'PROFILE' }, remove: ['gsi1sk'] });
        await table.update({ key: { pk: 'U#4', sk: 'PROFILE' }, set: { gsi1sk: 'USER#d' } });
        await table.delete({ pk: 'U#3', sk: 'PROFILE' });
        expect((await table.query({ index: 'gsi1', pk: 'ORG#1' })).items.map((i) => i.pk)).toEqual(['U#4']);
        expect((await table.query({ index: 'gsi1', pk: 'ORG#2' })).items.map((i) => i.pk)).toEqual(['U#2', 'U#6']);
      });

      it('pages through a GSI with cursors', async () => {
        for (let i = 0; i < 9; i++) {
          await table.put({ pk: `U#${i}`, sk: 'PROFILE', gsi2pk: 'ALL', gsi2sk: `n${i}` });
        }
        const pages = await allPages(table, { index: 'gsi2', pk: 'ALL', limit: 4 });
        expect(pages[0]).toHaveLength(4);
        expect(pages.flat().map((i) => i.gsi2sk)).toEqual(Array.from({ length: 9 }, (_, i) => `n${i}`));
      });
    });
  });
}
