/**
 * The Table port in-process, for the one-command local runtime (no Java, no Docker).
 * State lives in memory; with a folder it is also journalled to disk (journal-store.ts)
 * so it survives restarts and crashes. Semantics follow DynamoDB as the DynamoDbTable
 * adapter presents it — the shared conformance suite holds both to the same behaviour.
 *
 * Every method does its work synchronously before its promise settles, so operations
 * are atomic with respect to each other without any locking.
 */
import { systemClock, type Clock } from '@svc/core/ports/clock';
import {
  ConditionFailedError,
  type Condition,
  type IndexName,
  type Item,
  type ItemKey,
  type QueryInput,
  type QueryPage,
  type Table,
  type UpdateInput,
  type WriteOp,
} from '@svc/core/ports/table';
import {
  INDEX_ATTRS,
  cursorKey,
  encodeCursor,
  epochSeconds,
  isExpired,
  keyString,
  normalizeQuery,
  normalizeUpdate,
  validateCondition,
  validateItem,
  validateKey,
  validateTransaction,
  type NormalizedUpdate,
} from '../table-rules.ts';
import { JournalStore, type JournalStoreOptions } from './journal-store.ts';
import { SortedIndex, type IndexEntry } from './sorted-index.ts';

export interface FileTableOptions extends JournalStoreOptions {
  /** Source of "now" for TTL; defaults to the system clock. */
  clock?: Clock;
}

const INDEX_NAMES: IndexName[] = ['main', 'gsi1', 'gsi2'];

/**
 * JSON round trip: stored items are exactly what the journal replays (undefined dropped, no
 * shared references). The text comes along for the journal line, which then reuses it.
 */
function toStoredWithJson(item: Item): { item: Item; json: string } {
  const json = JSON.stringify(item);
  return { item: JSON.parse(json) as Item, json };
}

const toStored = (item: Item): Item => toStoredWithJson(item).item;

function conditionHolds(condition: Condition, current: Item | undefined): boolean {
  switch (condition.kind) {
    case 'notExists':
      return current === undefined;
    case 'exists':
      return current !== undefined;
    case 'equals':
      // A missing attribute equals nothing, not even null (as in DynamoDB).
      return current !== undefined && Object.hasOwn(current, condition.attr) && current[condition.attr] === condition.value;
  }
}

export class FileTable implements Table {
  private readonly items = new Map<string, Item>();
  private readonly indexes: Record<IndexName, SortedIndex> = {
    main: new SortedIndex(),
    gsi1: new SortedIndex(),
    gsi2: new SortedIndex(),
  };
  private readonly store?: JournalStore;
  private readonly clock: Clock;
  private closed = false;

  /** With `dir`: persisted there (locked against other processes). Without: memory only. */
  constructor(dir?: string, options: FileTableOptions = {}) {
    this.clock = options.clock ?? systemClock;
    if (dir === undefined) return;
    const { store, items } = JournalStore.open(dir, options);
    this.store = store;
    for (const [k, item] of items) {
      this.items.set(k, item);
      for (const [index, partition, entry] of this.indexEntries(item)) {
        this.indexes[index].appendUnsorted(partition, entry);
      }
    }
    for (const index of INDEX_NAMES) this.indexes[index].sortAll();
  }

  static async open(dir: string, options: FileTableOptions = {}): Promise<FileTable> {
    return new FileTable(dir, options);
  }

  async get(key: ItemKey): Promise<Item | undefined> {
    this.assertOpen();
    validateKey(key);
    const item = this.visible(key, this.now());
    return item && structuredClone(item);
  }

  async put(item: Item, condition?: Condition): Promise<void> {
    this.assertOpen();
    validateItem(item);
    validateCondition(condition);
    if (condition && !conditionHolds(condition, this.visible(item, this.now()))) {
      throw new ConditionFailedError('Condition failed');
    }
    const stored = toStoredWithJson(item);
    this.commit([stored.item], [], [stored.json]);
  }

  async update(input: UpdateInput): Promise<Item> {
    this.assertOpen();
    const u = normalizeUpdate(input);
    const current = this.visible(u.key, this.now());
    if (!conditionHolds(u.condition, current)) throw new ConditionFailedError('Condition failed');
    const next = applyUpdate(u, current);
    this.commit([next], []);
    return structuredClone(next);
  }

  async delete(key: ItemKey, condition?: Condition): Promise<void> {
    this.assertOpen();
    validateKey(key);
    validateCondition(condition);
    if (condition && !conditionHolds(condition, this.visible(key, this.now()))) {
      throw new ConditionFailedError('Condition failed');
    }
    if (this.items.has(keyString(key))) this.commit([], [{ pk: key.pk, sk: key.sk }]);
  }

