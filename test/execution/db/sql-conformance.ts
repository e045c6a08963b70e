import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { DbAssertion } from '../../../packages/core/src/contracts/steps.ts';
import { StepFailure, type SqlDriver, type SqlResult, type StepContext } from '../../../packages/core/src/execution/types.ts';
import { checkDbAssertion } from '../../../packages/core/src/execution/db/check-db-assertion.ts';
import { saveVariables, dbSaveSource } from '../../../packages/core/src/execution/save-variables.ts';
import { createSqlDriver } from '../../../packages/functions/src/execution/sql/sql-driver.ts';

/**
 * One conformance suite for the SQL port, run against every engine (CONVENTIONS 8):
 * real statements on the real PostgreSQL and MariaDB of this machine, in a table with a
 * unique name that the suite creates and drops.
 */
export interface Engine {
  driver: 'postgres' | 'mysql';
  /** URL of the test database. */
  url: string;
  /** The n-th positional placeholder (1-based). */
  p(n: number): string;
  /** Creates a fresh namespace; returns the qualified table name to use. */
  setup(run: (sql: string) => Promise<SqlResult>, unique: string): Promise<string>;
  teardown(run: (sql: string) => Promise<SqlResult>, unique: string): Promise<void>;
  /** DDL for the items table. */
  createTable(table: string): string;
  /** A statement that sleeps `seconds`, tagged with a marker comment. */
  sleep(seconds: number, marker: string): string;
  /** Counts running statements containing the marker (without containing it itself). */
  running(marker: string): string;
  /** What a boolean column returns for true. */
  trueValue: unknown;
  /** Selects `dec` = 12345678901234567890.1234567890 as DECIMAL(40,10), `big` = 9007199254740993 as a 64-bit integer, `price` = 12.50 as DECIMAL(10,2). */
  exactNumbers: string;
  syntaxError: { statement: string; message: string | RegExp; code: unknown };
}

export const ctx = (ms = 10_000, signal?: AbortSignal): StepContext => ({ signal: signal ?? new AbortController().signal, deadline: Date.now() + ms, log: () => {} });

