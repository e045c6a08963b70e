import pg from 'pg';
import mysql from 'mysql2/promise';
import { StepFailure, type SqlDriver, type SqlResult, type StepContext } from '@svc/core/execution/types';
import type { DbQueryStep } from '@svc/core/contracts/steps';
import { redactConnectionUrl, scrubber, type Scrub } from './redact.ts';
import { normaliseRows } from './rows.ts';
import { raceAbort } from '../../shared/race-abort.ts';

/**
 * The SQL port over `pg` (PostgreSQL) and `mysql2` (MySQL / MariaDB).
 *
 * - One small pool per distinct connection URL (max 4 connections), all closed by close().
 * - One statement per step. Each step runs on a pooled connection, so session state
 *   (SET, temporary tables) must not be relied on across steps. Postgres accepts several
 *   statements in one step when there are no params and reports the last result; MySQL
 *   runs with multipleStatements off.
 * - Params are positional: $1, $2 … for postgres, ? for mysql (escaped by the client).
 * - The step deadline bounds acquiring a connection and running the statement. Postgres
 *   also gets statement_timeout; MySQL gets mysql2's per-query timeout. On the deadline
 *   or ctx.signal the running statement is cancelled on the server (pg_cancel_backend /
 *   KILL QUERY) and the connection discarded.
 * - Rows are plain JSON-safe objects: DATE and zone-less TIMESTAMP/DATETIME stay the text
 *   the database prints, timestamptz becomes an ISO string, bigint and numeric/decimal are
 *   strings (exact), bytes are \x… hex, MySQL BIT(n) a number. `text_columns` names the text columns, whose cells
 *   compare as text (a ZIP code '00501' is not the number 501).
 * - Failures: StepFailure 'database' (cannot connect, SQL errors with the database's error
 *   code), 'timeout', 'cancelled', 'configuration' (malformed URL). The password never
 *   appears in a message.
 */
export interface SqlDriverOptions {
  /** Connections per URL (default 4). */
  maxConnections?: number;
  /** Upper bound on establishing a connection, below the step deadline (default 10 s). */
  connectTimeoutMs?: number;
  /** Idle pooled connections are closed after this (default 30 s). */
  idleTimeoutMs?: number;
}

type Connection = { driver: DbQueryStep['connection']['driver']; url: string };
type Params = DbQueryStep['params'];

interface Backend {
  run(statement: string, params: Params, ctx: StepContext): Promise<SqlResult>;
  end(): Promise<void>;
}

interface Target {
  url: URL;
  /** host:port, for messages */
  where: string;
  scrub: Scrub;
}

class Aborted extends Error {}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return raceAbort(promise, signal, () => new Aborted());
}

/** The step's budget as a signal: fires on ctx.signal or when the deadline passes. */
function budget(ctx: StepContext, what: string): { signal: AbortSignal; ms: number; failure(): StepFailure } {
  if (ctx.signal.aborted) throw new StepFailure('cancelled', `${what} was cancelled`);
  const ms = Math.floor(ctx.deadline - Date.now());
  if (ms <= 0) throw new StepFailure('timeout', `${what}: no time left before the step deadline`);
  const timeout = AbortSignal.timeout(ms);
  return {
    signal: AbortSignal.any([ctx.signal, timeout]),
    ms,
    failure: () =>
      ctx.signal.aborted ? new StepFailure('cancelled', `${what} was cancelled`) : new StepFailure('timeout', `${what} did not finish within ${ms} ms (the step deadline)`, { timeout_ms: ms }),
  };
}

const errorCode = (err: unknown): string | undefined => {
  for (let e = err as { code?: unknown; errors?: unknown[] } | undefined, depth = 0; e && depth < 3; depth++) {
    if (typeof e.code === 'string' && e.code) return e.code;
    e = Array.isArray(e.errors) ? (e.errors[0] as typeof e) : undefined;
  }
  return undefined;
};

const errorMessage = (err: unknown): string => {
  const e = err as { message?: unknown; errors?: Array<{ message?: unknown }> };
  if (typeof e?.message === 'string' && e.message) return e.message;
  const inner = e?.errors?.[0]?.message;
  return typeof inner === 'string' ? inner : String(err);
};

