/**
 * The CSS and XPath halves of the selector syntax check (selector-syntax.ts). Each looks
 * only for mistakes Playwright or Chromium always refuses — unbalanced brackets and
 * parentheses, unclosed quotes, a nested `[`, an empty `[]` or `()`, a dangling
 * combinator, operator or comma — and leaves the open parts of the grammar (pseudo-class
 * names, functions' arguments) to the browser, so it never refuses a selector that works.
 */

const at = (i: number) => `at character ${i + 1}`;
/** Where a CSS identifier may start (after #, ., :). */
const identStart = (c: string | undefined) => c !== undefined && (c >= '\x80' || /[A-Za-z_\-\\]/.test(c));
const COMBINATORS = new Set(['>', '+', '~']);

/** Why a CSS selector (list) cannot be parsed, or undefined. */
export function cssSyntaxError(css: string): string | undefined {
  if (!css.trim()) return 'the selector is empty';
  const open: Array<{ c: '[' | '('; i: number }> = [];
  /** At the top level: whether the current compound has started, and a combinator waiting for one. */
  let compound = false;
  let combinator: number | undefined;
  let listItemStart = true;
  for (let i = 0; i < css.length; i++) {
    const c = css[i]!;
    const top = open[open.length - 1];
    const depth = open.length;
    if (c === '\\') {
      i++;
      compound = true;
      continue;
    }
    if (c === '"' || c === "'") {
      const end = closingQuote(css, i);
      if (end === -1) return `unclosed ${c} quote ${at(i)}`;
      i = end;
      continue;
    }
    if (top?.c === '[') {
      if (c === '[') return `"[" ${at(i)} inside the attribute selector opened ${at(top.i)} (a literal [ is written \\[)`;
      if (c === ']') {
        const problem = attributeError(css.slice(top.i + 1, i));
        if (problem) return `${problem} in "${css.slice(top.i, i + 1)}" ${at(top.i)}`;
        open.pop();
      }
      continue;
    }
    if (c === '[') {
      open.push({ c, i });
      if (!depth) [compound, combinator, listItemStart] = [true, undefined, false];
      continue;
    }
    if (c === ']') return `"]" ${at(i)} closes nothing`;
    if (c === '(') {
      if (!/:(?:[A-Za-z0-9_\-\x80-\uffff]|\\.)+$/.test(css.slice(0, i))) return `"(" ${at(i)} does not follow a pseudo-class name such as :not or :has-text`;
      open.push({ c, i });
      continue;
    }
    if (c === ')') {
      if (top?.c !== '(') return `")" ${at(i)} closes nothing`;
      if (!css.slice(top.i + 1, i).trim()) return `empty "()" ${at(top.i)}: the pseudo-class needs an argument`;
      open.pop();
      continue;
    }
    if (c === '{' || c === '}' || c === ';') return `"${c}" ${at(i)} cannot appear in a selector (it belongs to a stylesheet)`;
    if (c === ':' || c === '#' || c === '.') {
      const after = css[i + 1];
      if (c === ':' && after === ':') return `pseudo-element "::" ${at(i)}: an element is located, not a part of one (::before, ::after cannot be matched)`;
      if (c === '.' && depth && /[0-9]/.test(after ?? '')) continue; // a number in :nth-child(…) or a function's argument
      if (c === '#' && after !== undefined && /[0-9]/.test(after)) return `"#${after}…" ${at(i)}: an id selector cannot start with a digit (write [id="…"] instead)`;
      if (!identStart(after)) return `"${c}" ${at(i)} must be followed by a name`;
    }
    if (depth) continue;
    // Top level: commas, combinators and the characters CSS has no use for there.
    if (c === ',') {
      if (listItemStart || combinator !== undefined) return `${listItemStart ? 'empty selector before' : 'a combinator with nothing after it before'} the comma ${at(i)}`;
      [compound, combinator, listItemStart] = [false, undefined, true];
    } else if (COMBINATORS.has(c)) {
      if (combinator !== undefined) return `two combinators in a row ${at(combinator)} and ${at(i)}`;
      combinator = i;
      compound = false;
      listItemStart = false;
    } else if (/\s/.test(c)) {
      compound = false;
    } else if (c === '*' && identStart(css[i + 1]) && css[i + 1] !== '\\') {
      return `"*${css[i + 1]}…" ${at(i)}: * is the universal selector, not a prefix (write "* ${css.slice(i + 1).split(/[\s>+~,]/)[0]}" for a descendant; *css=… marks the captured part of a >> chain)`;
    } else if ('!@$%^&`|=?</'.includes(c)) {
      return `"${c}" ${at(i)} is not valid here (outside an attribute selector such as [name${c === '=' ? '=' : '^='}…])`;
    } else {
      if (!compound) combinator = undefined;
      [compound, listItemStart] = [true, false];
    }
  }
  const unclosed = open[open.length - 1];
  if (unclosed) return `"${unclosed.c}" ${at(unclosed.i)} is never closed (a missing "${unclosed.c === '[' ? ']' : ')'}")`;
  if (combinator !== undefined) return `the selector ends with the combinator "${css[combinator]}" ${at(combinator)}, with nothing after it`;
  if (listItemStart) return 'the selector ends with a comma';
  return undefined;
}

