/** Conformance cases: put/get, conditions, update and delete. */
import { beforeEach, describe, expect, it } from 'vitest';
import { ConditionFailedError, type Table } from '@svc/core/ports/table';
import { expectConditionFailed, expectRejected } from './helpers.ts';

export function writeCases(current: () => Table): void {
  describe('writes', () => {
    let table: Table;
    beforeEach(() => {
      table = current();
    });

    describe('put/get', () => {
      it('round-trips JSON values', async () => {
        const item = {
          pk: 'P#1',
          sk: 'S#1',
          str: 'hello',
          empty: '',
          num: 42.5,
          neg: -7,
          yes: true,
          no: false,
          nothing: null,
          list: [1, 'two', { three: 3 }, [4]],
          map: { nested: { deep: 'x' }, n: 1 },
        };
        await table.put(item);
        expect(await table.get({ pk: 'P#1', sk: 'S#1' })).toEqual(item);
      });

      it('returns undefined for a missing item', async () => {
        await table.put({ pk: 'P', sk: 'A' });
        expect(await table.get({ pk: 'P', sk: 'B' })).toBeUndefined();
        expect(await table.get({ pk: 'Q', sk: 'A' })).toBeUndefined();
      });

      it('returns copies: mutating a result does not change the stored item', async () => {
        await table.put({ pk: 'P', sk: 'A', list: [1], map: { a: 1 } });
        const got = (await table.get({ pk: 'P', sk: 'A' }))!;
        (got.list as number[]).push(2);
        (got.map as Record<string, number>).a = 2;
        expect(await table.get({ pk: 'P', sk: 'A' })).toEqual({ pk: 'P', sk: 'A', list: [1], map: { a: 1 } });
      });

      it('drops undefined attributes', async () => {
        await table.put({ pk: 'P', sk: 'A', gone: undefined, kept: 1 });
        const got = await table.get({ pk: 'P', sk: 'A' });
        expect(got).toEqual({ pk: 'P', sk: 'A', kept: 1 });
        expect(Object.keys(got!)).not.toContain('gone');
      });

      it('overwrites the whole item', async () => {
        await table.put({ pk: 'P', sk: 'A', a: 1, b: 2 });
        await table.put({ pk: 'P', sk: 'A', a: 3 });
        expect(await table.get({ pk: 'P', sk: 'A' })).toEqual({ pk: 'P', sk: 'A', a: 3 });
      });

      it('rejects empty or non-string keys and index keys', async () => {
        await expectRejected(table.put({ pk: '', sk: 'A' }), /pk and sk/);
        await expectRejected(table.put({ pk: 'P', sk: '' }), /pk and sk/);
        await expectRejected(table.get({ pk: 'P', sk: '' }), /pk and sk/);
        await expectRejected(table.put({ pk: 'P', sk: 'A', gsi1pk: '' }), /gsi1pk/);
        await expectRejected(table.put({ pk: 'P', sk: 'A', gsi2sk: 5 }), /gsi2sk/);
        expect(await table.get({ pk: 'P', sk: 'A' })).toBeUndefined();
      });
    });

    describe('conditions on put', () => {
      it('notExists: creates a new item, fails on an existing one and leaves it unchanged', async () => {
        await table.put({ pk: 'P', sk: 'A', v: 1 }, { kind: 'notExists' });
        await expectConditionFailed(table.put({ pk: 'P', sk: 'A', v: 2 }, { kind: 'notExists' }));
        expect(await table.get({ pk: 'P', sk: 'A' })).toEqual({ pk: 'P', sk: 'A', v: 1 });
      });

      it('exists: replaces an existing item, fails on a missing one without creating it', async () => {
        await expectConditionFailed(table.put({ pk: 'P', sk: 'A', v: 1 }, { kind: 'exists' }));
        expect(await table.get({ pk: 'P', sk: 'A' })).toBeUndefined();
        await table.put({ pk: 'P', sk: 'A', v: 1 });
        await table.put({ pk: 'P', sk: 'A', v: 2 }, { kind: 'exists' });
        expect(await table.get({ pk: 'P', sk: 'A' })).toEqual({ pk: 'P', sk: 'A', v: 2 });
      });

      it('equals: compares strings, numbers, booleans and null', async () => {
        await table.put({ pk: 'P', sk: 'A', s: 'x', n: 3, b: true, z: null, version: 1 });
        for (const [attr, value] of [
          ['s', 'x'],
          ['n', 3],
          ['b', true],
          ['z', null],
        ] as const) {
          await table.put({ pk: 'P', sk: 'A', s: 'x', n: 3, b: true, z: null, version: 1 }, { kind: 'equals', attr, value });
        }
        for (const [attr, value] of [
          ['s', 'y'],
          ['n', 4],
          ['n', '3'],
          ['b', false],
          ['s', null],
          ['missing', null],
          ['missing', 'x'],
        ] as const) {
          await expectConditionFailed(table.put({ pk: 'P', sk: 'A', version: 99 }, { kind: 'equals', attr, value }));
        }
        expect((await table.get({ pk: 'P', sk: 'A' }))?.version).toBe(1);
      });

      it('equals on a missing item fails without creating it', async () => {
        await expectConditionFailed(table.put({ pk: 'P', sk: 'A', v: 1 }, { kind: 'equals', attr: 'v', value: 1 }));
        expect(await table.get({ pk: 'P', sk: 'A' })).toBeUndefined();
      });

      it('treats attribute names literally (reserved words, dots)', async () => {
        await table.put({ pk: 'P', sk: 'A', status: 'open', 'a.b': 1, name: 'n' });
        await table.put({ pk: 'P', sk: 'A', status: 'closed', 'a.b': 2 }, { kind: 'equals', attr: 'a.b', value: 1 });
        await table.update({ key: { pk: 'P', sk: 'A' }, set: { name: 'm' }, condition: { kind: 'equals', attr: 'status', value: 'closed' } });
        expect(await table.get({ pk: 'P', sk: 'A' })).toEqual({ pk: 'P', sk: 'A', status: 'closed', 'a.b': 2, name: 'm' });
      });
    });

    describe('update', () => {
      it('sets, adds and removes, returning the item after the update', async () => {
        await table.put({ pk: 'P', sk: 'A', keep: 'k', old: 'o', count: 1, title: 't' });
        const after = await table.update({
          key: { pk: 'P', sk: 'A' },
          set: { title: 'T', fresh: { x: [1] } },
          add: { count: 2, created: 5 },
          remove: ['old', 'notThere'],
        });
        const expected = { pk: 'P', sk: 'A', keep: 'k', count: 3, created: 5, title: 'T', fresh: { x: [1] } };
        expect(after).toEqual(expected);
        expect(await table.get({ pk: 'P', sk: 'A' })).toEqual(expected);
      });

      it('adds negative and fractional amounts', async () => {
        await table.put({ pk: 'P', sk: 'A', n: 10 });
        expect((await table.update({ key: { pk: 'P', sk: 'A' }, add: { n: -2.5 } })).n).toBe(7.5);
      });

      it('never creates an item by default (exists condition)', async () => {
        await expectConditionFailed(table.update({ key: { pk: 'P', sk: 'A' }, set: { v: 1 } }));
        expect(await table.get({ pk: 'P', sk: 'A' })).toBeUndefined();
      });

      it('honours an equals condition', async () => {
        await table.put({ pk: 'P', sk: 'A', version: 1 });
        await table.update({ key: { pk: 'P', sk: 'A' }, add: { version: 1 }, condition: { kind: 'equals', attr: 'version', value: 1 } });
        await expectConditionFailed(
          table.update({ key: { pk: 'P', sk: 'A' }, set: { x: 1 }, condition: { kind: 'equals', attr: 'version', value: 1 } }),
        );
        expect(await table.get({ pk: 'P', sk: 'A' })).toEqual({ pk: 'P', sk: 'A', version: 2 });
      });

      it('creates an item under notExists, counting add from 0', async () => {
        const created = await table.update({
          key: { pk: 'P', sk: 'A' },
          set: { a: 'x' },
          add: { n: 4 },
          condition: { kind: 'notExists' },
        });
        expect(created).toEqual({ pk: 'P', sk: 'A', a: 'x', n: 4 });
        expect(await table.get({ pk: 'P', sk: 'A' })).toEqual(created);
        await expectConditionFailed(table.update({ key: { pk: 'P', sk: 'A' }, add: { n: 1 }, condition: { kind: 'notExists' } }));
      });

      it('rejects malformed updates', async () => {
        await table.put({ pk: 'P', sk: 'A', v: 1, s: 'str' });
        const key = { pk: 'P', sk: 'A' };
        await expectRejected(table.update({ key, set: { pk: 'other' } }), /key attribute pk/);
        await expectRejected(table.update({ key, remove: ['sk'] }), /key attribute sk/);
        await expectRejected(table.update({ key, set: { v: 2 }, remove: ['v'] }), /more than one/);
        await expectRejected(table.update({ key }), /at least one/);
        await expectRejected(table.update({ key, set: { gsi1pk: '' } }), /gsi1pk/);
        const err = await table.update({ key, add: { s: 1 } }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(Error);
        expect(err).not.toBeInstanceOf(ConditionFailedError);
        expect(await table.get(key)).toEqual({ pk: 'P', sk: 'A', v: 1, s: 'str' });
      });
    });

    describe('delete', () => {
      it('deletes, and deleting a missing item is not an error', async () => {
        await table.put({ pk: 'P', sk: 'A' });
        await table.delete({ pk: 'P', sk: 'A' });
        expect(await table.get({ pk: 'P', sk: 'A' })).toBeUndefined();
        await table.delete({ pk: 'P', sk: 'A' });
      });

      it('honours conditions', async () => {
        await expectConditionFailed(table.delete({ pk: 'P', sk: 'A' }, { kind: 'exists' }));
        await table.put({ pk: 'P', sk: 'A', state: 'live' });
        await expectConditionFailed(table.delete({ pk: 'P', sk: 'A' }, { kind: 'equals', attr: 'state', value: 'dead' }));
        await expectConditionFailed(table.delete({ pk: 'P', sk: 'A' }, { kind: 'notExists' }));
        expect(await table.get({ pk: 'P', sk: 'A' })).toEqual({ pk: 'P', sk: 'A', state: 'live' });
        await table.delete({ pk: 'P', sk: 'A' }, { kind: 'equals', attr: 'state', value: 'live' });
        expect(await table.get({ pk: 'P', sk: 'A' })).toBeUndefined();
      });
    });
  });
}
