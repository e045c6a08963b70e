/**
 * The Store's lowest layer: one table of items addressed by (pk, sk), in the shape of
 * DynamoDB's single-table design. Repositories in core build every resource on this
 * port; adapters (DynamoDB, local file table) implement it and pass one conformance
 * suite (test/conformance/table.conformance.ts).
 *
 * Items are plain JSON objects. Reserved attribute names:
 *   pk, sk            primary key (strings)
 *   gsi1pk, gsi1sk    first global secondary index (optional on an item)
 *   gsi2pk, gsi2sk    second global secondary index (optional on an item)
 *   expiresAt         TTL, epoch seconds; an expired item is invisible to every read
 *                     even before the backend deletes it (DynamoDB deletes lazily)
 */
export interface ItemKey {
  pk: string;
  sk: string;
}

export type Item = ItemKey & Record<string, unknown>;

export type IndexName = 'main' | 'gsi1' | 'gsi2';

/** A write's precondition. Evaluated atomically with the write. */
export type Condition =
  | { kind: 'notExists' } // no item with this key (an expired item counts as absent)
  | { kind: 'exists' }
  | { kind: 'equals'; attr: string; value: string | number | boolean | null };

export interface QueryInput {
  index?: IndexName; // default 'main'
  pk: string; // value of the index's partition attribute
  skPrefix?: string; // begins_with on the index's sort attribute
  skFrom?: string; // inclusive lower bound on the sort attribute
  skTo?: string; // inclusive upper bound on the sort attribute
  descending?: boolean;
  limit?: number; // page size; default 100, max 1000
  cursor?: string; // opaque, from a previous page
}

export interface QueryPage {
  items: Item[];
  cursor?: string; // present when more items may follow
}

export interface UpdateInput {
  key: ItemKey;
  set?: Record<string, unknown>; // attributes to overwrite
  add?: Record<string, number>; // numeric attributes to increment (created at 0)
  remove?: string[]; // attributes to delete
  condition?: Condition; // default: { kind: 'exists' } — an update never creates an item
}

export type WriteOp =
  | { type: 'put'; item: Item; condition?: Condition }
  | { type: 'update'; update: UpdateInput }
  | { type: 'delete'; key: ItemKey; condition?: Condition }
  | { type: 'check'; key: ItemKey; condition: Condition };

export interface Table {
  get(key: ItemKey): Promise<Item | undefined>;
  /** Writes the whole item. Throws ConditionFailedError if the condition is false. */
  put(item: Item, condition?: Condition): Promise<void>;
  /** Partial update; returns the item as it is after the update. */
  update(input: UpdateInput): Promise<Item>;
  /** Deleting a missing item is not an error unless a condition says so. */
  delete(key: ItemKey, condition?: Condition): Promise<void>;
  query(input: QueryInput): Promise<QueryPage>;
  /** All writes or none (max 25 ops). Throws ConditionFailedError naming the failed op index. */
  transact(ops: WriteOp[]): Promise<void>;
  /** Reports whether the backend answers; used by /api/v1/health/data-layer. */
  health(): Promise<{ status: 'ok' | 'down'; detail?: string }>;
  close?(): Promise<void>;
}

export class ConditionFailedError extends Error {
  readonly code = 'CONDITION_FAILED';
  constructor(
    message: string,
    /** For transactions: index of the op whose condition failed, when known. */
    readonly opIndex?: number,
  ) {
    super(message);
    this.name = 'ConditionFailedError';
  }
}
