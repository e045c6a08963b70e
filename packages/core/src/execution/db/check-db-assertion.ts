import type { DbAssertion } from '../../contracts/steps.ts';
import { StepFailure, type SqlResult } from '../types.ts';
import { deepEqual, preview } from '../api/json-values.ts';

/**
 * Checks one DB assertion against the latest query result. Throws StepFailure
 * 'assertion' with expected vs actual, or 'configuration' when no query ran yet.
 *
 * Cell equality is lenient where databases differ in representation, not in value (a
 * text column's cells are text: compared exactly, see textCellEquals):
 * - numbers: 42, '42', '42.0' and 42n are equal (Postgres returns bigint/numeric as text);
 *   decimals compare exactly, digit for digit ('12345678901234567890.1234567891' is not
 *   …890), and so do integers beyond 2^53; only a value in exponent form is a float;
 * - booleans: true equals 1 and false equals 0 (MySQL booleans are TINYINT);
 * - dates: a Date, or an ISO date-time string, equals an ISO string naming the same instant;
 * - JSON: an object or array equals a JSON text column holding it (MariaDB JSON is text).
 */
export function checkDbAssertion(assertion: DbAssertion, result: SqlResult | undefined): void {
  if (!result) throw new StepFailure('configuration', 'no query before this assertion');
  switch (assertion.type) {
    case 'row_count':
      return checkRowCount(assertion, result);
    case 'cell':
      return checkCell(assertion, result);
    default: {
      const never: never = assertion;
      throw new StepFailure('unsupported', `unknown DB assertion ${JSON.stringify((never as { type: string }).type)}`);
    }
  }
}

type Of<T extends DbAssertion['type']> = Extract<DbAssertion, { type: T }>;

const rows = (n: number) => `${n} ${n === 1 ? 'row' : 'rows'}`;

function checkRowCount(a: Of<'row_count'>, result: SqlResult): void {
  const n = result.row_count;
  if (a.equals !== undefined && n !== a.equals) throw new StepFailure('assertion', `expected ${rows(a.equals)}, got ${n}`, { expected: a.equals, actual: n });
  if (a.min !== undefined && n < a.min) throw new StepFailure('assertion', `expected at least ${rows(a.min)}, got ${n}`, { expected: a.min, actual: n });
  if (a.max !== undefined && n > a.max) throw new StepFailure('assertion', `expected at most ${rows(a.max)}, got ${n}`, { expected: a.max, actual: n });
}

/**
 * The result's column for a name: exact, else the only case-insensitive match. Two columns
 * of one name (`select * from a join b`, both with id) are ambiguous: a row keeps only the
 * last one's value, and a check of the first would read the other's.
 */
function findColumn(result: SqlResult, row: Record<string, unknown>, column: string): string | undefined {
  const columns = result.columns.length > 0 ? result.columns : Object.keys(row);
  const exact = columns.filter((c) => c === column);
  const folded = exact.length ? exact : columns.filter((c) => c.toLowerCase() === column.toLowerCase());
  if (folded.length > 1) {
    throw new StepFailure('configuration', `column "${column}" is ambiguous: the result has ${folded.length} columns named ${folded.map((c) => JSON.stringify(c)).join(', ')}; name them apart in the SQL (… AS other_name)`, { column, columns: result.columns });
  }
  if (folded.length === 1) return folded[0];
  return Object.hasOwn(row, column) ? column : undefined;
}

