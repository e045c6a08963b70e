import { didYouMean } from './did-you-mean.ts';
import { cssSyntaxError, xpathSyntaxError } from './selector-syntax-css-xpath.ts';

/**
 * A syntax check of Playwright selector strings, with no dependency on Playwright, so a
 * malformed selector (`div[[`, `//div[`, an unclosed quote) is refused when a test is
 * saved, naming what is wrong, rather than failing first inside Chromium when it runs.
 *
 * The rule is one-sided: it must never refuse a selector Playwright accepts
 * (test/execution/ui/selector-syntax.test.ts runs its examples through real Chromium), so
 * where the grammar is open (pseudo-class names, what an engine does with its body) it
 * says nothing. It follows Playwright's own parser (packages/isomorphic/selectorParser.ts
 * in playwright-core 1.65): `>>` splits a chain outside quotes; a part is `engine=body`
 * when what precedes the first `=` is an engine-like name, text when it is quoted, XPath
 * when it starts with `//` or `..`, and CSS otherwise.
 */

/** Playwright's built-in engines (server Selectors._builtinEngines), and svc's own fingerprint engine. */
const ENGINES = [
  'css', 'css:light', 'xpath', 'xpath:light', '_react', '_vue', 'text', 'text:light', 'id', 'id:light', 'data-testid', 'data-testid:light',
  'data-test-id', 'data-test-id:light', 'data-test', 'data-test:light', 'nth', 'visible', 'internal:control', 'internal:has', 'internal:has-not',
  'internal:has-text', 'internal:has-not-text', 'internal:and', 'internal:or', 'internal:chain', 'role', 'internal:attr', 'internal:label',
  'internal:text', 'internal:role', 'internal:testid', 'internal:describe', 'aria-ref', 'aria-template', 'svc_fp',
] as const;
const known = new Set<string>(ENGINES);
/** Engines whose body is another selector, as a JSON string. */
const NESTED = new Set(['internal:has', 'internal:has-not', 'internal:and', 'internal:or', 'internal:chain']);
/** Engines whose body is `name[attr=value]…` (Playwright's parseAttributeSelector). */
const ATTRIBUTE_ENGINES = new Set(['role', 'internal:role', 'internal:attr', 'internal:testid']);
/** Engines whose body may be a /regular expression/flags. */
const TEXT_ENGINES = new Set(['text', 'text:light', 'internal:text', 'internal:has-text', 'internal:has-not-text', 'internal:label']);
/** The attributes the role engine knows (roleSelectorEngine.ts kSupportedAttributes). */
const ROLE_ATTRIBUTES = ['checked', 'description', 'disabled', 'expanded', 'include-hidden', 'level', 'name', 'pressed', 'selected'];

interface Part {
  name: string;
  body: string;
  /** The part as written, for messages. */
  source: string;
}

/**
 * Why a selector string cannot be a Playwright selector, or undefined when nothing wrong is
 * seen. A selector with a {{variable}} is not checked: what it becomes is known only when
 * the test runs.
 */
export function selectorSyntaxError(selector: string): string | undefined {
  if (selector.includes('{{')) return undefined;
  const problem = chainError(selector, false);
  return problem && `${SELECTOR_SYNTAX_PREFIX}${problem}`;
}

/** How every message of the check starts, so a caller can tell an input's malformed selector (a 400) from its own bug. */
export const SELECTOR_SYNTAX_PREFIX = 'not a valid selector: ';
export const isSelectorSyntaxMessage = (message: string): boolean => message.startsWith(SELECTOR_SYNTAX_PREFIX);

function chainError(selector: string, nested: boolean): string | undefined {
  const parts = splitChain(selector);
  if (typeof parts === 'string') return parts;
  for (const [i, part] of parts.entries()) {
    const at = parts.length > 1 ? ` (in part ${i + 1} of the >> chain, ${JSON.stringify(part.source.trim())})` : '';
    const problem = partError(part, i, parts.length);
    if (problem) return `${problem}${at}`;
  }
  if (NESTED.has(parts[0]!.name)) return `"${parts[0]!.name}" cannot be the first part of a selector${nested ? ' nested in another' : ''}`;
  return undefined;
}

