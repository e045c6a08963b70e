import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { acceptAliases, aliasesOf, Cursor, IsoDateTime, JsonObject, ListQuery, listResponse, Uuid } from './common.ts';
import { parseInput } from './parse.ts';
import { AppError } from '../errors.ts';

function issuesOf(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe('VALIDATION_FAILED');
    return ((e as AppError).details as { issues: { path: string; message: string }[] }).issues;
  }
  throw new Error('expected a validation failure');
}

describe('scalars', () => {
  it('Uuid accepts randomUUID and rejects junk', () => {
    expect(Uuid.safeParse(crypto.randomUUID()).success).toBe(true);
    expect(Uuid.safeParse('not-a-uuid').success).toBe(false);
  });
  it('IsoDateTime accepts Z and offsets, rejects dates without time', () => {
    expect(IsoDateTime.safeParse('2025-01-31T12:00:00.000Z').success).toBe(true);
    expect(IsoDateTime.safeParse('2025-01-31T12:00:00+02:00').success).toBe(true);
    expect(IsoDateTime.safeParse('2025-01-31').success).toBe(false);
  });
  it('JsonObject rejects arrays', () => {
    expect(JsonObject.safeParse({ a: 1 }).success).toBe(true);
    expect(JsonObject.safeParse([1]).success).toBe(false);
  });
  it('Cursor rejects empty strings', () => {
    expect(Cursor.safeParse('').success).toBe(false);
  });
});

describe('ListQuery', () => {
  it('defaults limit to 50 and coerces strings', () => {
    expect(parseInput(ListQuery, {}, 'query')).toEqual({ limit: 50 });
    expect(parseInput(ListQuery, { limit: '10', cursor: 'abc' }, 'query')).toEqual({ limit: 10, cursor: 'abc' });
  });
  it('rejects out-of-range limit and unknown params', () => {
    expect(issuesOf(() => parseInput(ListQuery, { limit: '500' }, 'query')).map((i) => i.path)).toEqual(['limit']);
    expect(issuesOf(() => parseInput(ListQuery, { limit: '0' }, 'query')).map((i) => i.path)).toEqual(['limit']);
    expect(issuesOf(() => parseInput(ListQuery, { limit: '2.5' }, 'query')).map((i) => i.path)).toEqual(['limit']);
    expect(issuesOf(() => parseInput(ListQuery, { page: '2' }, 'query'))).toEqual([{ path: 'page', message: 'unknown field' }]);
  });
});

describe('listResponse', () => {
  it('wraps items with next_cursor', () => {
    const S = listResponse(z.object({ id: z.string() }));
    expect(S.parse({ items: [{ id: 'a' }], next_cursor: null })).toEqual({ items: [{ id: 'a' }], next_cursor: null });
    expect(S.safeParse({ items: [] }).success).toBe(false);
  });
});

describe('acceptAliases', () => {
  const S = acceptAliases(z.strictObject({ app_url: z.string().optional(), name: z.string() }), { url: 'app_url' });
  it('renames the alias to the canonical key', () => {
    expect(S.parse({ name: 'n', url: 'u' })).toEqual({ name: 'n', app_url: 'u' });
  });
  it('accepts the canonical key as is', () => {
    expect(S.parse({ name: 'n', app_url: 'u' })).toEqual({ name: 'n', app_url: 'u' });
  });
  it('tolerates both with the same value', () => {
    expect(S.parse({ name: 'n', url: 'u', app_url: 'u' })).toEqual({ name: 'n', app_url: 'u' });
  });
  it('rejects both with different values at the alias path', () => {
    expect(issuesOf(() => parseInput(S, { name: 'n', url: 'a', app_url: 'b' }))).toEqual([
      { path: 'url', message: 'use only one of url, app_url' },
    ]);
  });
  it('passes non-objects through to the inner schema', () => {
    expect(issuesOf(() => parseInput(S, 'x'))[0]?.path).toBe('');
  });
  it('records its aliases for documentation', () => {
    expect(aliasesOf(S)).toEqual({ url: 'app_url' });
  });
});
