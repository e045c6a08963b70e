import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { DbAssertion } from '../../../packages/core/src/contracts/steps.ts';
import { checkDbAssertion } from '../../../packages/core/src/execution/db/check-db-assertion.ts';
import { createSqlDriver } from '../../../packages/functions/src/execution/sql/sql-driver.ts';
import { sqlDriverConformance, ctx, failure, unique } from './sql-conformance.ts';

/** The real PostgreSQL on this machine (trust auth). */
const URL_ = 'postgres://postgres@127.0.0.1:5432/test';

sqlDriverConformance({
  driver: 'postgres',
  url: URL_,
  p: (n) => `$${n}`,
  setup: async (run, ns) => {
    await run(`CREATE SCHEMA ${ns}`);
    return `${ns}.items`;
  },
  teardown: async (run, ns) => {
    await run(`DROP SCHEMA IF EXISTS ${ns} CASCADE`);
  },
  createTable: (t) => `CREATE TABLE ${t} (id serial PRIMARY KEY, name text NOT NULL, price numeric(10,2), qty bigint, born date, note text, active boolean)`,
  sleep: (s, marker) => `SELECT pg_sleep(${s}) AS ${marker}`,
  running: (marker) => `SELECT count(*) AS n FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND query LIKE '%' || '${marker}' || '%'`,
  trueValue: true,
  exactNumbers: "SELECT 12345678901234567890.1234567890::numeric(40,10) AS dec, 9007199254740993::bigint AS big, 12.50::numeric(10,2) AS price",
  syntaxError: { statement: 'SELEC 1', message: /^SQL error 42601: syntax error at or near "SELEC"$/, code: '42601' },
});

describe('postgres specifics', () => {
  const driver = createSqlDriver();
  const connection = { driver: 'postgres' as const, url: URL_ };
  const run = (sql: string, params?: Array<string | number | boolean | null>) => driver.query(connection, sql, params, ctx());
  const ns = unique();

  beforeAll(async () => {
    await run(`CREATE SCHEMA ${ns}`);
    await run(`CREATE TABLE ${ns}.events (id int PRIMARY KEY, at timestamptz, local_at timestamp, payload jsonb, blob bytea, tags text[])`);
  });
  afterAll(async () => {
    try {
      await run(`DROP SCHEMA IF EXISTS ${ns} CASCADE`);
    } finally {
      await driver.close();
    }
  });

  it('timestamptz is an ISO instant, timestamp stays text, jsonb is parsed, bytea is hex, arrays are arrays', async () => {
    await run(`INSERT INTO ${ns}.events VALUES (1, '2024-03-10 12:30:00+02', '2024-03-10 12:30:00', '{"a": [1, 2], "b": null}', '\\xdeadbeef', ARRAY['x', 'y'])`);
    const res = await run(`SELECT at, local_at, payload, blob, tags FROM ${ns}.events`);
    expect(res.rows[0]).toEqual({ at: '2024-03-10T10:30:00.000Z', local_at: '2024-03-10 12:30:00', payload: { a: [1, 2], b: null }, blob: '\\xdeadbeef', tags: ['x', 'y'] });
    const cell = (a: Record<string, unknown>) => checkDbAssertion(DbAssertion.parse({ type: 'cell', ...a }), res);
    cell({ column: 'at', equals: '2024-03-10T12:30:00+02:00' });
    cell({ column: 'at', equals: '2024-03-10T10:30:00Z' });
    cell({ column: 'local_at', equals: '2024-03-10T12:30:00' });
    cell({ column: 'payload', equals: { b: null, a: [1, 2] } });
    cell({ column: 'tags', equals: ['x', 'y'] });
    cell({ column: 'blob', matches: '^\\\\xdead' });
    const f = await failure(() => cell({ column: 'at', equals: '2024-03-10T12:30:00Z' }));
    expect(f.message).toBe('row 0, column "at": expected "2024-03-10T12:30:00Z", got "2024-03-10T10:30:00.000Z"');
  });

  it('errors name the code, the place and the detail', async () => {
    const missing = await failure(run(`SELECT * FROM ${ns}.nope`));
    expect(missing.kind).toBe('database');
    expect(missing.message).toBe(`SQL error 42P01 at or near "${ns}.nope": relation "${ns}.nope" does not exist`);
    const dup = await failure(run(`INSERT INTO ${ns}.events (id) VALUES (1)`));
    expect(dup.message).toBe('SQL error 23505: duplicate key value violates unique constraint "events_pkey" — DETAIL: Key (id)=(1) already exists.');
    const type = await failure(run(`SELECT $1::int AS n`, ['abc']));
    expect(type.message).toBe('SQL error 22P02: invalid input syntax for type integer: "abc"');
  });

  it('several statements without params run; the last result is reported', async () => {
    const res = await run(`INSERT INTO ${ns}.events (id) VALUES (2); SELECT count(*) AS n FROM ${ns}.events`);
    expect(res.rows).toEqual([{ n: '2' }]);
    const withParams = await failure(run(`SELECT $1 AS a; SELECT 2`, ['x']));
    expect(withParams.message).toMatch(/^SQL error 42601: cannot insert multiple commands into a prepared statement/);
  });

  it('DDL reports 0 rows and no columns', async () => {
    expect(await run(`CREATE TABLE ${ns}.tmp (a int)`)).toEqual({ rows: [], columns: [], row_count: 0 });
  });

  it('an unknown database is a connection failure with the server code', async () => {
    const f = await failure(driver.query({ driver: 'postgres', url: 'postgres://postgres:pw-not-shown@127.0.0.1:5432/svc_no_such_db' }, 'SELECT 1', [], ctx()));
    expect(f.kind).toBe('database');
    expect(f.message).toBe('could not connect to postgres at 127.0.0.1:5432: 3D000 database "svc_no_such_db" does not exist');
    expect(JSON.stringify(f.details)).not.toContain('pw-not-shown');
  });

  it('malformed URLs are configuration failures that do not echo the URL', async () => {
    const f = await failure(driver.query({ driver: 'postgres', url: 'not a url with secret' }, 'SELECT 1', [], ctx()));
    expect(f.kind).toBe('configuration');
    expect(f.message).toBe('the postgres connection URL is not a valid URL (expected postgres://user:password@host:port/database)');
    const g = await failure(driver.query({ driver: 'postgres', url: 'mysql://u:secret@h/db' }, 'SELECT 1', [], ctx()));
    expect(g.message).toBe('a postgres connection URL starts with postgres: or postgresql://, got mysql://u:***@h/db');
  });
});