  async query(input: QueryInput): Promise<QueryPage> {
    this.assertOpen();
    const q = normalizeQuery(input);
    if (q.empty) return { items: [] };
    const now = this.now();
    const after: IndexEntry | undefined = q.start && { sort: q.start[q.skAttr], pk: q.start.pk, sk: q.start.sk };
    const entries = this.indexes[q.index].range(q.pk, {
      prefix: q.skPrefix,
      from: q.skFrom,
      to: q.skTo,
      after,
      descending: q.descending,
    });
    const items: Item[] = [];
    for (const entry of entries) {
      const item = this.items.get(keyString(entry));
      if (!item || isExpired(item, now)) continue;
      items.push(structuredClone(item));
      if (items.length === q.limit) {
        // A cursor only when something follows (it may turn out to be expired: "may follow").
        return entries.next().done ? { items } : { items, cursor: encodeCursor(cursorKey(item, q.index)) };
      }
    }
    return { items };
  }

  async transact(ops: WriteOp[]): Promise<void> {
    this.assertOpen();
    validateTransaction(ops);
    const now = this.now();
    const puts: Item[] = [];
    const putJson: Array<string | undefined> = [];
    const dels: ItemKey[] = [];
    // Evaluate everything first; nothing is written unless every op passes.
    ops.forEach((op, i) => {
      const fail = () => new ConditionFailedError(`Transaction op ${i}: condition failed`, i);
      switch (op.type) {
        case 'put': {
          if (op.condition && !conditionHolds(op.condition, this.visible(op.item, now))) throw fail();
          const stored = toStoredWithJson(op.item);
          putJson[puts.length] = stored.json;
          puts.push(stored.item);
          break;
        }
        case 'update': {
          const u = normalizeUpdate(op.update);
          const current = this.visible(u.key, now);
          if (!conditionHolds(u.condition, current)) throw fail();
          puts.push(applyUpdate(u, current));
          break;
        }
        case 'delete':
          if (op.condition && !conditionHolds(op.condition, this.visible(op.key, now))) throw fail();
          if (this.items.has(keyString(op.key))) dels.push({ pk: op.key.pk, sk: op.key.sk });
          break;
        case 'check':
          if (!conditionHolds(op.condition, this.visible(op.key, now))) throw fail();
          break;
      }
    });
    if (puts.length || dels.length) this.commit(puts, dels, putJson);
  }

  async health(): Promise<{ status: 'ok' | 'down'; detail?: string }> {
    return this.closed ? { status: 'down', detail: 'table is closed' } : { status: 'ok' };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.store?.close();
  }

  private now(): number {
    return epochSeconds(this.clock.now());
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('FileTable is closed');
  }

  /** The stored item unless it has expired: expired items are invisible everywhere. */
  private visible(key: ItemKey, now: number): Item | undefined {
    const item = this.items.get(keyString(key));
    return item && !isExpired(item, now) ? item : undefined;
  }

  /**
   * Journal first, memory second: a write the disk refused must not become visible.
   * `putJson[i]`, when given, is the text toStoredWithJson made of puts[i].
   */
  private commit(puts: Item[], dels: ItemKey[], putJson: ReadonlyArray<string | undefined> = []): void {
    this.store?.append(dels.length ? { put: puts, del: dels } : { put: puts }, putJson);
    for (const key of dels) this.replace(key, undefined);
    for (const item of puts) this.replace(item, item);
    if (this.store?.needsCompaction()) this.compact();
  }

  private compact(): void {
    // Expired items are invisible and behave exactly like absent ones, so dropping
    // them here is the FileTable's equivalent of DynamoDB's TTL deletion.
    const now = this.now();
    for (const item of [...this.items.values()]) {
      if (isExpired(item, now)) this.replace(item, undefined);
    }
    this.store?.compact(this.items.values());
  }

  private replace(key: ItemKey, next: Item | undefined): void {
    const k = keyString(key);
    const previous = this.items.get(k);
    if (previous) {
      for (const [index, partition, entry] of this.indexEntries(previous)) this.indexes[index].remove(partition, entry);
    }
    if (next) {
      this.items.set(k, next);
      for (const [index, partition, entry] of this.indexEntries(next)) this.indexes[index].insert(partition, entry);
    } else {
      this.items.delete(k);
    }
  }

  /** Where an item appears: always in main; in a GSI only with both its key attributes (sparse index). */
  private indexEntries(item: Item): [IndexName, string, IndexEntry][] {
    const out: [IndexName, string, IndexEntry][] = [];
    for (const index of INDEX_NAMES) {
      const attrs = INDEX_ATTRS[index];
      const partition = item[attrs.pk];
      const sort = item[attrs.sk];
      if (typeof partition === 'string' && typeof sort === 'string') {
        out.push([index, partition, { sort, pk: item.pk, sk: item.sk }]);
      }
    }
    return out;
  }
}

/**
 * The item after an update. An absent (or expired) item only gets here under a
 * notExists condition and starts fresh: an expired item's old attributes must not return.
 */
function applyUpdate(u: NormalizedUpdate, current: Item | undefined): Item {
  const next: Item = current ? structuredClone(current) : { pk: u.key.pk, sk: u.key.sk };
  Object.assign(next, toStored({ ...u.set, pk: u.key.pk, sk: u.key.sk }));
  for (const [attr, amount] of Object.entries(u.add)) {
    const base = next[attr] ?? 0;
    if (typeof base !== 'number') throw new Error(`Cannot add to ${attr}: it is not a number`);
    next[attr] = base + amount;
  }
  for (const attr of u.remove) delete next[attr];
  return next;
}
