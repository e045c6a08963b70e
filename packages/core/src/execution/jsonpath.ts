/**
 * A small JSONPath subset, enough for API and DB assertions and for saving variables:
 *
 *   $                 the document
 *   .key  ['key']     a member ("key" may be any string in brackets; dot names stop at . [ ] and spaces)
 *   [0]  [-1]         an array element, counting from the end when negative
 *   [*]  .*           every element or member value
 *   [0,2]  ['a','b']  a union of indices or names
 *   [1:3]  [::2]      a slice (start:end:step, as in Python)
 *   ..key  ..[0]  ..* recursive descent: the selector applied to the node and every descendant
 *   .length           the length of an array or string (a real "length" member wins on objects)
 *
 * Filters (`[?(...)]`) and script expressions are not supported and are reported as such.
 * A path is *definite* when it can select at most one value (no wildcard, union, slice or
 * descent); callers compare a definite path's single value and an indefinite path's list.
 */

export class JsonPathError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`invalid JSONPath ${JSON.stringify(path)}: ${reason}`);
    this.name = 'JsonPathError';
  }
}

export type JsonPathSelector =
  | { kind: 'name'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'wildcard' }
  | { kind: 'slice'; start?: number; end?: number; step?: number };

export interface JsonPathSegment {
  /** `..`: apply the selectors to the node and all its descendants. */
  descendant: boolean;
  /** More than one for a union such as [0,1]. */
  selectors: JsonPathSelector[];
}

export interface ParsedJsonPath {
  path: string;
  segments: JsonPathSegment[];
  /** At most one value can match. */
  definite: boolean;
}

export interface JsonPathResult {
  found: boolean;
  values: unknown[];
  /** See ParsedJsonPath.definite. */
  definite: boolean;
}