function checkCell(a: Of<'cell'>, result: SqlResult): void {
  const index = a.row ?? 0;
  const row = result.rows[index];
  if (row === undefined) {
    throw new StepFailure('assertion', `row ${index} does not exist: the result has ${rows(result.rows.length)}`, { row: index, rows: result.rows.length });
  }
  const column = findColumn(result, row, a.column);
  if (column === undefined) {
    const available = (result.columns.length > 0 ? result.columns : Object.keys(row)).join(', ') || 'none';
    throw new StepFailure('assertion', `column "${a.column}" is not in the result; columns: ${available}`, { column: a.column, columns: result.columns });
  }
  const actual = row[column] === undefined ? null : row[column];
  const where = `row ${index}, column "${a.column}"`;

  if (a.is_null !== undefined) {
    if (a.is_null && actual !== null) throw new StepFailure('assertion', `${where}: expected NULL, got ${show(actual)}`, { actual });
    if (!a.is_null && actual === null) throw new StepFailure('assertion', `${where}: expected a value, got NULL`);
    return;
  }
  if (a.matches !== undefined) {
    if (actual === null) throw new StepFailure('assertion', `${where}: expected a value matching /${a.matches}/, got NULL`);
    let re: RegExp;
    try {
      re = new RegExp(a.matches);
    } catch (err) {
      throw new StepFailure('configuration', `invalid regular expression /${a.matches}/: ${(err as Error).message}`);
    }
    const text = asText(actual);
    if (!re.test(text)) throw new StepFailure('assertion', `${where}: expected ${JSON.stringify(text)} to match /${a.matches}/`, { expected: a.matches, actual: text });
    return;
  }
  const asTextColumn = typeof actual === 'string' && (result.text_columns ?? []).includes(column);
  if (!(asTextColumn ? textCellEquals(actual, a.equals) : cellEquals(actual, a.equals))) {
    // JSON cannot hold such a number exactly: 9007199254740993 reads as …992.
    const inexact = typeof a.equals === 'number' && Number.isInteger(a.equals) && !Number.isSafeInteger(a.equals) ? ' (a JSON number beyond 2^53 is not exact: write it as a string, "9007199254740993")' : '';
    throw new StepFailure('assertion', `${where}: expected ${show(a.equals ?? null)}, got ${show(actual)}${inexact}`, { expected: a.equals, actual: jsonSafe(actual) });
  }
}

// ---------------------------------------------------------------- comparison

const NUMERIC = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/;
const INTEGER = /^\s*[-+]?\d+\s*$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)$/i;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const LOCAL_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::(\d{2})(?:\.(\d+))?)?$/i;

/** A date-time without a zone ('2024-01-15 10:00:00', MySQL DATETIME) in one spelling. */
function localDateTime(v: unknown): string | undefined {
  const m = typeof v === 'string' ? LOCAL_DATE_TIME.exec(v.trim()) : null;
  if (!m) return undefined;
  const fraction = (m[4] ?? '').replace(/0+$/, '');
  return `${m[1]}T${m[2]}:${m[3] ?? '00'}${fraction ? `.${fraction}` : ''}`;
}

type Num = { int: bigint } | { float: number };

function asNumber(v: unknown): Num | undefined {
  if (typeof v === 'bigint') return { int: v };
  if (typeof v === 'number') return Number.isInteger(v) && Number.isSafeInteger(v) ? { int: BigInt(v) } : { float: v };
  if (typeof v === 'string' && NUMERIC.test(v)) {
    if (INTEGER.test(v)) return { int: BigInt(v.trim()) };
    const f = Number(v);
    return Number.isInteger(f) && Number.isSafeInteger(f) ? { int: BigInt(f) } : { float: f };
  }
  return undefined;
}

/** An exact decimal: mantissa / 10^scale. */
type Decimal = { mantissa: bigint; scale: number };

function decimalOfText(text: string): Decimal | undefined {
  const m = /^([-+]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m || (!m[2] && !m[3])) return undefined;
  const fraction = m[3] ?? '';
  return { mantissa: BigInt(`${m[1] === '-' ? '-' : ''}${m[2] || '0'}${fraction}`), scale: fraction.length };
}

/**
 * A value as an exact decimal where it has one: database numeric/decimal text and bigint
 * (Postgres, MySQL), and a JSON number by its shortest spelling (12.5 is "12.5"). A value
 * in exponent form has none, and is compared as a float.
 */
function asDecimal(v: unknown): Decimal | undefined {
  if (typeof v === 'bigint') return { mantissa: v, scale: 0 };
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return undefined;
    if (Number.isInteger(v)) return { mantissa: BigInt(v), scale: 0 };
    const text = String(v);
    return /e/i.test(text) ? undefined : decimalOfText(text);
  }
  if (typeof v === 'string' && NUMERIC.test(v) && !/e/i.test(v)) return decimalOfText(v);
  return undefined;
}

