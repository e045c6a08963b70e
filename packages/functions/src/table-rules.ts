/**
 * Semantics shared by every Table adapter (DynamoDB, FileTable), so the two agree on
 * the edge cases DynamoDB itself would reject or handle specially. Everything that is
 * a caller mistake (bad key, overlapping update paths, too many transaction ops) throws
 * a plain Error before any backend is touched; only a false condition throws
 * ConditionFailedError.
 */
import type { Condition, IndexName, Item, ItemKey, QueryInput, UpdateInput, WriteOp } from '@svc/core/ports/table';
import { validationFailed } from '@svc/core/errors';

export const MAX_TRANSACTION_OPS = 25;
export const DEFAULT_QUERY_LIMIT = 100;
export const MAX_QUERY_LIMIT = 1000;
export const TTL_ATTRIBUTE = 'expiresAt';

/** Partition and sort attribute of each index. */
export const INDEX_ATTRS: Record<IndexName, { pk: string; sk: string }> = {
  main: { pk: 'pk', sk: 'sk' },
  gsi1: { pk: 'gsi1pk', sk: 'gsi1sk' },
  gsi2: { pk: 'gsi2pk', sk: 'gsi2sk' },
};
const GSI_KEY_ATTRS = ['gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'];

/** Epoch seconds (fractional) — the unit of `expiresAt`. */
export function epochSeconds(now: Date): number {
  return now.getTime() / 1000;
}

/** Expired = has a numeric expiresAt in the past. A non-numeric expiresAt is ignored, as DynamoDB's TTL does. */
export function isExpired(item: Record<string, unknown>, nowSeconds: number): boolean {
  const exp = item[TTL_ATTRIBUTE];
  return typeof exp === 'number' && exp < nowSeconds;
}

/**
 * Compares strings by their UTF-8 bytes, which is how DynamoDB orders sort keys.
 * UTF-16 code-unit order (JS `<`) differs only when a surrogate (U+D800–DFFF, i.e. a
 * code point above U+FFFF) meets a unit in U+E000–FFFF; shifting those ranges fixes it.
 */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      }
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** A collision-free map key for (pk, sk). */
export function keyString(key: ItemKey): string {
  return JSON.stringify([key.pk, key.sk]);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

export function validateKey(key: ItemKey): void {
  if (!key || !nonEmptyString(key.pk) || !nonEmptyString(key.sk)) {
    throw new Error('Table key needs non-empty string pk and sk');
  }
}

/** DynamoDB rejects index key attributes that are not non-empty strings (the GSIs declare them as S). */
function validateIndexAttrs(attrs: Record<string, unknown>): void {
  for (const name of GSI_KEY_ATTRS) {
    if (name in attrs && attrs[name] !== undefined && !nonEmptyString(attrs[name])) {
      throw new Error(`Index key attribute ${name} must be a non-empty string`);
    }
  }
}

export function validateItem(item: Item): void {
  validateKey(item);
  validateIndexAttrs(item);
}

export function validateCondition(condition: Condition | undefined): void {
  if (condition?.kind === 'equals' && !(typeof condition.attr === 'string' && condition.attr.length > 0)) {
    throw new Error('An equals condition needs a non-empty attribute name');
  }
}

/** An update with its `set` stripped of undefined values (they mean nothing, as in JSON). */
export interface NormalizedUpdate {
  key: ItemKey;
  set: Record<string, unknown>;
  add: Record<string, number>;
  remove: string[];
  condition: Condition;
}

export function normalizeUpdate(input: UpdateInput): NormalizedUpdate {
  validateKey(input.key);
  const set = Object.fromEntries(Object.entries(input.set ?? {}).filter(([, v]) => v !== undefined));
  const add = { ...(input.add ?? {}) };
  const remove = [...new Set(input.remove ?? [])];
  const seen = new Set<string>();
  for (const name of [...Object.keys(set), ...Object.keys(add), ...remove]) {
    if (!name) throw new Error('Update attribute names must be non-empty');
    if (name === 'pk' || name === 'sk') throw new Error(`Cannot update key attribute ${name}`);
    // DynamoDB rejects one attribute in two clauses ("Two document paths overlap").
    if (seen.has(name)) throw new Error(`Attribute ${name} appears in more than one of set/add/remove`);
    seen.add(name);
  }
  if (seen.size === 0) throw new Error('An update needs at least one of set/add/remove');
  for (const [name, value] of Object.entries(add)) {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`add.${name} must be a finite number`);
  }
  validateIndexAttrs(set);
  const condition = input.condition ?? { kind: 'exists' };
  validateCondition(condition);
  return { key: { pk: input.key.pk, sk: input.key.sk }, set, add, remove, condition };
}

/** The item an update with a notExists condition creates: the key plus set, with add counted from 0. */
export function itemFromUpdate(u: NormalizedUpdate): Item {
  return { ...u.set, ...u.add, pk: u.key.pk, sk: u.key.sk };
}

