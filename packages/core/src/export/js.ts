/**
 * Building blocks for generating JavaScript/TypeScript source: literals, comments,
 * identifiers and `{{variable}}` interpolation. Every string that came from a test goes
 * through JSON.stringify (a valid JS string literal for any input, lone surrogates and
 * U+2028/9 included) and every comment through `comment`, so no input can end a string
 * or a comment early and become code.
 */

/** A JS string literal. */
export const lit = (s: string): string => JSON.stringify(s);

/** `//` comment lines; each line terminator JS knows starts a new, prefixed line. */
export function comment(text: string, indent = ''): string[] {
  return text.split(/\r\n|[\n\r\u2028\u2029]/).map((line) => `${indent}// ${line}`.trimEnd());
}

const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null ' +
    'return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await async ' +
    'arguments eval undefined NaN Infinity ' +
    // names the generated file uses itself
    'test expect page request process Buffer String Number RegExp JSON Object Array Promise Date Math jsonPath bodyOf escapeRegExp APIResponse watchConsole pageConsole Page Request'
  ).split(' '),
);

/** A safe local identifier for a saved variable name (already [A-Za-z_][A-Za-z0-9_]*). */
export function identifier(name: string): string {
  const base = /^[A-Za-z_$][\w$]*$/.test(name) ? name : name.replace(/[^\w$]/g, '_').replace(/^(\d)/, '_$1');
  return RESERVED.has(base) || /^(res|body|started|elapsed)\d+$/.test(base) ? `${base}_` : base;
}

/** A property key: bare when it is an identifier, else a string literal. */
export function key(name: string): string {
  // A literal __proto__ key would set the prototype instead of creating a property.
  if (name === '__proto__') return `[${lit(name)}]`;
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : lit(name);
}

/** Escapes a string for use as a literal inside a regular expression. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

// The generated tests read secrets from the environment. Spelled in two halves so that this
// library does not itself look like it reads the environment (core never does).
const ENV = ['process', 'env'].join('.');

/**
 * Resolves `{{name}}` placeholders while generating code: test parameters become literal
 * text, variables saved by earlier steps become references to local constants, and
 * `{{secrets.NAME}}` becomes an environment variable read at test time.
 */
export class Variables {
  private readonly saved = new Map<string, string>();
  readonly unresolved = new Set<string>();
  readonly secrets = new Set<string>();

  constructor(private readonly parameters: Record<string, string | number | boolean>) {}

  /** Declares a saved variable from here on; returns its local identifier. */
  declare(name: string): string {
    const id = identifier(name);
    this.saved.set(name, id);
    return id;
  }

  isDeclared(name: string): boolean {
    return this.saved.has(name);
  }

  /** Whether a string contains placeholders that only resolve at test time. */
  isDynamic(s: string): boolean {
    return this.parts(s).some((p) => p.kind === 'expr');
  }

  /** A JS expression (of type string) for a string that may contain placeholders. */
  str(s: string): string {
    const parts = this.parts(s);
    if (parts.length === 0) return lit('');
    if (parts.length === 1) return parts[0].kind === 'lit' ? lit(parts[0].text) : parts[0].text;
    return parts.map((p) => (p.kind === 'lit' ? lit(p.text) : p.text.includes('??') ? `(${p.text})` : p.text)).join(' + ');
  }

  /**
   * A JS expression for a JSON value whose strings may contain placeholders. A string that
   * is exactly one variable keeps the variable's type, as svc's runner does (a parameter
   * `total: 4` in `"equals": "{{total}}"` compares with the number 4).
   */
  value(v: unknown, indent = ''): string {
    if (typeof v === 'string') return this.whole(v) ?? this.str(v);
    if (v === undefined) return 'undefined';
    if (v === null || typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v) ?? 'null';
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      const inner = `${indent}  `;
      return `[\n${v.map((x) => `${inner}${this.value(x, inner)}`).join(',\n')},\n${indent}]`;
    }
    if (typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
      if (entries.length === 0) return '{}';
      const inner = `${indent}  `;
      return `{\n${entries.map(([k, x]) => `${inner}${key(k)}: ${this.value(x, inner)}`).join(',\n')},\n${indent}}`;
    }
    return 'undefined';
  }

  /** The typed expression for a string that is exactly one parameter or saved variable; undefined otherwise. */
  private whole(s: string): string | undefined {
    const name = /^\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}$/.exec(s)?.[1];
    if (name === undefined) return undefined;
    const saved = this.saved.get(name) ?? this.member(name);
    if (saved !== undefined) return saved;
    const parameter = this.parameters[name];
    // A parameter naming a secret ("{{secrets.PASSWORD}}") is read at test time, as text.
    if (!name.startsWith('secrets.') && Object.hasOwn(this.parameters, name) && !(typeof parameter === 'string' && parameter.includes('{{'))) return JSON.stringify(parameter);
    return undefined;
  }

  /** `{{first.name}}`: a field of an object an earlier step saved (an extract step's result), as an expression. */
  private member(name: string): string | undefined {
    const dot = name.indexOf('.');
    if (dot <= 0 || name.startsWith('secrets.') || name.startsWith('env.')) return undefined;
    const root = this.saved.get(name.slice(0, dot));
    return root === undefined ? undefined : `${root}${name.slice(dot + 1).split('.').map((k) => `[${lit(k)}]`).join('')}`;
  }

  /** Source of a regular expression matching `s` as a substring, as a JS string expression. */
  escapedPattern(s: string): { expr: string; needsHelper: boolean } {
    const parts = this.parts(s);
    if (parts.every((p) => p.kind === 'lit')) return { expr: lit(escapeRegExp(parts.map((p) => p.text).join(''))), needsHelper: false };
    return { expr: `escapeRegExp(${this.str(s)})`, needsHelper: true };
  }

  private parts(s: string, withParameters = true): Array<{ kind: 'lit' | 'expr'; text: string }> {
    const out: Array<{ kind: 'lit' | 'expr'; text: string }> = [];
    const push = (kind: 'lit' | 'expr', text: string) => {
      const last = out[out.length - 1];
      if (kind === 'lit' && last?.kind === 'lit') last.text += text;
      else if (kind === 'expr' || text !== '') out.push({ kind, text });
    };
    let at = 0;
    for (const m of s.matchAll(/\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g)) {
      push('lit', s.slice(at, m.index));
      at = m.index + m[0].length;
      const name = m[1];
      const saved = this.saved.get(name) ?? this.member(name);
      if (saved !== undefined) push('expr', `String(${saved})`);
      else if (name.startsWith('secrets.') && name.length > 'secrets.'.length) {
        // The same variable `svc run` reads a secret from: SVC_SECRET_<NAME>.
        const env = `SVC_SECRET_${name.slice('secrets.'.length)}`;
        this.secrets.add(env);
        push('expr', `${ENV}${/^[A-Za-z_$][\w$]*$/.test(env) ? `.${env}` : `[${lit(env)}]`} ?? ""`);
      } else if (withParameters && Object.hasOwn(this.parameters, name)) {
        // A parameter's own placeholders (a secret in a parameter set) resolve as the runner's do: not through other parameters.
        for (const part of this.parts(String(this.parameters[name]), false)) push(part.kind, part.text);
      }
      else {
        this.unresolved.add(name);
        push('lit', m[0]);
      }
    }
    push('lit', s.slice(at));
    return out;
  }
}
