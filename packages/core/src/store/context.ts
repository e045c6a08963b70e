import type { Table, QueryInput, Item } from '../ports/table.ts';
import type { Clock } from '../ports/clock.ts';
import type { SecretCipher } from '../ports/secret-cipher.ts';
import { uuidv7 } from '../ids.ts';
import { noSecretCipher } from '../secrets/no-cipher.ts';
import { stripLayout } from './keys.ts';
import { secretFields, type SecretFields } from './secret-fields.ts';

/** What every repository needs: the table, a clock, an id source, and the sealing of secret attributes. */
export interface StoreContext {
  table: Table;
  clock: Clock;
  newId(): string;
  secrets: SecretFields;
}

/** Without a cipher, secrets can be neither written nor opened (plaintext from before still reads). */
export function storeContext(table: Table, clock: Clock, cipher: SecretCipher = noSecretCipher): StoreContext {
  return { table, clock, newId: () => uuidv7(clock.now().getTime()), secrets: secretFields(cipher) };
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** One page of a query, with layout attributes stripped. */
export async function queryPage<T>(table: Table, input: QueryInput): Promise<Page<T>> {
  const page = await table.query(input);
  return { items: page.items.map((i: Item) => stripLayout<T>(i)), next_cursor: page.cursor ?? null };
}

/** Every item of a partition (for small, bounded sets such as a user's memberships). */
export async function queryAll(table: Table, input: Omit<QueryInput, 'cursor'>): Promise<Item[]> {
  const out: Item[] = [];
  let cursor: string | undefined;
  do {
    const page = await table.query({ ...input, limit: 1000, cursor });
    out.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  return out;
}