export const unique = () => `svc_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;

export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function failure(p: Promise<unknown> | (() => unknown)): Promise<StepFailure> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    expect(err).toBeInstanceOf(StepFailure);
    return err as StepFailure;
  }
  throw new Error('expected a StepFailure, the call succeeded');
}

const assertOn = (assertion: Record<string, unknown>, result: SqlResult | undefined) => checkDbAssertion(DbAssertion.parse(assertion), result);

export function sqlDriverConformance(engine: Engine) {
  describe(`SqlDriver conformance: ${engine.driver}`, () => {
    const driver: SqlDriver = createSqlDriver();
    const connection = { driver: engine.driver, url: engine.url };
    const run = (sql: string, params?: Array<string | number | boolean | null>, c: StepContext = ctx()) => driver.query(connection, sql, params, c);
    const ns = unique();
    let table = '';

    beforeAll(async () => {
      table = await engine.setup((sql) => run(sql), ns);
      await run(engine.createTable(table));
    });
    afterAll(async () => {
      try {
        await engine.teardown((sql) => run(sql), ns);
      } finally {
        await driver.close();
      }
    });

    const { p } = engine;

    it('decimals and big integers compare exactly, digit for digit; a JSON number beyond 2^53 is said to be inexact', async () => {
      const res = await run(engine.exactNumbers);
      const cell = (a: Record<string, unknown>) => assertOn({ type: 'cell', ...a }, res);
      cell({ column: 'dec', equals: '12345678901234567890.123456789' });
      cell({ column: 'big', equals: '9007199254740993' });
      cell({ column: 'price', equals: 12.5 });
      cell({ column: 'price', equals: '12.500' });
      expect((await failure(() => cell({ column: 'dec', equals: '12345678901234567890.1234567891' }))).message).toMatch(/^row 0, column "dec": expected "12345678901234567890\.1234567891", got /);
      expect((await failure(() => cell({ column: 'price', equals: 12.51 }))).message).toMatch(/expected 12\.51, got /);
      const big = await failure(() => cell({ column: 'big', equals: 9007199254740992 }));
      expect(big.message).toContain('(a JSON number beyond 2^53 is not exact: write it as a string, "9007199254740993")');
    });

    it('text columns compare as text, never as numbers: a ZIP code 00501 is not 501 (a false pass found by QA)', async () => {
      const res = await run(`SELECT CONCAT('00', '501') AS zip, CONCAT('1.1', '0') AS version, CONCAT('', '1') AS one, CONCAT('', '501') AS plain, 501 AS num`);
      expect(res.text_columns).toEqual(['zip', 'version', 'one', 'plain']);
      const cell = (a: Record<string, unknown>) => assertOn({ type: 'cell', ...a }, res);
      cell({ column: 'zip', equals: '00501' });
      cell({ column: 'version', equals: '1.10' });
      cell({ column: 'plain', equals: 501 }); // a number is its own spelling
      cell({ column: 'num', equals: '501' }); // a number column is still lenient
      for (const [column, equals, message] of [
        ['zip', '501', 'row 0, column "zip": expected "501", got "00501"'],
        ['version', '1.1', 'row 0, column "version": expected "1.1", got "1.10"'],
        ['zip', 501, 'row 0, column "zip": expected 501, got "00501"'],
        ['one', true, 'row 0, column "one": expected true, got "1"'],
      ] as const) {
        const f = await failure(() => cell({ column, equals }));
        expect({ kind: f.kind, message: f.message }).toEqual({ kind: 'assertion', message });
      }
    });

    it('two columns of one name are ambiguous: a check of either fails naming them (a row keeps only the last)', async () => {
      const res = await run('SELECT 1 AS id, 2 AS id, 3 AS other');
      const f = await failure(() => assertOn({ type: 'cell', column: 'id', equals: 2 }, res));
      expect({ kind: f.kind, message: f.message }).toEqual({ kind: 'configuration', message: 'column "id" is ambiguous: the result has 2 columns named "id", "id"; name them apart in the SQL (… AS other_name)' });
      assertOn({ type: 'cell', column: 'other', equals: 3 }, res);
    });

    it('inserts with positional params; row_count is the rows affected', async () => {
      const res = await run(`INSERT INTO ${table} (name, price, qty, born, note, active) VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}), (${p(7)}, ${p(8)}, ${p(9)}, ${p(10)}, ${p(11)}, ${p(12)}), (${p(13)}, ${p(14)}, ${p(15)}, ${p(16)}, ${p(17)}, ${p(18)})`, [
        'Ada', '9.99', 42, '1990-05-17', null, true,
        'Grace', '120.50', '9007199254740993', '1906-12-09', 'admiral', true,
        "Linus O'Neil", '0.00', 0, '1969-12-28', 'quote \' and "double"', false,
      ]);
      expect(res).toEqual({ rows: [], columns: [], row_count: 3 });
    });

    it('selects rows as plain JSON-safe objects with the columns in order', async () => {
      const res = await run(`SELECT id, name, price, qty, born, note, active FROM ${table} ORDER BY id`);
      expect(res.columns).toEqual(['id', 'name', 'price', 'qty', 'born', 'note', 'active']);
      expect(res.row_count).toBe(3);
      expect(res.rows.map((r) => Object.getPrototypeOf(r))).toEqual([Object.prototype, Object.prototype, Object.prototype]);
      expect(res.rows[0]).toMatchObject({ name: 'Ada', price: '9.99', qty: '42', born: '1990-05-17', note: null, active: engine.trueValue });
      // bigint beyond 2^53 survives exactly, as text
      expect(res.rows[1].qty).toBe('9007199254740993');
      expect(res.rows[2]).toMatchObject({ name: "Linus O'Neil", note: 'quote \' and "double"' });
      expect(JSON.parse(JSON.stringify(res.rows))).toEqual(res.rows);
    });

    it('parametrised selects bind strings, numbers, booleans and null safely', async () => {
      const byName = await run(`SELECT name FROM ${table} WHERE name = ${p(1)}`, ["Linus O'Neil"]);
      expect(byName.rows).toEqual([{ name: "Linus O'Neil" }]);
      const injection = await run(`SELECT name FROM ${table} WHERE name = ${p(1)}`, ["x' OR '1'='1"]);
      expect(injection.row_count).toBe(0);
      const byFlag = await run(`SELECT name FROM ${table} WHERE active = ${p(1)} AND qty > ${p(2)} ORDER BY id`, [true, 1]);
      expect(byFlag.rows.map((r) => r.name)).toEqual(['Ada', 'Grace']);
      const nulls = await run(`SELECT count(*) AS n FROM ${table} WHERE note IS NULL OR note = ${p(1)}`, [null]);
      expect(Number(nulls.rows[0].n)).toBe(1);
    });

    it('row_count and cell assertions pass, with numeric, boolean and date coercion', async () => {
      const res = await run(`SELECT id, name, price, qty, born, note, active FROM ${table} ORDER BY id`);
      assertOn({ type: 'row_count', equals: 3 }, res);
      assertOn({ type: 'row_count', min: 1, max: 3 }, res);
      assertOn({ type: 'cell', column: 'name', equals: 'Ada' }, res);
      assertOn({ type: 'cell', column: 'price', equals: 9.99 }, res);
      assertOn({ type: 'cell', column: 'price', equals: '9.990' }, res);
      assertOn({ type: 'cell', row: 1, column: 'price', equals: 120.5 }, res);
      assertOn({ type: 'cell', column: 'qty', equals: 42 }, res);
      assertOn({ type: 'cell', row: 1, column: 'qty', equals: '9007199254740993' }, res);
      assertOn({ type: 'cell', column: 'born', equals: '1990-05-17' }, res);
      assertOn({ type: 'cell', column: 'active', equals: true }, res);
      assertOn({ type: 'cell', row: 2, column: 'active', equals: false }, res);
      assertOn({ type: 'cell', column: 'note', is_null: true }, res);
      assertOn({ type: 'cell', column: 'note', equals: null }, res);
      assertOn({ type: 'cell', row: 1, column: 'note', is_null: false }, res);
      assertOn({ type: 'cell', row: 2, column: 'name', matches: "^Linus O'" }, res);
      assertOn({ type: 'cell', column: 'NAME', equals: 'Ada' }, res);
      const count = await run(`SELECT count(*) AS total FROM ${table}`);
      assertOn({ type: 'cell', column: 'total', equals: 3 }, count);
    });

    it('row_count and cell assertions fail with expected vs actual', async () => {
      const res = await run(`SELECT id, name, price, qty, born, note, active FROM ${table} ORDER BY id`);
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ type: 'row_count', equals: 2 }, 'expected 2 rows, got 3'],
        [{ type: 'row_count', min: 4 }, 'expected at least 4 rows, got 3'],
        [{ type: 'row_count', max: 1 }, 'expected at most 1 row, got 3'],
        [{ type: 'cell', column: 'name', equals: 'Bob' }, 'row 0, column "name": expected "Bob", got "Ada"'],
        [{ type: 'cell', column: 'price', equals: 10 }, 'row 0, column "price": expected 10, got "9.99"'],
        [{ type: 'cell', column: 'qty', equals: '43' }, 'row 0, column "qty": expected "43", got "42"'],
        [{ type: 'cell', column: 'born', equals: '1990-05-18' }, 'row 0, column "born": expected "1990-05-18", got "1990-05-17"'],
        [{ type: 'cell', column: 'note', is_null: false }, 'row 0, column "note": expected a value, got NULL'],
        [{ type: 'cell', column: 'name', is_null: true }, 'row 0, column "name": expected NULL, got "Ada"'],
        [{ type: 'cell', column: 'note', equals: 'x' }, 'row 0, column "note": expected "x", got NULL'],
        [{ type: 'cell', column: 'name', matches: '^G' }, 'row 0, column "name": expected "Ada" to match /^G/'],
        [{ type: 'cell', column: 'nmae', equals: 'Ada' }, 'column "nmae" is not in the result; columns: id, name, price, qty, born, note, active'],
        [{ type: 'cell', row: 5, column: 'name', equals: 'Ada' }, 'row 5 does not exist: the result has 3 rows'],
      ];
      for (const [assertion, message] of cases) {
        const f = await failure(() => assertOn(assertion, res));
        expect({ kind: f.kind, message: f.message }).toEqual({ kind: 'assertion', message });
      }
      const none = await failure(() => assertOn({ type: 'row_count', equals: 0 }, undefined));
      expect({ kind: none.kind, message: none.message }).toEqual({ kind: 'configuration', message: 'no query before this assertion' });
    });

    it('saves variables from rows and row_count', async () => {
      const res = await run(`SELECT id, name FROM ${table} ORDER BY id`);
      const vars = saveVariables({ first_id: '$.rows[0].id', last_name: '$.rows[-1].name', names: '$.rows[*].name', n: '$.row_count' }, dbSaveSource(res));
      expect(vars).toEqual({ first_id: res.rows[0].id, last_name: "Linus O'Neil", names: ['Ada', 'Grace', "Linus O'Neil"], n: 3 });
      const f = await failure(() => saveVariables({ id: '$.rows[3].id' }, dbSaveSource(res)));
      expect({ kind: f.kind, message: f.message }).toEqual({ kind: 'assertion', message: 'save "id": $.rows[3].id not found' });
    });

    it('update and delete report the rows affected', async () => {
      const upd = await run(`UPDATE ${table} SET note = ${p(1)} WHERE active = ${p(2)}`, ['checked', true]);
      expect(upd.row_count).toBe(2);
      assertOn({ type: 'row_count', equals: 2 }, upd);
      const del = await run(`DELETE FROM ${table} WHERE name = ${p(1)}`, ['nobody']);
      expect(del).toEqual({ rows: [], columns: [], row_count: 0 });
    });

    it('bad SQL is a database failure carrying the error code', async () => {
      const f = await failure(run(engine.syntaxError.statement));
      expect(f.kind).toBe('database');
      expect(f.message).toMatch(engine.syntaxError.message);
      expect((f.details as { code: unknown }).code).toEqual(engine.syntaxError.code);
      // the connection is still good
      expect((await run('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }]);
    });

    it('a refused connection is a database failure naming host and port, never the password', async () => {
      const port = await closedPort();
      const url = `${engine.driver}://svc_user:S3cret%2Fpw@127.0.0.1:${port}/test`;
      const f = await failure(driver.query({ driver: engine.driver, url }, 'SELECT 1', [], ctx()));
      expect(f.kind).toBe('database');
      expect(f.message).toBe(`could not connect to ${engine.driver} at 127.0.0.1:${port}: ECONNREFUSED`);
      const everything = JSON.stringify({ message: f.message, details: f.details, stack: f.stack });
      expect(everything).not.toMatch(/S3cret/);
      expect((f.details as { url: string }).url).toBe(`${engine.driver}://svc_user:***@127.0.0.1:${port}/test`);
    });

    it('a statement past the deadline → timeout, cancelled on the server, connections reusable', async () => {
      const marker = `svc_sleep_${unique()}`;
      const started = Date.now();
      const f = await failure(run(engine.sleep(5, marker), [], ctx(500)));
      expect(f.kind).toBe('timeout');
      expect(f.message).toMatch(/^SQL statement did not finish within \d+ ms \(the step deadline\)/);
      expect(Date.now() - started).toBeLessThan(2_000);
      await expect.poll(async () => Number((await run(engine.running(marker))).rows[0].n), { timeout: 4_000, interval: 100 }).toBe(0);
      expect((await run('SELECT 2 AS ok')).rows).toEqual([{ ok: 2 }]);
    });

    it('the caller aborting → cancelled, and the statement stops on the server', async () => {
      const marker = `svc_sleep_${unique()}`;
      const controller = new AbortController();
      const sleeping = failure(run(engine.sleep(5, marker), [], ctx(10_000, controller.signal)));
      // the probe sees the statement running …
      await expect.poll(async () => Number((await run(engine.running(marker))).rows[0].n), { timeout: 3_000, interval: 50 }).toBe(1);
      controller.abort();
      const f = await sleeping;
      expect(f.kind).toBe('cancelled');
      expect(f.message).toBe('SQL statement was cancelled');
      // … and no longer once cancelled
      await expect.poll(async () => Number((await run(engine.running(marker))).rows[0].n), { timeout: 4_000, interval: 100 }).toBe(0);
    });

    it('a deadline already passed fails at once', async () => {
      const f = await failure(driver.query(connection, 'SELECT 1', [], { ...ctx(), deadline: Date.now() - 1 }));
      expect(f.kind).toBe('timeout');
    });

    it('queues concurrent statements on a small pool', async () => {
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => run(`SELECT ${p(1)} AS i, count(*) AS n FROM ${table}`, [String(i)])));
      expect(results.map((r) => String(r.rows[0].i))).toEqual(Array.from({ length: 12 }, (_, i) => String(i)));
    });
  });
}
