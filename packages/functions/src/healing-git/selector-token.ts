/**
 * The identifying token of a broken selector: the string a commit must have removed for
 * the selector to break. `#login-btn` → id "login-btn"; `[data-testid=x]` → "x";
 * `.primary` → class "primary"; `text=Sign in` or a bare phrase → the text itself. For a
 * compound selector the most specific part wins: test id, then id, then other attribute,
 * then class.
 */
export interface SelectorToken {
  token: string;
  kind: 'test-id' | 'id' | 'attribute' | 'class' | 'text';
  /** Attribute name for attribute and test-id tokens. */
  attribute?: string;
}

const testIdAttr = /^data-(testid|test-id|test|cy|qa)$/i;

export function selectorToken(selector: string): SelectorToken | null {
  const s = selector.trim();
  if (!s) return null;
  const text = /^(?:text=|text:|getByText\()\s*["']?(.+?)["']?\)?$/i.exec(s);
  if (text) return { token: text[1], kind: 'text' };
  // role=button[name="Sign in"]: the accessible name is the visible text.
  const role = /^role=[\w-]+\[name\s*=\s*["']?([^"'\]]+)["']?\]/i.exec(s);
  if (role) return { token: role[1], kind: 'text' };
  const attrs = [...s.matchAll(/\[\s*([\w:-]+)\s*[~|^$*]?=\s*(?:"([^"]*)"|'([^']*)'|([^\]\s]+))\s*\]/g)].map((m) => ({ name: m[1], value: m[2] ?? m[3] ?? m[4] }));
  const testId = attrs.find((a) => testIdAttr.test(a.name));
  if (testId?.value) return { token: testId.value, kind: 'test-id', attribute: testId.name };
  const ids = [...s.matchAll(/#(-?[A-Za-z_][\w-]*)/g)];
  if (ids.length) return { token: ids.at(-1)![1], kind: 'id' };
  const other = attrs.filter((a) => a.value).at(-1);
  if (other) return { token: other.value, kind: other.name === 'id' ? 'id' : 'attribute', attribute: other.name };
  const classes = [...s.replace(/\[[^\]]*\]/g, '').matchAll(/\.(-?[A-Za-z_][\w-]*)/g)];
  if (classes.length) return { token: classes.at(-1)![1], kind: 'class' };
  // No CSS syntax at all: treat it as visible text.
  if (!/[#.[\]>:=()]/.test(s)) return { token: s.replace(/^["']|["']$/g, ''), kind: 'text' };
  return null;
}

/** The selector with its token replaced, keeping the selector's own syntax. */
export function replaceToken(selector: string, t: SelectorToken, next: string): string {
  const idx = selector.lastIndexOf(t.token);
  if (idx < 0) return selector;
  return selector.slice(0, idx) + next + selector.slice(idx + t.token.length);
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Occurrences of the token as a whole value (not a prefix of a longer one): `login-btn`
 * must not match inside `login-btn-2`.
 */
export function tokenPattern(t: SelectorToken): RegExp {
  const edge = t.kind === 'text' ? '' : '[\\w-]';
  return edge ? new RegExp(`(?<!${edge})${escapeRe(t.token)}(?!${edge})`) : new RegExp(escapeRe(t.token));
}