/** The index of the quote closing the one at `from` (backslash escapes), or -1. */
function closingQuote(s: string, from: number): number {
  for (let i = from + 1; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === s[from]) return i;
  }
  return -1;
}

/** The inside of an attribute selector: `name`, or `name op value` with an optional i/s flag; a namespace prefix (`*|`, `ns|`) is allowed. */
function attributeError(inside: string): string | undefined {
  const m = /^\s*((?:[*A-Za-z0-9_\-\x80-\uffff]|\\.)*\|)?((?:[A-Za-z0-9_\-\x80-\uffff]|\\.)+)\s*(.*)$/s.exec(inside);
  if (!m || /^[0-9]|^-[0-9]/.test(m[2]!)) return inside.trim() ? 'the attribute name is missing or not a name' : 'empty "[]": give an attribute name';
  const rest = m[3]!;
  if (!rest) return undefined;
  const op = /^([~|^$*]?=)\s*(.*)$/s.exec(rest);
  if (!op) return `expected ] or an operator (=, ~=, |=, ^=, $=, *=) after the attribute name, found ${JSON.stringify(rest[0])}`;
  const value = op[2]!;
  if (!value.trim()) return `the value after "${op[1]}" is missing`;
  // A value is a quoted string or a run of name characters; an i or s flag may follow.
  const v = /^(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|(?:[^\s"'\\]|\\.)+)\s*(.*)$/s.exec(value);
  if (!v) return 'the attribute value cannot be read';
  if (v[1] && !/^[iIsS]\s*$/.test(v[1])) return `after the value only an i or s flag may follow, found ${JSON.stringify(v[1].trim())} (quote a value with spaces: [name="a b"])`;
  return undefined;
}

/** Why an XPath expression cannot be parsed, or undefined. */
export function xpathSyntaxError(xpath: string): string | undefined {
  if (!xpath) return 'the XPath expression is empty';
  const open: Array<{ c: '[' | '('; i: number }> = [];
  let last: { c: string; i: number } | undefined;
  for (let i = 0; i < xpath.length; i++) {
    const c = xpath[i]!;
    if (c === '"' || c === "'") {
      // XPath strings have no escapes: a quote ends at the next one of its kind.
      const end = xpath.indexOf(c, i + 1);
      if (end === -1) return `unclosed ${c} quote ${at(i)} in the XPath`;
      last = { c, i: end };
      i = end;
      continue;
    }
    if (c === '[' || c === '(') open.push({ c, i });
    else if (c === ']' || c === ')') {
      const top = open.pop();
      const want = c === ']' ? '[' : '(';
      if (top?.c !== want) return `"${c}" ${at(i)} in the XPath ${top ? `does not match the "${top.c}" ${at(top.i)}` : 'closes nothing'}`;
      if (c === ']' && !xpath.slice(top.i + 1, i).trim()) return `empty predicate "[]" ${at(top.i)} in the XPath`;
    }
    if (!/\s/.test(c)) last = { c, i };
  }
  const unclosed = open[open.length - 1];
  if (unclosed) return `"${unclosed.c}" ${at(unclosed.i)} in the XPath is never closed (a missing "${unclosed.c === '[' ? ']' : ')'}")`;
  if (last && xpath.trim() !== '/' && '/|@=,+<>!:'.includes(last.c)) return `the XPath ends with "${last.c}" ${at(last.i)}, which needs something after it`;
  return undefined;
}