function decimalsEqual(a: Decimal, b: Decimal): boolean {
  const scale = Math.max(a.scale, b.scale);
  return a.mantissa * 10n ** BigInt(scale - a.scale) === b.mantissa * 10n ** BigInt(scale - b.scale);
}

function numbersEqual(a: Num, b: Num): boolean {
  if ('int' in a && 'int' in b) return a.int === b.int;
  const x = 'int' in a ? Number(a.int) : a.float;
  const y = 'int' in b ? Number(b.int) : b.float;
  return x === y;
}

function instant(v: unknown): number | undefined {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'string' && ISO_DATE_TIME.test(v.trim())) {
    const t = Date.parse(v.trim().replace(' ', 'T'));
    return Number.isNaN(t) ? undefined : t;
  }
  return undefined;
}

function parseJsonText(v: unknown): unknown {
  if (typeof v !== 'string' || !/^\s*[[{]/.test(v)) return undefined;
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
}

/** Whether a cell value equals an expected value, with the coercions documented above. */
export function cellEquals(actual: unknown, expected: unknown): boolean {
  if (expected === undefined || expected === null) return actual === null || actual === undefined;
  if (actual === null || actual === undefined) return false;

  if (typeof expected === 'boolean') {
    if (typeof actual === 'boolean') return actual === expected;
    const n = asNumber(actual);
    return n !== undefined && 'int' in n && n.int === (expected ? 1n : 0n);
  }

  // Decimals compare digit for digit: numeric(40,10) text must not pass on a float's rounding.
  const ed = asDecimal(expected);
  const ad = asDecimal(actual);
  if (ed && ad) return decimalsEqual(ad, ed);
  const en = asNumber(expected);
  const an = asNumber(actual);
  if (en && an) return numbersEqual(an, en);

  const at = instant(actual);
  const et = instant(expected);
  if (at !== undefined && et !== undefined) return at === et;
  if (actual instanceof Date) {
    if (typeof expected !== 'string') return false;
    const iso = actual.toISOString();
    return iso === expected || (DATE_ONLY.test(expected) && iso.slice(0, 10) === expected);
  }
  const al = localDateTime(actual);
  const el = localDateTime(expected);
  if (al !== undefined && el !== undefined) return al === el;

  if (typeof expected === 'object') {
    if (typeof actual === 'object' && !(actual instanceof Uint8Array)) return deepEqual(actual, expected);
    const parsed = parseJsonText(actual);
    return parsed !== undefined && deepEqual(parsed, expected);
  }
  if (actual instanceof Uint8Array) return typeof expected === 'string' && asText(actual) === expected;
  if (typeof actual === 'object') {
    const parsed = parseJsonText(expected);
    return parsed !== undefined && deepEqual(actual, parsed);
  }
  return actual === expected;
}

/**
 * A text column's cell: compared as text, never as a number ('00501' is not 501, '1.10' is
 * not 1.1, '1' is not true). An expected number or boolean is its own spelling (501 is
 * '501'); an expected object or array is JSON the text holds.
 */
function textCellEquals(actual: string, expected: unknown): boolean {
  if (expected === undefined || expected === null) return false;
  if (typeof expected === 'object') {
    const parsed = parseJsonText(actual);
    return parsed !== undefined && deepEqual(parsed, expected);
  }
  return actual === String(expected);
}

/** A cell as text, for regular expressions: dates as ISO, bytes as \x hex, JSON as JSON. */
function asText(v: unknown): string {
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return `\\x${Array.from(v, (b) => b.toString(16).padStart(2, '0')).join('')}`;
  if (typeof v === 'object' && v !== null) return JSON.stringify(v);
  return String(v);
}

function jsonSafe(v: unknown): unknown {
  if (v instanceof Date || v instanceof Uint8Array || typeof v === 'bigint') return asText(v);
  return v;
}

function show(v: unknown): string {
  if (v === null) return 'NULL';
  return preview(jsonSafe(v));
}
