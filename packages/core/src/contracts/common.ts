import { z } from 'zod';

/**
 * Building blocks shared by every contract. Resource schemas describe what the API
 * returns (plain objects: unknown keys are stripped on parse, which is how internal
 * columns such as `key_hash` never leak); input schemas are strict, so a typo is a 400
 * naming the field rather than a silently ignored key.
 */

/** An RFC 9562 UUID, as every id in the service is. */
export const Uuid = z.uuid().describe('UUID identifier');

/** ISO 8601 date-time. The service always emits UTC with a `Z` suffix; offsets are accepted on input. */
export const IsoDateTime = z.iso.datetime({ offset: true }).describe('ISO 8601 date-time (UTC, e.g. 2025-01-31T12:00:00.000Z)');

/** An arbitrary JSON object (jsonb column). */
export const JsonObject = z.record(z.string(), z.unknown()).describe('Arbitrary JSON object');
export type JsonObject = z.output<typeof JsonObject>;

/** An email address, normalised to lower case. */
export const Email = z.email().max(320).toLowerCase().describe('Email address (stored lower-case)');

/**
 * A name people read (a project's, a test's): 1–255 characters after trimming, with at
 * least one visible character, no control characters (a NUL or an escape code would reach
 * reports, JUnit XML and terminals) and no lone UTF-16 surrogate (not text; found by QA).
 */
export const DisplayName = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), { message: 'must not contain control characters' })
  .refine((v) => v.isWellFormed(), { message: 'is not valid text (a lone UTF-16 surrogate)' })
  .refine((v) => v.length === 0 || /[^\s\p{Cf}]/u.test(v), { message: 'must contain a visible character' }); // empty: min(1) says it

/** An opaque pagination cursor returned as `next_cursor` by a previous page. */
export const Cursor = z.string().min(1).max(1024).describe('Opaque cursor from the previous page\'s next_cursor');

/** Query parameters of every list endpoint. */
export const ListQuery = z.strictObject({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .default(50)
    .describe('Page size, 1..200 (default 50)'),
  cursor: Cursor.optional().describe('Opaque cursor from the previous page\'s next_cursor; omit for the first page'),
});
export type ListQuery = z.output<typeof ListQuery>;

const listItems = new WeakMap<z.ZodType, z.ZodType>();

/** The one list envelope: `{ items, next_cursor }`; `next_cursor` is null on the last page. */
export function listResponse<T extends z.ZodType>(itemSchema: T) {
  const schema = z.object({
    items: z.array(itemSchema).describe('The items of this page'),
    next_cursor: z.string().nullable().describe('Cursor for the next page, or null when this is the last page'),
  });
  listItems.set(schema, itemSchema);
  return schema;
}

/** The item schema of a schema built by `listResponse` (used by the OpenAPI generator to name it). */
export function listItemOf(schema: z.ZodType): z.ZodType | undefined {
  return listItems.get(schema);
}
export interface ListResponse<T> {
  items: T[];
  next_cursor: string | null;
}

/**
 * How an alias maps to its canonical key: just the canonical name, or the name plus a
 * conversion (e.g. seconds → milliseconds). `convert` returns `{ ok: false, message }`
 * to reject the alias value at the alias path.
 */
export type AliasSpec =
  | string
  | { to: string; convert: (value: unknown) => { ok: true; value: unknown } | { ok: false; message: string } };

const aliasRegistry = new WeakMap<z.ZodType, Readonly<Record<string, string>>>();

/** The alias → canonical map a schema built by `acceptAliases` accepts (used by the OpenAPI generator). */
export function aliasesOf(schema: z.ZodType): Readonly<Record<string, string>> | undefined {
  return aliasRegistry.get(schema);
}

/**
 * Accept alternative names for fields (the spec names several fields two ways). Alias
 * keys are renamed to their canonical key before `schema` validates, so outputs only
 * ever carry canonical names. Giving both an alias and its canonical key with different
 * values is an issue at the alias path ("use only one of url, app_url"); the same value
 * twice is tolerated.
 *
 * @param aliases map of alias → canonical key, e.g. `{ url: 'app_url' }`, or alias →
 *   `{ to, convert }` when the units differ.
 */
export function acceptAliases<S extends z.ZodType>(schema: S, aliases: Record<string, AliasSpec>) {
  const specs = Object.entries(aliases).map(([alias, spec]) =>
    typeof spec === 'string' ? { alias, to: spec, convert: undefined } : { alias, to: spec.to, convert: spec.convert },
  );
  const wrapped = z.preprocess((input, ctx) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
    const out: Record<string, unknown> = { ...(input as Record<string, unknown>) };
    for (const { alias, to, convert } of specs) {
      if (!Object.prototype.hasOwnProperty.call(out, alias)) continue;
      let value = out[alias];
      delete out[alias];
      if (convert && value !== undefined) {
        const converted = convert(value);
        if (!converted.ok) {
          ctx.addIssue({ code: 'custom', path: [alias], message: converted.message, input: value });
          continue;
        }
        value = converted.value;
      }
      if (Object.prototype.hasOwnProperty.call(out, to)) {
        if (!sameJson(out[to], value)) {
          ctx.addIssue({ code: 'custom', path: [alias], message: `use only one of ${alias}, ${to}`, input: value });
        }
        continue;
      }
      out[to] = value;
    }
    return out;
  }, schema);
  aliasRegistry.set(wrapped, Object.freeze(Object.fromEntries(specs.map((s) => [s.alias, s.to]))));
  return wrapped;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

/** PATCH-style inputs: `.refine(atLeastOneField, atLeastOneFieldParams)`. */
export const atLeastOneField = (value: Record<string, unknown>) => Object.values(value).some((v) => v !== undefined);
export const AT_LEAST_ONE_FIELD = 'at least one field is required';
/** Only complain about emptiness when nothing else is wrong (an unknown key is the better message). */
export const atLeastOneFieldParams = {
  message: AT_LEAST_ONE_FIELD,
  when: (payload: { issues: readonly unknown[] }) => payload.issues.length === 0,
};
