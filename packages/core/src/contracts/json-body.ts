import { AppError } from '../errors.ts';

/**
 * How deeply a request body may nest objects and arrays. Far beyond any legitimate
 * payload (a test's steps with JSON bodies and JSON Schemas sit under ten levels of the
 * body, DynamoDB stores at most 32), far below where recursive code (validation,
 * JSON.stringify, structuredClone) runs out of stack on a stored value.
 */
export const MAX_JSON_DEPTH = 64;

/** Where JSON text first nests deeper than a limit: the path to that value (`config.a.a…`), or undefined when it does not. */
export interface TooDeep {
  /** Dotted path of the first value past the limit, its first segments only. */
  path: string;
  /** The top-level field it is under ('' for a body that is itself an array nested too deep). */
  field: string;
}

const PATH_SEGMENTS_SHOWN = 6;

/**
 * Scans JSON text for nesting deeper than `limit`, without recursion (and before
 * JSON.parse, so nothing deeper is ever built). Malformed text is scanned as far as it
 * goes; JSON.parse reports what is wrong with it.
 */
export function findTooDeep(text: string, limit: number = MAX_JSON_DEPTH): TooDeep | undefined {
  // Per open container: its kind, the key or index of the value being read in it.
  const kinds: ('o' | 'a')[] = [];
  const keys: (string | number)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      const start = i;
      for (i++; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 0x5c /* \ */) i++;
        else if (c === 0x22) break;
      }
      if (expectKey && kinds.length > 0 && kinds[kinds.length - 1] === 'o') {
        keys[keys.length - 1] = keyText(text.slice(start, i + 1));
        expectKey = false;
      }
    } else if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      if (kinds.length >= limit) return tooDeep(keys);
      kinds.push(ch === 0x7b ? 'o' : 'a');
      keys.push(ch === 0x7b ? '' : 0);
      expectKey = ch === 0x7b;
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      kinds.pop();
      keys.pop();
      expectKey = false;
    } else if (ch === 0x2c /* , */) {
      const top = kinds.length - 1;
      if (top >= 0 && kinds[top] === 'a') keys[top] = (keys[top] as number) + 1;
      else if (top >= 0) expectKey = true;
    }
  }
  return undefined;
}

function keyText(literal: string): string {
  try {
    return String(JSON.parse(literal));
  } catch {
    return literal.slice(1, -1);
  }
}

function tooDeep(keys: (string | number)[]): TooDeep {
  const segments = keys.map(String);
  const shown = segments.slice(0, PATH_SEGMENTS_SHOWN).join('.');
  return { path: segments.length > PATH_SEGMENTS_SHOWN ? `${shown}…` : shown, field: typeof keys[0] === 'string' ? keys[0] : '' };
}

/** The error for a body nested past the limit: 400 JSON_TOO_DEEP naming where. */
export function jsonTooDeepError(found: TooDeep, limit: number = MAX_JSON_DEPTH, what = 'request body'): AppError {
  const where = found.path ? ` (at ${found.path})` : '';
  return new AppError('JSON_TOO_DEEP', `${what} nests objects and arrays deeper than ${limit} levels${where}`, { path: found.path, field: found.field, max_depth: limit });
}

/**
 * A request's JSON body from its text: nesting deeper than MAX_JSON_DEPTH is 400
 * JSON_TOO_DEEP, text that is not JSON 400 MALFORMED_JSON.
 */
export function parseJsonBody(text: string, limit: number = MAX_JSON_DEPTH): unknown {
  const deep = findTooDeep(text, limit);
  if (deep) throw jsonTooDeepError(deep, limit);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError('MALFORMED_JSON', `request body is not valid JSON: ${(err as Error).message}`);
  }
}
