import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { DbAssertion } from '../../../packages/core/src/contracts/steps.ts';
import { checkDbAssertion } from '../../../packages/core/src/execution/db/check-db-assertion.ts';
import { createSqlDriver } from '../../../packages/functions/src/execution/sql/sql-driver.ts';
import { sqlDriverConformance, ctx, failure, unique } from './sql-conformance.ts';

/** The real MariaDB on this machine (root, no password), through the mysql driver. */
const URL_ = 'mysql://root@127.0.0.1:3306/test';

sqlDriverConformance({
  driver: 'mysql',
  url: URL_,
  p: () => '?',
  setup: async (_run, ns) => `test.${ns}_items`,
  teardown: async (run, ns) => {
    await run(`DROP TABLE IF EXISTS test.${ns}_items`);
  },
  createTable: (t) => `CREATE TABLE ${t} (id int AUTO_INCREMENT PRIMARY KEY, name varchar(200) NOT NULL, price decimal(10,2), qty bigint, born date, note text, active boolean)`,
  sleep: (s, marker) => `SELECT SLEEP(${s}) AS ${marker}`,
  running: (marker) => `SELECT count(*) AS n FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND COMMAND = 'Query' AND INFO LIKE CONCAT('%', '${marker}', '%')`,
  trueValue: 1,
  exactNumbers: "SELECT CAST('12345678901234567890.1234567890' AS DECIMAL(40,10)) AS `dec`, CAST(9007199254740993 AS SIGNED) AS big, CAST(12.50 AS DECIMAL(10,2)) AS price",
  syntaxError: { statement: 'SELEC 1', message: /^SQL error 1064 ER_PARSE_ERROR \(SQLSTATE 42000\): You have an error in your SQL syntax; .* near 'SELEC 1' at line 1$/, code: 'ER_PARSE_ERROR' },
});

describe('mysql specifics', () => {
  const driver = createSqlDriver();
  const connection = { driver: 'mysql' as const, url: URL_ };
  const run = (sql: string, params?: Array<string | number | boolean | null>) => driver.query(connection, sql, params, ctx());
  const table = `test.${unique()}_events`;

  beforeAll(async () => {
    await run(`CREATE TABLE ${table} (id int PRIMARY KEY, at datetime(3), payload json, blob_col varbinary(16))`);
  });
  afterAll(async () => {
    try {
      await run(`DROP TABLE IF EXISTS ${table}`);
    } finally {
      await driver.close();
    }
  });

  it('DATETIME stays text; JSON and bytes compare sensibly', async () => {
    await run(`INSERT INTO ${table} VALUES (1, '2024-03-10 12:30:00.250', '{"a": [1, 2]}', UNHEX('DEADBEEF'))`);
    const res = await run(`SELECT at, payload, blob_col FROM ${table}`);
    expect(res.rows[0].at).toBe('2024-03-10 12:30:00.250');
    expect(res.rows[0].blob_col).toBe('\\xdeadbeef');
    const cell = (a: Record<string, unknown>) => checkDbAssertion(DbAssertion.parse({ type: 'cell', ...a }), res);
    cell({ column: 'at', equals: '2024-03-10T12:30:00.25' });
    cell({ column: 'payload', equals: { a: [1, 2] } });
    cell({ column: 'blob_col', equals: '\\xdeadbeef' });
    const f = await failure(() => cell({ column: 'at', equals: '2024-03-10 12:30:01' }));
    expect(f.message).toBe('row 0, column "at": expected "2024-03-10 12:30:01", got "2024-03-10 12:30:00.250"');
  });

  it('BIT columns read as the number they hold: a BIT(1) flag equals true and 1 (it read as "\\x01" and failed both; found by QA)', async () => {
    const bits = `test.${unique()}_bits`;
    await run(`CREATE TABLE ${bits} (id int PRIMARY KEY, flag bit(1), mask bit(12), wide bit(64))`);
    try {
      await run(`INSERT INTO ${bits} VALUES (1, b'1', b'101000000001', b'1111111111111111111111111111111111111111111111111111111111111111'), (2, b'0', NULL, b'101')`);
      const res = await run(`SELECT flag, mask, wide FROM ${bits} ORDER BY id`);
      expect(res.rows).toEqual([
        { flag: 1, mask: 2561, wide: '18446744073709551615' },
        { flag: 0, mask: null, wide: 5 },
      ]);
      const cell = (a: Record<string, unknown>) => checkDbAssertion(DbAssertion.parse({ type: 'cell', ...a }), res);
      cell({ column: 'flag', equals: true });
      cell({ column: 'flag', equals: 1 });
      cell({ row: 1, column: 'flag', equals: false });
      cell({ row: 1, column: 'mask', is_null: true });
      cell({ column: 'wide', equals: '18446744073709551615' });
      const f = await failure(() => cell({ row: 1, column: 'flag', equals: true }));
      expect(f.message).toBe('row 1, column "flag": expected true, got 0');
    } finally {
      await run(`DROP TABLE IF EXISTS ${bits}`);
    }
  });

  it('errors carry errno, code and SQLSTATE', async () => {
    const missing = await failure(run(`SELECT * FROM test.svc_no_such_table_x`));
    expect(missing.kind).toBe('database');
    expect(missing.message).toBe("SQL error 1146 ER_NO_SUCH_TABLE (SQLSTATE 42S02): Table 'test.svc_no_such_table_x' doesn't exist");
    const dup = await failure(run(`INSERT INTO ${table} (id) VALUES (1)`));
    expect(dup.message).toBe("SQL error 1062 ER_DUP_ENTRY (SQLSTATE 23000): Duplicate entry '1' for key 'PRIMARY'");
  });

  it('one statement per step: several statements are refused', async () => {
    const f = await failure(run('SELECT 1; SELECT 2'));
    expect(f.kind).toBe('database');
    expect(f.message).toMatch(/^SQL error 1064 ER_PARSE_ERROR/);
  });

  it('a wrong password is a connection failure that does not show the password', async () => {
    const f = await failure(driver.query({ driver: 'mysql', url: 'mysql://root:Wr0ng-Pass@127.0.0.1:3306/test' }, 'SELECT 1', [], ctx()));
    expect(f.kind).toBe('database');
    expect(f.message).toMatch(/^could not connect to mysql at 127\.0\.0\.1:3306: ER_ACCESS_DENIED_ERROR Access denied for user 'root'@'[^']+' \(using password: YES\)$/);
    expect(JSON.stringify({ m: f.message, d: f.details })).not.toContain('Wr0ng-Pass');
    expect((f.details as { url: string }).url).toBe('mysql://root:***@127.0.0.1:3306/test');
  });

  it('an unknown database is a connection failure with the server code', async () => {
    const f = await failure(driver.query({ driver: 'mysql', url: 'mysql://root@127.0.0.1:3306/svc_no_such_db' }, 'SELECT 1', [], ctx()));
    expect(f.kind).toBe('database');
    expect(f.message).toBe("could not connect to mysql at 127.0.0.1:3306: ER_BAD_DB_ERROR Unknown database 'svc_no_such_db'");
  });
});
