/** Conformance cases: TTL visibility and transactions. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Table, WriteOp } from '@svc/core/ports/table';
import { allPages, expectConditionFailed, expectRejected, future, past, sks } from './helpers.ts';

export function ttlAndTransactionCases(current: () => Table): void {
  describe('TTL and transactions', () => {
    let table: Table;
    beforeEach(() => {
      table = current();
    });

    describe('TTL (expiresAt)', () => {
      it('hides expired items from get and query, main and GSI', async () => {
        await table.put({ pk: 'P', sk: 'old', expiresAt: past(), gsi1pk: 'G', gsi1sk: 'old' });
        await table.put({ pk: 'P', sk: 'new', expiresAt: future(), gsi1pk: 'G', gsi1sk: 'new' });
        await table.put({ pk: 'P', sk: 'forever', gsi1pk: 'G', gsi1sk: 'forever' });
        expect(await table.get({ pk: 'P', sk: 'old' })).toBeUndefined();
        expect((await table.get({ pk: 'P', sk: 'new' }))?.sk).toBe('new');
        expect(sks((await table.query({ pk: 'P' })).items)).toEqual(['forever', 'new']);
        expect(sks((await table.query({ index: 'gsi1', pk: 'G' })).items)).toEqual(['forever', 'new']);
      });

      it('fills pages past expired items', async () => {
        const items = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
        for (const [i, sk] of items.entries()) {
          // Every item but c, f, i is expired: each page must skip over several.
          await table.put({ pk: 'P', sk, ...(i % 3 === 2 ? {} : { expiresAt: past() }) });
        }
        const first = await table.query({ pk: 'P', limit: 2 });
        expect(sks(first.items)).toEqual(['c', 'f']);
        expect(first.cursor).toBeDefined();
        const pages = await allPages(table, { pk: 'P', limit: 2 });
        expect(sks(pages.flat())).toEqual(['c', 'f', 'i']);
        const down = await table.query({ pk: 'P', limit: 2, descending: true });
        expect(sks(down.items)).toEqual(['i', 'f']);
      });

      it('counts an expired item as absent for conditions', async () => {
        await table.put({ pk: 'P', sk: 'A', v: 'old', state: 'x', expiresAt: past() });
        await expectConditionFailed(table.put({ pk: 'P', sk: 'A', v: 'new' }, { kind: 'exists' }));
        await expectConditionFailed(table.put({ pk: 'P', sk: 'A', v: 'new' }, { kind: 'equals', attr: 'state', value: 'x' }));
        await expectConditionFailed(table.update({ key: { pk: 'P', sk: 'A' }, set: { v: 'new' } }));
        await expectConditionFailed(table.delete({ pk: 'P', sk: 'A' }, { kind: 'exists' }));
        await table.put({ pk: 'P', sk: 'A', v: 'new' }, { kind: 'notExists' });
        expect(await table.get({ pk: 'P', sk: 'A' })).toEqual({ pk: 'P', sk: 'A', v: 'new' });
      });

      it('an update creating over an expired item does not resurrect its old attributes', async () => {
        await table.put({ pk: 'P', sk: 'A', old: 'secret', n: 10, expiresAt: past() });
        const created = await table.update({ key: { pk: 'P', sk: 'A' }, add: { n: 1 }, condition: { kind: 'notExists' } });
        expect(created).toEqual({ pk: 'P', sk: 'A', n: 1 });
        expect(await table.get({ pk: 'P', sk: 'A' })).toEqual({ pk: 'P', sk: 'A', n: 1 });
      });

      it('makes an item invisible when an update sets expiresAt in the past, visible again when removed', async () => {
        await table.put({ pk: 'P', sk: 'A' });
        await table.update({ key: { pk: 'P', sk: 'A' }, set: { expiresAt: past() } });
        expect(await table.get({ pk: 'P', sk: 'A' })).toBeUndefined();
        await table.put({ pk: 'P', sk: 'B', expiresAt: future() });
        await table.update({ key: { pk: 'P', sk: 'B' }, remove: ['expiresAt'] });
        expect(await table.get({ pk: 'P', sk: 'B' })).toEqual({ pk: 'P', sk: 'B' });
      });
    });

    describe('transactions', () => {
      it('applies every op', async () => {
        await table.put({ pk: 'P', sk: 'upd', n: 1 });
        await table.put({ pk: 'P', sk: 'del' });
        await table.put({ pk: 'P', sk: 'chk', state: 'ok' });
        await table.transact([
          { type: 'put', item: { pk: 'P', sk: 'new', v: 1 }, condition: { kind: 'notExists' } },
          { type: 'update', update: { key: { pk: 'P', sk: 'upd' }, add: { n: 1 }, set: { s: 'x' } } },
          { type: 'delete', key: { pk: 'P', sk: 'del' }, condition: { kind: 'exists' } },
          { type: 'check', key: { pk: 'P', sk: 'chk' }, condition: { kind: 'equals', attr: 'state', value: 'ok' } },
          { type: 'update', update: { key: { pk: 'P', sk: 'made' }, set: { a: 1 }, condition: { kind: 'notExists' } } },
        ]);
        expect((await table.query({ pk: 'P' })).items).toEqual([
          { pk: 'P', sk: 'chk', state: 'ok' },
          { pk: 'P', sk: 'made', a: 1 },
          { pk: 'P', sk: 'new', v: 1 },
          { pk: 'P', sk: 'upd', n: 2, s: 'x' },
        ]);
      });

      it('applies nothing when one condition fails, naming the op', async () => {
        await table.put({ pk: 'P', sk: 'taken' });
        await table.put({ pk: 'P', sk: 'counter', n: 1 });
        await table.put({ pk: 'P', sk: 'doomed' });
        await expectConditionFailed(
          table.transact([
            { type: 'put', item: { pk: 'P', sk: 'new' } },
            { type: 'update', update: { key: { pk: 'P', sk: 'counter' }, add: { n: 1 } } },
            { type: 'delete', key: { pk: 'P', sk: 'doomed' } },
            { type: 'put', item: { pk: 'P', sk: 'taken', v: 2 }, condition: { kind: 'notExists' } },
          ]),
          3,
        );
        expect(sks((await table.query({ pk: 'P' })).items)).toEqual(['counter', 'doomed', 'taken']);
        expect((await table.get({ pk: 'P', sk: 'counter' }))?.n).toBe(1);
        expect(await table.get({ pk: 'P', sk: 'taken' })).toEqual({ pk: 'P', sk: 'taken' });
      });

      it('fails on a check op and on an update of a missing item', async () => {
        await table.put({ pk: 'P', sk: 'A', state: 'draft' });
        await expectConditionFailed(
          table.transact([
            { type: 'put', item: { pk: 'P', sk: 'B' } },
            { type: 'check', key: { pk: 'P', sk: 'A' }, condition: { kind: 'equals', attr: 'state', value: 'published' } },
          ]),
          1,
        );
        await expectConditionFailed(
          table.transact([{ type: 'update', update: { key: { pk: 'P', sk: 'missing' }, set: { a: 1 } } }]),
          0,
        );
        expect(await table.get({ pk: 'P', sk: 'B' })).toBeUndefined();
        expect(await table.get({ pk: 'P', sk: 'missing' })).toBeUndefined();
      });

      it('treats expired items as absent', async () => {
        await table.put({ pk: 'P', sk: 'A', expiresAt: past() });
        await table.transact([{ type: 'put', item: { pk: 'P', sk: 'A', v: 1 }, condition: { kind: 'notExists' } }]);
        await table.put({ pk: 'P', sk: 'B', expiresAt: past() });
        await expectConditionFailed(
          table.transact([
            { type: 'put', item: { pk: 'P', sk: 'C' } },
            { type: 'check', key: { pk: 'P', sk: 'B' }, condition: { kind: 'exists' } },
          ]),
          1,
        );
        expect(await table.get({ pk: 'P', sk: 'A' })).toEqual({ pk: 'P', sk: 'A', v: 1 });
        expect(await table.get({ pk: 'P', sk: 'C' })).toBeUndefined();
      });

      it('accepts 25 ops and rejects 26 without writing anything', async () => {
        const puts = (n: number, prefix: string): WriteOp[] =>
          Array.from({ length: n }, (_, i) => ({ type: 'put', item: { pk: 'P', sk: `${prefix}${String(i).padStart(2, '0')}` } }));
        await table.transact(puts(25, 'ok'));
        await expectRejected(table.transact(puts(26, 'no')), /at most 25/);
        const all = await allPages(table, { pk: 'P' });
        expect(all.flat()).toHaveLength(25);
        expect(sks(all.flat()).every((sk) => sk.startsWith('ok'))).toBe(true);
      });

      it('rejects two ops on the same item', async () => {
        await expectRejected(
          table.transact([
            { type: 'put', item: { pk: 'P', sk: 'A' } },
            { type: 'check', key: { pk: 'P', sk: 'B' }, condition: { kind: 'notExists' } },
            { type: 'update', update: { key: { pk: 'P', sk: 'A' }, set: { v: 1 }, condition: { kind: 'notExists' } } },
          ]),
          /two operations on one item/,
        );
        expect(await table.get({ pk: 'P', sk: 'A' })).toBeUndefined();
      });

      it('treats an empty transaction as a no-op', async () => {
        await table.transact([]);
      });
    });
  });
}