const DOT_NAME = /[^.[\]\s'"*()?,:]/;

/** Parses a path; throws JsonPathError naming the position of the problem. */
export function parseJsonPath(path: string): ParsedJsonPath {
  const fail = (reason: string): never => {
    throw new JsonPathError(path, reason);
  };
  if (typeof path !== 'string' || path.length === 0) fail('the path is empty');
  if (path[0] !== '$') fail(`a path starts with $ (e.g. $.items[0].id), got ${JSON.stringify(path[0])}`);

  const segments: JsonPathSegment[] = [];
  let i = 1;

  const readDotName = (): string => {
    const start = i;
    while (i < path.length && DOT_NAME.test(path[i])) i++;
    return path.slice(start, i);
  };

  const skipSpaces = () => {
    while (i < path.length && (path[i] === ' ' || path[i] === '\t')) i++;
  };

  const readInt = (): number | undefined => {
    const m = /^-?\d+/.exec(path.slice(i));
    if (!m) return undefined;
    i += m[0].length;
    return Number(m[0]);
  };

  const readQuoted = (): string => {
    const quote = path[i];
    const start = i;
    i++;
    let out = '';
    while (i < path.length && path[i] !== quote) {
      if (path[i] === '\\') {
        const next = path[i + 1];
        if (next === undefined) break;
        out += next === 'n' ? '\n' : next === 't' ? '\t' : next;
        i += 2;
      } else {
        out += path[i++];
      }
    }
    if (i >= path.length) fail(`unterminated string starting at position ${start}`);
    i++; // closing quote
    return out;
  };

  const readBracket = (): JsonPathSelector[] => {
    const open = i;
    i++; // [
    const selectors: JsonPathSelector[] = [];
    for (;;) {
      skipSpaces();
      const c = path[i];
      if (c === undefined) fail(`unclosed [ at position ${open}`);
      if (c === '?' || c === '(') fail(`filter and script expressions ([?(...)], [(...)]) are not supported (position ${i})`);
      if (c === "'" || c === '"') {
        selectors.push({ kind: 'name', name: readQuoted() });
      } else if (c === '*') {
        i++;
        selectors.push({ kind: 'wildcard' });
      } else {
        const start = readInt();
        skipSpaces();
        if (path[i] === ':') {
          i++;
          skipSpaces();
          const end = readInt();
          skipSpaces();
          let step: number | undefined;
          if (path[i] === ':') {
            i++;
            skipSpaces();
            step = readInt();
            if (step === 0) fail(`a slice step cannot be 0 (position ${i - 1})`);
          }
          selectors.push({ kind: 'slice', start, end, step });
        } else if (start !== undefined) {
          selectors.push({ kind: 'index', index: start });
        } else {
          fail(path[i] === ']' ? `empty [] at position ${open}` : `expected a quoted name, an index, * or a slice at position ${i}, got ${JSON.stringify(path[i])}`);
        }
      }
      skipSpaces();
      if (path[i] === ',') {
        i++;
        continue;
      }
      if (path[i] === ']') {
        i++;
        return selectors;
      }
      if (i >= path.length) fail(`unclosed [ at position ${open}`);
      fail(`expected , or ] at position ${i}, got ${JSON.stringify(path[i])}`);
    }
  };

  while (i < path.length) {
    const c = path[i];
    if (c === '.' && path[i + 1] === '.') {
      i += 2;
      if (path[i] === '[') segments.push({ descendant: true, selectors: readBracket() });
      else if (path[i] === '*') {
        i++;
        segments.push({ descendant: true, selectors: [{ kind: 'wildcard' }] });
      } else {
        const at = i;
        const name = readDotName();
        if (!name) fail(`expected a name, * or [ after .. at position ${at}`);
        segments.push({ descendant: true, selectors: [{ kind: 'name', name }] });
      }
    } else if (c === '.') {
      i++;
      if (path[i] === '*') {
        i++;
        segments.push({ descendant: false, selectors: [{ kind: 'wildcard' }] });
      } else {
        const at = i;
        const name = readDotName();
        if (!name) fail(i >= path.length ? `the path ends with . (position ${at - 1})` : `expected a name after . at position ${at}, got ${JSON.stringify(path[at])}`);
        segments.push({ descendant: false, selectors: [{ kind: 'name', name }] });
      }
    } else if (c === '[') {
      segments.push({ descendant: false, selectors: readBracket() });
    } else {
      fail(`unexpected ${JSON.stringify(c)} at position ${i} (expected . or [)`);
    }
  }

  const definite = segments.every((s) => !s.descendant && s.selectors.length === 1 && (s.selectors[0].kind === 'name' || s.selectors[0].kind === 'index'));
  return { path, segments, definite };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function sliceIndices(length: number, s: { start?: number; end?: number; step?: number }): number[] {
  const step = s.step ?? 1;
  const norm = (v: number) => (v < 0 ? Math.max(length + v, step > 0 ? 0 : -1) : Math.min(v, step > 0 ? length : length - 1));
  const out: number[] = [];
  if (step > 0) {
    const start = s.start === undefined ? 0 : norm(s.start);
    const end = s.end === undefined ? length : norm(s.end);
    for (let k = start; k < end; k += step) out.push(k);
  } else {
    const start = s.start === undefined ? length - 1 : norm(s.start);
    const end = s.end === undefined ? -1 : norm(s.end);
    for (let k = start; k > end; k += step) out.push(k);
  }
  return out;
}

function select(node: unknown, selector: JsonPathSelector, allowLength: boolean, out: unknown[]): void {
  switch (selector.kind) {
    case 'name': {
      if (isObject(node)) {
        if (Object.hasOwn(node, selector.name) && node[selector.name] !== undefined) out.push(node[selector.name]);
      } else if (allowLength && selector.name === 'length' && (Array.isArray(node) || typeof node === 'string')) {
        out.push(node.length);
      }
      return;
    }
    case 'index': {
      if (!Array.isArray(node)) return;
      const k = selector.index < 0 ? node.length + selector.index : selector.index;
      if (k >= 0 && k < node.length && node[k] !== undefined) out.push(node[k]);
      return;
    }
    case 'wildcard': {
      if (Array.isArray(node)) out.push(...node.filter((v) => v !== undefined));
      else if (isObject(node)) out.push(...Object.values(node).filter((v) => v !== undefined));
      return;
    }
    case 'slice': {
      if (!Array.isArray(node)) return;
      for (const k of sliceIndices(node.length, selector)) if (node[k] !== undefined) out.push(node[k]);
      return;
    }
  }
}

/** The node itself and every descendant, in document order. */
function descendants(node: unknown, out: unknown[]): void {
  out.push(node);
  if (Array.isArray(node)) for (const v of node) descendants(v, out);
  else if (isObject(node)) for (const v of Object.values(node)) descendants(v, out);
}

/** Evaluates a parsed path against a document. */
export function evaluateParsed(doc: unknown, parsed: ParsedJsonPath): JsonPathResult {
  let current: unknown[] = doc === undefined ? [] : [doc];
  for (const segment of parsed.segments) {
    const next: unknown[] = [];
    const nodes: unknown[] = [];
    if (segment.descendant) for (const n of current) descendants(n, nodes);
    else nodes.push(...current);
    for (const node of nodes) for (const selector of segment.selectors) select(node, selector, !segment.descendant, next);
    current = next;
  }
  return { found: current.length > 0, values: current, definite: parsed.definite };
}

/**
 * Evaluates `path` against `doc`. Throws JsonPathError for a malformed path (callers
 * report it as a configuration failure). Undefined members count as absent.
 */
export function evaluateJsonPath(doc: unknown, path: string): JsonPathResult {
  return evaluateParsed(doc, parseJsonPath(path));
}

/** The first value the path selects, or undefined. */
export function firstValue(doc: unknown, path: string): unknown {
  return evaluateJsonPath(doc, path).values[0];
}

/**
 * The value a path stands for: a definite path's single value (found only when present),
 * or an indefinite path's list of values — always found, possibly empty, so that
 * `$.items[*].id` on an empty list compares as [].
 */
export function resolveJsonPath(doc: unknown, path: string): { found: boolean; value: unknown; definite: boolean } {
  const r = evaluateJsonPath(doc, path);
  if (r.definite) return { found: r.found, value: r.values[0], definite: true };
  return { found: true, value: r.values, definite: false };
}