function connectFailure(engine: string, target: Target, err: unknown): StepFailure {
  const code = errorCode(err);
  const message = errorMessage(err);
  const reason = code && message.includes(code) ? code : [code, message].filter(Boolean).join(' ');
  return new StepFailure('database', target.scrub(`could not connect to ${engine} at ${target.where}: ${reason}`), { code, url: redactConnectionUrl(target.url) });
}

function parseTarget(connection: Connection, defaultPort: number, protocols: string[]): Target {
  let url: URL;
  try {
    url = new URL(connection.url);
  } catch {
    throw new StepFailure('configuration', `the ${connection.driver} connection URL is not a valid URL (expected ${protocols[0]}//user:password@host:port/database)`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new StepFailure('configuration', `a ${connection.driver} connection URL starts with ${protocols.join(' or ')}//, got ${redactConnectionUrl(url)}`);
  }
  return { url, where: `${url.hostname || 'localhost'}:${url.port || defaultPort}`, scrub: scrubber(connection.url, url) };
}

// ---------------------------------------------------------------- postgres

// DATE and TIMESTAMP (without zone) stay the text Postgres prints: turning them into a
// JS Date would invent a time zone (the runner's). timestamptz is a real instant.
const PG_TEXT_TYPES = new Set([1082, 1114, 1083, 1266]); // date, timestamp, time, timetz
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    PG_TEXT_TYPES.has(oid) && format !== 'binary' ? (v: string) => v : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** Text types (text, varchar, char, name, "char"): their cells are compared as text, not as numbers. */
const PG_TEXT_OIDS = new Set([25, 1043, 1042, 19, 18]);

function pgNear(statement: string, position: unknown): string | undefined {
  const pos = Number(position);
  if (!Number.isInteger(pos) || pos < 1) return undefined;
  const token = /^[^\s,;()]+|^./.exec(statement.slice(pos - 1))?.[0];
  return token ? token.slice(0, 60) : undefined;
}

function pgSqlFailure(err: unknown, statement: string, scrub: Scrub): StepFailure {
  const e = err as { code?: string; message?: string; position?: string; detail?: string; hint?: string };
  const message = e.message ?? String(err);
  const near = message.includes('at or near') ? undefined : pgNear(statement, e.position);
  const extra = [e.detail && `DETAIL: ${e.detail}`, e.hint && `HINT: ${e.hint}`].filter(Boolean).join(' ');
  const text = `SQL error ${e.code ?? 'unknown'}${near ? ` at or near ${JSON.stringify(near)}` : ''}: ${message}${extra ? ` — ${extra}` : ''}`;
  return new StepFailure('database', scrub(text), { code: e.code, position: e.position ? Number(e.position) : undefined });
}

/** SQLSTATE is five characters; anything else (ECONNRESET, 'Connection terminated') is the connection failing. */
const isSqlState = (code: unknown) => typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);

