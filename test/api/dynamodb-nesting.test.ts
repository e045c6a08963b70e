/**
 * A value deeper than DynamoDB stores (32 levels) but within the API's own nesting limit
 * (64): DynamoDB refuses the write, and the API answers 400 JSON_TOO_DEEP rather than 500
 * (nothing was stored). Real DynamoDB Local, a real Hono app with svc's error handler.
 */
import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { handleError } from '../../packages/functions/src/api/errors.ts';
import { useDynamoDbLocal } from '../support/dynamodb-local.ts';

const ddb = useDynamoDbLocal('nesting');

const nested = (levels: number): unknown => (levels === 0 ? 1 : { a: nested(levels - 1) });

describe('a value DynamoDB cannot nest', () => {
  it('is a 400 JSON_TOO_DEEP, and nothing is stored', async () => {
    const table = await ddb.freshTable();
    const logged: unknown[] = [];
    const app = new Hono();
    app.onError(handleError({ error: (...a: unknown[]) => logged.push(a), warn: () => {}, info: () => {}, debug: () => {} } as never));
    app.post('/deep/:levels', async (c) => {
      await table.put({ pk: 'p', sk: c.req.param('levels'), value: nested(Number(c.req.param('levels'))) });
      return c.json({ ok: true }, 201);
    });
    expect((await app.request('/deep/20', { method: 'POST' })).status).toBe(201);
    const res = await app.request('/deep/40', { method: 'POST' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code: 'JSON_TOO_DEEP', message: "the value nests objects and arrays deeper than the database stores (32 levels, DynamoDB's limit)", details: { max_depth: 32 } } });
    expect(await table.get({ pk: 'p', sk: '40' })).toBeUndefined();
    expect(logged).toEqual([]);
  }, 120_000);
});
