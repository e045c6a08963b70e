/** Makes driver rows JSON-safe, so results can be stored, compared and saved as variables. */

function normaliseValue(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return `\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`;
  if (Array.isArray(v)) return v.map(normaliseValue);
  return v;
}

/**
 * Dates become ISO strings, bigints decimal strings, bytes \x-prefixed hex (as Postgres
 * prints bytea); arrays are normalised element by element. Other values (numbers,
 * strings, booleans, parsed JSON) are kept as they are.
 */
export function normaliseRows(rows: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(row)) out[k] = normaliseValue(v);
    return out;
  });
}