function postgresBackend(connection: Connection, options: Required<SqlDriverOptions>, track: (p: Promise<unknown>) => void): Backend {
  const target = parseTarget(connection, 5432, ['postgres:', 'postgresql:']);
  const pool = new pg.Pool({
    connectionString: connection.url,
    max: options.maxConnections,
    idleTimeoutMillis: options.idleTimeoutMs,
    connectionTimeoutMillis: options.connectTimeoutMs,
    application_name: 'svc',
    types: pgTypes,
  });
  // An idle client losing its server (restart, network) must not crash the process.
  pool.on('error', () => {});

  const cancelBackend = (pid: number | undefined) => {
    if (!pid) return;
    const client = new pg.Client({ connectionString: connection.url, connectionTimeoutMillis: 5_000 });
    client.on('error', () => {});
    track(
      client
        .connect()
        .then(() => client.query('SELECT pg_cancel_backend($1)', [pid]))
        .catch(() => {})
        .finally(() => client.end().catch(() => {})),
    );
  };

  return {
    async run(statement, params, ctx) {
      const limit = budget(ctx, 'SQL statement');
      const pending = pool.connect();
      let client: pg.PoolClient;
      try {
        client = await abortable(pending, limit.signal);
      } catch (err) {
        if (err instanceof Aborted) {
          pending.then((c) => c.release(), () => {});
          throw limit.failure();
        }
        if (/timeout/i.test(errorMessage(err))) {
          throw new StepFailure('database', `could not connect to postgres at ${target.where}: timed out after ${options.connectTimeoutMs} ms`, { url: redactConnectionUrl(target.url) });
        }
        throw connectFailure('postgres', target, err);
      }
      let discard = false;
      try {
        const left = Math.max(1, Math.floor(ctx.deadline - Date.now()));
        await abortable(client.query(`SET statement_timeout = ${left}`), limit.signal);
        const res = await abortable(client.query({ text: statement, values: params && params.length > 0 ? params : undefined }), limit.signal);
        const last = (Array.isArray(res) ? res[res.length - 1] : res) as pg.QueryResult;
        const columns = (last.fields ?? []).map((f) => f.name);
        const rows = normaliseRows(last.rows ?? []);
        const text_columns = (last.fields ?? []).filter((f) => PG_TEXT_OIDS.has(f.dataTypeID)).map((f) => f.name);
        return { rows, columns, ...(text_columns.length && { text_columns }), row_count: columns.length > 0 ? rows.length : (last.rowCount ?? 0) };
      } catch (err) {
        if (err instanceof Aborted) {
          discard = true;
          cancelBackend((client as unknown as { processID?: number }).processID);
          throw limit.failure();
        }
        const code = (err as { code?: unknown }).code;
        if (code === '57014') {
          // query_canceled: our statement_timeout (or someone cancelled it)
          if (ctx.signal.aborted) throw new StepFailure('cancelled', 'SQL statement was cancelled');
          throw new StepFailure('timeout', `SQL statement did not finish within ${limit.ms} ms (the step deadline); the database cancelled it`, { timeout_ms: limit.ms });
        }
        if (!isSqlState(code)) {
          discard = true;
          throw new StepFailure('database', target.scrub(`lost the connection to postgres at ${target.where}: ${[errorCode(err), errorMessage(err)].filter(Boolean).join(' ')}`));
        }
        throw pgSqlFailure(err, statement, target.scrub);
      } finally {
        client.release(discard ? true : undefined);
      }
    },
    end: () => pool.end(),
  };
}

// ---------------------------------------------------------------- mysql / mariadb

function mysqlSqlFailure(err: unknown, scrub: Scrub): StepFailure {
  const e = err as { code?: string; errno?: number; sqlState?: string; sqlMessage?: string; message?: string };
  const codes = [e.errno, e.code].filter((x) => x !== undefined && x !== '').join(' ');
  const text = `SQL error ${codes || 'unknown'}${e.sqlState ? ` (SQLSTATE ${e.sqlState})` : ''}: ${e.sqlMessage ?? e.message ?? String(err)}`;
  return new StepFailure('database', scrub(text), { code: e.code, errno: e.errno, sqlState: e.sqlState });
}

// mysql2's column type codes: VARCHAR, VAR_STRING, STRING, ENUM, SET; TINY/MEDIUM/LONG BLOB
// and BLOB are TEXT when their character set is not binary (63).
const MYSQL_TEXT_TYPES = new Set([15, 253, 254, 247, 248]);
const MYSQL_BLOB_TYPES = new Set([249, 250, 251, 252]);
const MYSQL_BINARY_CHARSET = 63;

function isMysqlText(f: mysql.FieldPacket): boolean {
  const type = f.type ?? -1;
  if (f.characterSet === MYSQL_BINARY_CHARSET) return false;
  return MYSQL_TEXT_TYPES.has(type) || MYSQL_BLOB_TYPES.has(type);
}

/**
 * BIT(n) columns as the number they hold (BIT(1) → 0 or 1, so `equals: true` and
 * `equals: 1` both read a flag), beyond 2^53 as exact digits; mysql2 gives a Buffer, which
 * read as "\x01" and failed every check of a BIT(1) flag (found by QA). Everything else as mysql2 reads it.
 */
const bitsAsNumbers: mysql.TypeCast = (field, next) => {
  if (field.type !== 'BIT') return next();
  const bytes = field.buffer();
  if (bytes === null) return null;
  const value = bytes.reduce((n, b) => (n << 8n) | BigInt(b), 0n);
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
};

