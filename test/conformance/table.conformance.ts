/**
 * The behaviour every Table adapter must show. Each adapter's test file calls
 * tableConformance() with a factory; each test gets a fresh, empty table, so tests
 * never see each other's items.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConditionFailedError, type Item, type QueryInput, type Table, type WriteOp } from '@svc/core/ports/table';

export interface TableFixture {
  table: Table;
  cleanup(): Promise<void>;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const past = () => nowSeconds() - 3600;
const future = () => nowSeconds() + 3600;

async function expectConditionFailed(promise: Promise<unknown>, opIndex?: number): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConditionFailedError);
  expect((err as ConditionFailedError).code).toBe('CONDITION_FAILED');
  expect((err as ConditionFailedError).opIndex).toBe(opIndex);
}

/** A caller mistake: a plain Error, never mistaken for a failed condition. */
async function expectRejected(promise: Promise<unknown>, message: RegExp): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  expect(err).not.toBeInstanceOf(ConditionFailedError);
  expect((err as Error).message).toMatch(message);
}

/** Follows cursors to the end; returns every page. */
async function allPages(table: Table, input: QueryInput): Promise<Item[][]> {
  const pages: Item[][] = [];
  let cursor: string | undefined;
  do {
    const page = await table.query({ ...input, cursor });
    pages.push(page.items);
    cursor = page.cursor;
    if (pages.length > 100) throw new Error('cursor never ends');
  } while (cursor);
  return pages;
}

const sks = (items: Item[]) => items.map((i) => i.sk);

export function tableConformance(name: string, make: () => Promise<TableFixture>): void {
  describe(`Table conformance: ${name}`, () => {
    let fixture: TableFixture;
    let table: Table;

    beforeEach(async () => {
      fixture = await make();
      table = fixture.table;
    });
    afterEach(async () => {
      await fixture?.cleanup();
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

    it('reports health', async () => {
      expect(await table.health()).toEqual({ status: 'ok' });
    });
  });
}
