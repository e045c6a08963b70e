/** Shared by the conformance case groups: assertions and small data helpers. */
import { expect } from 'vitest';
import { ConditionFailedError, type Item, type QueryInput, type Table } from '@svc/core/ports/table';

export const nowSeconds = () => Math.floor(Date.now() / 1000);
export const past = () => nowSeconds() - 3600;
export const future = () => nowSeconds() + 3600;

export async function expectConditionFailed(promise: Promise<unknown>, opIndex?: number): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConditionFailedError);
  expect((err as ConditionFailedError).code).toBe('CONDITION_FAILED');
  expect((err as ConditionFailedError).opIndex).toBe(opIndex);
}

/** A caller mistake: a plain Error, never mistaken for a failed condition. */
export async function expectRejected(promise: Promise<unknown>, message: RegExp): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  expect(err).not.toBeInstanceOf(ConditionFailedError);
  expect((err as Error).message).toMatch(message);
}

/** Follows cursors to the end; returns every page. */
export async function allPages(table: Table, input: QueryInput): Promise<Item[][]> {
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

export const sks = (items: Item[]) => items.map((i) => i.sk);