function mysqlBackend(connection: Connection, options: Required<SqlDriverOptions>, track: (p: Promise<unknown>) => void): Backend {
  const target = parseTarget(connection, 3306, ['mysql:', 'mariadb:']);
  const u = target.url;
  const ssl = u.searchParams.get('ssl') ?? u.searchParams.get('sslmode');
  const config: mysql.ConnectionOptions = {
    host: u.hostname || 'localhost',
    port: u.port ? Number(u.port) : 3306,
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.replace(/^\//, '')) || undefined,
    connectTimeout: options.connectTimeoutMs,
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
    typeCast: bitsAsNumbers,
    multipleStatements: false,
    charset: 'utf8mb4',
    ...(ssl && !/^(false|0|disable|disabled)$/i.test(ssl) ? { ssl: {} } : {}),
  };
  const pool = mysql.createPool({ ...config, connectionLimit: options.maxConnections, maxIdle: options.maxConnections, idleTimeout: options.idleTimeoutMs, waitForConnections: true, queueLimit: 0 });
  pool.pool.on('error', () => {});

  const killQuery = (threadId: number | null | undefined) => {
    if (!threadId) return;
    track(
      mysql
        .createConnection({ ...config, connectTimeout: 5_000 })
        .then(async (c) => {
          try {
            await c.query(`KILL QUERY ${Number(threadId)}`);
          } finally {
            c.destroy();
          }
        })
        .catch(() => {}),
    );
  };

  return {
    async run(statement, params, ctx) {
      const limit = budget(ctx, 'SQL statement');
      const pending = pool.getConnection();
      let conn: mysql.PoolConnection;
      try {
        conn = await abortable(pending, limit.signal);
      } catch (err) {
        if (err instanceof Aborted) {
          pending.then((c) => c.release(), () => {});
          throw limit.failure();
        }
        throw connectFailure('mysql', target, err);
      }
      let discard = false;
      try {
        const timeout = Math.max(1, Math.floor(ctx.deadline - Date.now()));
        const [result, fields] = await abortable(conn.query({ sql: statement, values: params ?? [], timeout }), limit.signal);
        if (Array.isArray(result)) {
          const rows = normaliseRows(result as Array<Record<string, unknown>>);
          const text_columns = (fields ?? []).filter(isMysqlText).map((f) => f.name);
          return { rows, columns: (fields ?? []).map((f) => f.name), ...(text_columns.length && { text_columns }), row_count: rows.length };
        }
        return { rows: [], columns: [], row_count: (result as mysql.ResultSetHeader).affectedRows ?? 0 };
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (err instanceof Aborted || code === 'PROTOCOL_SEQUENCE_TIMEOUT') {
          discard = true;
          killQuery(conn.threadId);
          if (err instanceof Aborted) throw limit.failure();
          throw new StepFailure('timeout', `SQL statement did not finish within ${limit.ms} ms (the step deadline); it was killed`, { timeout_ms: limit.ms });
        }
        if ((err as { fatal?: boolean }).fatal) {
          discard = true;
          if (typeof (err as { errno?: unknown }).errno !== 'number') {
            throw new StepFailure('database', target.scrub(`lost the connection to mysql at ${target.where}: ${[errorCode(err), errorMessage(err)].filter(Boolean).join(' ')}`));
          }
        }
        throw mysqlSqlFailure(err, target.scrub);
      } finally {
        if (discard) conn.destroy();
        else conn.release();
      }
    },
    end: () => pool.end(),
  };
}

// ---------------------------------------------------------------- the driver

/** Creates the SQL driver; see the module comment for behaviour. */
export function createSqlDriver(options: SqlDriverOptions = {}): SqlDriver {
  const opts: Required<SqlDriverOptions> = { maxConnections: options.maxConnections ?? 4, connectTimeoutMs: options.connectTimeoutMs ?? 10_000, idleTimeoutMs: options.idleTimeoutMs ?? 30_000 };
  const backends = new Map<string, Backend>();
  const background = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => {
    background.add(p);
    void p.finally(() => background.delete(p));
  };

  return {
    async query(connection, statement, params, ctx) {
      const key = `${connection.driver}\n${connection.url}`;
      let backend = backends.get(key);
      if (!backend) {
        if (connection.driver === 'postgres') backend = postgresBackend(connection, opts, track);
        else if (connection.driver === 'mysql') backend = mysqlBackend(connection, opts, track);
        else throw new StepFailure('unsupported', `unknown database driver ${JSON.stringify(connection.driver)} (postgres or mysql)`);
        backends.set(key, backend);
      }
      return backend.run(statement, params, ctx);
    },
    async close() {
      const all = [...backends.values()];
      backends.clear();
      await Promise.allSettled([...background]);
      await Promise.allSettled(all.map((b) => b.end()));
    },
  };
}
