/**
 * EventBridge event patterns, evaluated in-process. The local bus routes with these so a
 * rule written once (core/events/routing.ts) behaves the same locally and on AWS, where
 * infra/events.ts hands the very same objects to EventBridge.
 *
 * Supported (EventBridge "content filtering"): exact strings/numbers/booleans/null,
 * prefix, suffix, equals-ignore-case, wildcard, anything-but (value, list or prefix),
 * numeric ranges, exists, nested objects, array-valued event fields (match if any
 * element matches) and `$or`.
 */
export type PatternValue = string | number | boolean | null;
export type Matcher =
  | PatternValue
  | { prefix: string }
  | { suffix: string }
  | { 'equals-ignore-case': string }
  | { wildcard: string }
  | { 'anything-but': PatternValue | PatternValue[] | { prefix: string } }
  | { numeric: (string | number)[] }
  | { exists: boolean };

export interface EventPattern {
  [field: string]: Matcher[] | EventPattern | EventPattern[] | undefined;
  $or?: EventPattern[];
}

/** Raised for a pattern EventBridge would also refuse (so a typo fails at rule creation). */
export class InvalidPatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidPatternError';
  }
}

/** True when `event` matches `pattern` under EventBridge's rules. */
export function matchesPattern(pattern: EventPattern, event: unknown): boolean {
  for (const [field, spec] of Object.entries(pattern)) {
    if (spec === undefined) continue;
    if (field === '$or') {
      if (!Array.isArray(spec) || !(spec as EventPattern[]).some((p) => matchesPattern(p, event))) return false;
      continue;
    }
    const value = isObject(event) ? event[field] : undefined;
    if (Array.isArray(spec)) {
      if (!matchesField(spec as Matcher[], value, isObject(event) && field in event)) return false;
    } else if (isObject(spec)) {
      if (!isObject(value)) {
        // A nested pattern against a missing object can only match `exists: false` leaves.
        if (!onlyAbsentMatchers(spec as EventPattern)) return false;
        continue;
      }
      if (!matchesPattern(spec as EventPattern, value)) return false;
    } else {
      throw new InvalidPatternError(`pattern field "${field}" must be an array of matchers or an object`);
    }
  }
  return true;
}

/** Throws InvalidPatternError for shapes EventBridge rejects; returns the pattern for chaining. */
export function validatePattern(pattern: EventPattern): EventPattern {
  for (const [field, spec] of Object.entries(pattern)) {
    if (field === '$or') {
      if (!Array.isArray(spec) || spec.length < 2) throw new InvalidPatternError('$or needs at least two patterns');
      (spec as EventPattern[]).forEach(validatePattern);
    } else if (Array.isArray(spec)) {
      if (spec.length === 0) throw new InvalidPatternError(`pattern field "${field}" has an empty matcher list`);
      for (const m of spec as Matcher[]) matcherKind(m, field);
    } else if (isObject(spec)) validatePattern(spec as EventPattern);
    else throw new InvalidPatternError(`pattern field "${field}" must be an array of matchers or an object`);
  }
  return pattern;
}

function matchesField(matchers: Matcher[], value: unknown, present: boolean): boolean {
  const values = Array.isArray(value) ? value : [value];
  return matchers.some((m) => {
    if (isObject(m) && 'exists' in m) return m.exists === (present && value !== undefined);
    if (!present || value === undefined) return false;
    return values.some((v) => matchOne(m, v));
  });
}

function matchOne(m: Matcher, v: unknown): boolean {
  switch (matcherKind(m)) {
    case 'exact':
      return v === m;
    case 'prefix':
      return typeof v === 'string' && v.startsWith((m as { prefix: string }).prefix);
    case 'suffix':
      return typeof v === 'string' && v.endsWith((m as { suffix: string }).suffix);
    case 'equals-ignore-case':
      return typeof v === 'string' && v.toLowerCase() === (m as { 'equals-ignore-case': string })['equals-ignore-case'].toLowerCase();
    case 'wildcard':
      return typeof v === 'string' && wildcardRegex((m as { wildcard: string }).wildcard).test(v);
    case 'anything-but': {
      const but = (m as { 'anything-but': unknown })['anything-but'];
      if (isObject(but) && 'prefix' in but) return typeof v === 'string' && !v.startsWith(String(but.prefix));
      return !(Array.isArray(but) ? but : [but]).includes(v as PatternValue);
    }
    case 'numeric':
      return typeof v === 'number' && numericMatch((m as { numeric: (string | number)[] }).numeric, v);
    case 'exists':
      return true; // handled by matchesField
  }
}

type Kind = 'exact' | 'prefix' | 'suffix' | 'equals-ignore-case' | 'wildcard' | 'anything-but' | 'numeric' | 'exists';
const objectKinds: Kind[] = ['prefix', 'suffix', 'equals-ignore-case', 'wildcard', 'anything-but', 'numeric', 'exists'];

function matcherKind(m: Matcher, field = '?'): Kind {
  if (m === null || typeof m !== 'object') return 'exact';
  const keys = Object.keys(m);
  const kind = keys[0] as Kind;
  if (keys.length !== 1 || !objectKinds.includes(kind)) {
    throw new InvalidPatternError(`unknown matcher ${JSON.stringify(m)} for field "${field}"`);
  }
  return kind;
}

function numericMatch(spec: (string | number)[], v: number): boolean {
  for (let i = 0; i < spec.length; i += 2) {
    const op = spec[i];
    const bound = Number(spec[i + 1]);
    const ok = op === '=' ? v === bound : op === '<' ? v < bound : op === '<=' ? v <= bound : op === '>' ? v > bound : op === '>=' ? v >= bound : false;
    if (!ok) return false;
  }
  return true;
}

const wildcardCache = new Map<string, RegExp>();
function wildcardRegex(glob: string): RegExp {
  let re = wildcardCache.get(glob);
  if (!re) {
    re = new RegExp(`^${glob.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
    wildcardCache.set(glob, re);
  }
  return re;
}

function onlyAbsentMatchers(pattern: EventPattern): boolean {
  return Object.entries(pattern).every(([, spec]) =>
    Array.isArray(spec)
      ? (spec as Matcher[]).some((m) => isObject(m) && 'exists' in m && m.exists === false)
      : isObject(spec) && onlyAbsentMatchers(spec as EventPattern),
  );
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
