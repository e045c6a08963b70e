import { z } from 'zod';
import { validationFailed, type FieldIssue } from '../errors.ts';
import { didYouMean } from './did-you-mean.ts';

export type InputLocation = 'body' | 'query' | 'params';

/**
 * Validate request input against a contract schema. On failure throws
 * `validationFailed(issues)` (VALIDATION_FAILED, 400) with one `{ path, message }` per
 * problem; paths are dotted (`steps.0.selector`) and an unknown key in a strict object
 * is reported as its own issue at that key with the message "unknown field".
 */
export function parseInput<S extends z.ZodType>(schema: S, data: unknown, where: InputLocation = 'body'): z.output<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  throw validationFailed(toFieldIssues(result.error, where, data));
}

/** Flatten a ZodError into the service's field issues. */
export function toFieldIssues(error: z.ZodError, where: InputLocation = 'body', data?: unknown): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) issues.push({ path: joinPath([...issue.path, key]), message: 'unknown field' });
      continue;
    }
    // A discriminated union (a step's or assertion's type) given a value it does not know: say what it got, and what was likely meant.
    if (issue.code === 'invalid_union' && issue.errors.length === 0 && Array.isArray((issue as { options?: unknown }).options)) {
      const options = ((issue as { options: unknown[] }).options).map(String);
      const field = String((issue as { discriminator?: unknown }).discriminator ?? issue.path.at(-1) ?? 'type');
      const got = data === undefined ? undefined : valueAt(data, issue.path);
      const near = typeof got === 'string' ? didYouMean(got, options) : undefined;
      const expected = `one of ${options.join(', ')}`;
      issues.push({
        path: joinPath(issue.path),
        // Without the input (a caller that did not pass it) the value is not known: say what is expected.
        message: data === undefined ? `invalid ${field} (expected ${expected})` : got === undefined ? `required (${expected})` : `unknown ${field} ${JSON.stringify(got)}${near ? `; did you mean ${JSON.stringify(near)}?` : ''} (expected ${expected})`,
      });
      continue;
    }
    // A union field left out (an image given as base64 or a reference, say): required, not "Invalid input".
    if (issue.code === 'invalid_union' && issue.path.length > 0 && data !== undefined && valueAt(data, issue.path) === undefined) {
      issues.push({ path: joinPath(issue.path), message: 'required' });
      continue;
    }
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      // Report the branch that got furthest instead of the generic "invalid input".
      const best = [...issue.errors].sort((a, b) => depth(b) - depth(a))[0];
      if (best && best.length > 0 && !(best.length === 1 && best[0]?.code === 'invalid_type' && best[0].path.length === 0)) {
        const nested = new z.ZodError(best.map((i) => ({ ...i, path: [...issue.path, ...i.path] })));
        issues.push(...toFieldIssues(nested, where, data));
        continue;
      }
    }
    const path = joinPath(issue.path);
    let message = issue.message;
    // A map key the key schema refuses: zod says only "Invalid key in record"; say why.
    if (issue.code === 'invalid_key' && issue.issues.length) message = `not a valid name: ${issue.issues.map((i) => i.message).join('; ')}`;
    if (issue.code === 'invalid_type' && path !== '' && message.endsWith('received undefined')) message = 'required';
    else if (issue.code === 'invalid_type' && path === '') message = `${where}: ${message}`;
    // A number from text (a path or query parameter) that is not one: zod says "received NaN".
    else if (issue.code === 'invalid_type' && message.endsWith('received NaN')) message = 'expected a number';
    // An enum field left out: say it is required, as for any other field, rather than listing the options.
    else if (issue.code === 'invalid_value' && path !== '' && data !== undefined && valueAt(data, issue.path) === undefined) message = `required (${message.replace(/^Invalid option: /, '')})`;
    else message = plainWords(issue, message, data === undefined ? undefined : valueAt(data, issue.path));
    issues.push({ path, message });
  }
  return issues;
}

/** What a length or size is counted in, by the kind of value zod checked. */
const UNITS: Record<string, [string, string]> = { string: ['character', 'characters'], array: ['item', 'items'], set: ['item', 'items'], file: ['byte', 'bytes'] };
const FORMATS: Record<string, string> = { url: 'not a valid URL (e.g. https://shop.example.com)', email: 'not a valid email address', uuid: 'not a valid id (a UUID)', datetime: 'not a valid date and time (ISO 8601, e.g. 2026-11-29T08:00:00Z)', date: 'not a valid date (e.g. 2026-11-29)' };

/**
 * zod's own words for a size or format ("Too big: expected string to have <=255
 * characters", "Invalid URL") in plain ones ("at most 255 characters (got 300)", "not a
 * valid URL"). A message a schema wrote itself is kept: only zod's defaults are rewritten.
 */
function plainWords(issue: z.core.$ZodIssue, message: string, got: unknown): string {
  if ((issue.code === 'too_big' || issue.code === 'too_small') && /^Too (big|small):/.test(message)) {
    const big = issue.code === 'too_big';
    const limit = Number(big ? issue.maximum : issue.minimum);
    const exclusive = issue.inclusive === false;
    const unit = UNITS[issue.origin];
    if (!unit) return `${big ? (exclusive ? 'less than' : 'at most') : exclusive ? 'more than' : 'at least'} ${limit}`;
    if (!big && limit === 1 && !exclusive) return issue.origin === 'string' ? 'must not be empty' : 'must have at least 1 item';
    const size = typeof got === 'string' || Array.isArray(got) ? got.length : undefined;
    const bound = exclusive ? limit + (big ? -1 : 1) : limit;
    return `${big ? 'at most' : 'at least'} ${bound} ${bound === 1 ? unit[0] : unit[1]}${size === undefined ? '' : ` (got ${size})`}`;
  }
  if (issue.code === 'invalid_format' && /^Invalid /.test(message)) return FORMATS[issue.format] ?? message;
  return message;
}

function depth(issues: z.core.$ZodIssue[]): number {
  return Math.max(0, ...issues.map((i) => i.path.length));
}

function joinPath(path: PropertyKey[]): string {
  return path.map((p) => (typeof p === 'symbol' ? p.toString() : String(p))).join('.');
}

/** The value at a path of the input, undefined when any step of it is missing. */
function valueAt(data: unknown, path: PropertyKey[]): unknown {
  let at: unknown = data;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}