export function opKey(op: WriteOp): ItemKey {
  switch (op.type) {
    case 'put':
      return op.item;
    case 'update':
      return op.update.key;
    case 'delete':
    case 'check':
      return op.key;
  }
}

/** Rejects what DynamoDB would reject with a ValidationException, before anything is written. */
export function validateTransaction(ops: WriteOp[]): void {
  if (ops.length > MAX_TRANSACTION_OPS) {
    throw new Error(`A transaction holds at most ${MAX_TRANSACTION_OPS} operations (got ${ops.length})`);
  }
  const seen = new Map<string, number>();
  ops.forEach((op, i) => {
    const key = opKey(op);
    validateKey(key);
    const k = keyString(key);
    const previous = seen.get(k);
    if (previous !== undefined) {
      throw new Error(
        `A transaction cannot include two operations on one item (ops ${previous} and ${i}: pk=${key.pk} sk=${key.sk})`,
      );
    }
    seen.set(k, i);
    if (op.type === 'put') validateItem(op.item);
    if (op.type === 'check' && !op.condition) throw new Error(`Transaction op ${i}: a check needs a condition`);
    if (op.type !== 'update') validateCondition(op.condition);
  });
}

/** A query with defaults applied and sort-key bounds reduced to what both backends can express. */
export interface NormalizedQuery {
  index: IndexName;
  pkAttr: string;
  skAttr: string;
  pk: string;
  skPrefix?: string;
  skFrom?: string;
  skTo?: string;
  descending: boolean;
  limit: number;
  start?: Record<string, string>;
  /** True when the bounds exclude every item, so no backend call is needed. */
  empty: boolean;
}

export function normalizeQuery(input: QueryInput): NormalizedQuery {
  const index = input.index ?? 'main';
  const attrs = INDEX_ATTRS[index];
  if (!attrs) throw new Error(`Unknown index ${String(index)}`);
  if (!nonEmptyString(input.pk)) throw new Error('Query needs a non-empty pk');
  const limit = input.limit ?? DEFAULT_QUERY_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw new Error('Query limit must be a positive integer');
  // DynamoDB allows one sort-key condition, so a prefix cannot be combined with a range.
  const skPrefix = input.skPrefix || undefined;
  if (skPrefix !== undefined && (input.skFrom !== undefined || input.skTo !== undefined)) {
    throw new Error('Query skPrefix cannot be combined with skFrom/skTo');
  }
  // Sort keys are non-empty, so "" as a lower bound means "no bound" and as an upper bound "nothing".
  const skFrom = input.skFrom || undefined;
  const skTo = input.skTo;
  const empty = skTo === '' || (skFrom !== undefined && skTo !== undefined && compareUtf8(skFrom, skTo) > 0);
  return {
    index,
    pkAttr: attrs.pk,
    skAttr: attrs.sk,
    pk: input.pk,
    skPrefix,
    skFrom,
    skTo: skTo === '' ? undefined : skTo,
    descending: input.descending ?? false,
    limit: Math.min(limit, MAX_QUERY_LIMIT),
    start: input.cursor === undefined ? undefined : decodeCursor(input.cursor, index, input.pk, skPrefix),
    empty,
  };
}

/**
 * A cursor is the key of the last item a page evaluated, in the shape of DynamoDB's
 * LastEvaluatedKey (base-table key plus the index key), base64url-encoded JSON. Both
 * adapters use the same shape, so a cursor means the same position in either.
 */
export function encodeCursor(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

export function cursorKey(item: Item, index: IndexName): Record<string, string> {
  const key: Record<string, string> = { pk: item.pk, sk: item.sk };
  if (index !== 'main') {
    const attrs = INDEX_ATTRS[index];
    key[attrs.pk] = item[attrs.pk] as string;
    key[attrs.sk] = item[attrs.sk] as string;
  }
  return key;
}

/**
 * A page cursor back as the key it was made from. A cursor that is not one of this list's
 * (mangled, or from another list: another partition, or another sort-key prefix of the same
 * one) is the caller's mistake: a 400 naming `cursor`, not a 500 and not a wrong page.
 */
export function decodeCursor(cursor: string, index: IndexName, pk: string, skPrefix?: string): Record<string, string> {
  const invalid = (why: string) => validationFailed([{ path: 'cursor', message: `not a next_cursor of this list (${why})` }]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid('it does not decode');
  }
  const attrs = INDEX_ATTRS[index];
  const needed = index === 'main' ? ['pk', 'sk'] : ['pk', 'sk', attrs.pk, attrs.sk];
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalid('it does not decode to a key');
  const record = parsed as Record<string, unknown>;
  if (!needed.every((name) => nonEmptyString(record[name])) || Object.keys(record).length !== needed.length) {
    throw invalid('it does not decode to a key');
  }
  // One partition holds several lists (an organization's projects and tests): the sort key tells them apart.
  if (record[attrs.pk] !== pk || (skPrefix !== undefined && !(record[attrs.sk] as string).startsWith(skPrefix))) throw invalid('it is a cursor of another list');
  return record as Record<string, string>;
}