/** Playwright's parseSelectorString: `>>` outside quotes separates parts; `*` marks the one captured. */
function splitChain(selector: string): Part[] | string {
  const pieces: string[] = [];
  let start = 0;
  let quote: string | undefined;
  // Playwright does not track quotes in a text= part's body (text=it's >> b still splits).
  const inTextBody = (i: number) => /^\s*text\s*=(.+)$/s.test(selector.slice(start, i));
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i]!;
    if (c === '\\' && i + 1 < selector.length) i++;
    else if (c === quote) quote = undefined;
    else if (!quote && (c === '"' || c === "'" || c === '`') && !inTextBody(i)) quote = c;
    else if (!quote && c === '>' && selector[i + 1] === '>') {
      pieces.push(selector.slice(start, i));
      start = i + 2;
      i++;
    }
  }
  pieces.push(selector.slice(start));
  const parts: Part[] = [];
  let captures = 0;
  for (const source of pieces) {
    const text = source.trim();
    const eq = text.indexOf('=');
    let name: string;
    let body: string;
    if (eq !== -1 && /^[a-zA-Z_0-9-+:*]+$/.test(text.slice(0, eq).trim())) [name, body] = [text.slice(0, eq).trim(), text.slice(eq + 1)];
    else if (text.length > 1 && ((text[0] === '"' && text.endsWith('"')) || (text[0] === "'" && text.endsWith("'")))) [name, body] = ['text', text];
    else if (/^\(*\/\//.test(text) || text.startsWith('..')) [name, body] = ['xpath', text];
    else [name, body] = ['css', text];
    if (name.startsWith('*')) {
      name = name.slice(1);
      captures++;
    }
    parts.push({ name, body, source });
  }
  if (captures > 1) return 'only one part of a >> chain can be marked with * (the element the chain captures)';
  return parts;
}

function partError(part: Part, index: number, count: number): string | undefined {
  const { name, body } = part;
  if (!known.has(name)) {
    const near = didYouMean(name, ENGINES.filter((e) => !e.startsWith('internal:') && e !== 'svc_fp'));
    // `div=x` reads as the engine "div": a CSS attribute test is written div[attr=x].
    return `unknown selector engine "${name}"${near ? `; did you mean "${near}"?` : ''} (a selector that starts with name= names an engine: css=, xpath=, text=, role=, id=, data-testid= …)`;
  }
  if (name === 'css' || name === 'css:light') return cssSyntaxError(body);
  if (name === 'xpath' || name === 'xpath:light') return xpathSyntaxError(body.trim());
  if (NESTED.has(name)) return nestedError(name, body);
  if (ATTRIBUTE_ENGINES.has(name)) return attributeSelectorError(body, name === 'role' || name === 'internal:role');
  if (TEXT_ENGINES.has(name)) return textRegexError(body.trim());
  if (name === 'internal:control' && body.trim() === 'enter-frame' && (index === 0 || index === count - 1)) return `a selector cannot ${index === 0 ? 'start' : 'end'} by entering a frame`;
  return undefined;
}

/** internal:has="…" and its kin: a JSON string holding a whole selector, checked in turn. */
function nestedError(name: string, body: string): string | undefined {
  let inner: unknown;
  try {
    inner = JSON.parse(`[${body}]`);
  } catch {
    return `${name}= takes a selector as a JSON string ("…" with \\" inside), got ${JSON.stringify(body)}`;
  }
  if (!Array.isArray(inner) || inner.length !== 1 || typeof inner[0] !== 'string') return `${name}= takes one selector as a JSON string, got ${JSON.stringify(body)}`;
  return chainError(inner[0], true);
}

/** text=/…/flags is a regular expression (when there is a closing slash). */
function textRegexError(body: string): string | undefined {
  const last = body.lastIndexOf('/');
  if (body[0] !== '/' || last <= 0) return undefined;
  return regexError(body.slice(1, last), body.slice(last + 1));
}

function regexError(source: string, flags: string): string | undefined {
  try {
    new RegExp(source, flags);
    return undefined;
  } catch (err) {
    return `the regular expression /${source}/${flags} is invalid (${(err as Error).message})`;
  }
}

const isNameChar = (c: string) => c >= '\x80' || /[0-9A-Za-z_-]/.test(c);

/**
 * Playwright's parseAttributeSelector, as the role= and internal:attr= engines read
 * their body: a name, then [attr], [attr=value], [attr=/regex/], [attr="text"i] ….
 */
function attributeSelectorError(selector: string, role: boolean): string | undefined {
  let p = 0;
  const eol = () => p >= selector.length;
  const next = () => selector[p] ?? '';
  const spaces = () => {
    while (!eol() && /\s/.test(next())) p++;
  };
  const fail = (what: string) => (eol() ? `${what}: the selector ends too early` : `${what}: unexpected ${JSON.stringify(next())} at position ${p + 1}`);
  const quoted = (): string | undefined => {
    const q = selector[p++];
    while (!eol() && next() !== q) p += next() === '\\' ? 2 : 1;
    if (eol()) return `unclosed ${q} quote`;
    p++;
    return undefined;
  };
  const identifier = () => {
    spaces();
    const from = p;
    while (!eol() && isNameChar(next())) p++;
    return selector.slice(from, p);
  };
  identifier();
  spaces();
  let attributes = 0;
  while (next() === '[') {
    p++;
    attributes++;
    spaces();
    const from = p;
    if (next() === '"' || next() === "'") {
      const problem = quoted();
      if (problem) return problem;
    } else if (!identifier()) return fail('expected an attribute name');
    const attr = selector.slice(from, p).replace(/^["']|["']$/g, '');
    if (role && !ROLE_ATTRIBUTES.includes(attr)) return `unknown role attribute "${attr}" (one of ${ROLE_ATTRIBUTES.join(', ')})`;
    spaces();
    while (next() === '.') {
      p++;
      if (!identifier()) return fail('expected a property name after .');
      spaces();
    }
    if (next() === ']') {
      p++;
      spaces();
      continue;
    }
    const op = ['*=', '^=', '$=', '|=', '~='].includes(selector.slice(p, p + 2)) ? selector.slice(p, p + 2) : next() === '=' ? '=' : undefined;
    if (!op) return fail(`expected ] or an operator (=, *=, ^=, $=, |=, ~=) after [${attr}`);
    p += op.length;
    spaces();
    if (next() === '/') {
      if (op !== '=') return `a regular expression needs =, not ${op}`;
      const start = ++p;
      let inClass = false;
      while (!eol() && (inClass || next() !== '/')) {
        if (next() === '\\') p++;
        else if (next() === '[') inClass = true;
        else if (next() === ']') inClass = false;
        p++;
      }
      if (eol()) return `unclosed regular expression in [${attr}=…]`;
      const source = selector.slice(start, p++);
      const flagsFrom = p;
      while (!eol() && /[dgimsuvy]/.test(next())) p++;
      const problem = regexError(source, selector.slice(flagsFrom, p));
      if (problem) return problem;
    } else if (next() === '"' || next() === "'") {
      const problem = quoted();
      if (problem) return `${problem} in [${attr}=…]`;
      spaces();
      if (/[iIsS]/.test(next())) p++;
    } else {
      while (!eol() && (isNameChar(next()) || next() === '+' || next() === '.')) p++;
    }
    spaces();
    if (next() !== ']') return fail(`expected ] to close [${attr}`);
    p++;
    spaces();
  }
  if (!eol()) return fail('expected [ or the end');
  if (!attributes && !selector.trim()) return 'the selector is empty';
  return undefined;
}
