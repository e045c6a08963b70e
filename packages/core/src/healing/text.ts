/**
 * Text hygiene shared by the parser and the similarity functions. Everything the engine
 * compares goes through here, so hostile input (lone surrogates, control characters,
 * megabyte strings) is made harmless once, at the edge of the engine.
 */

/** Longest string the engine keeps from any fingerprint field. */
export const MAX_FIELD_CHARS = 2_000;

// Control characters other than tab/newline carry no meaning for matching and can break
// terminals and logs when echoed back.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/**
 * Makes an arbitrary string safe: well-formed UTF-16 (lone surrogates become U+FFFD),
 * control characters dropped, at most `max` characters (never splitting a surrogate pair).
 */
export function sanitize(s: string, max = MAX_FIELD_CHARS): string {
  let out = s.length > max * 2 ? s.slice(0, max * 2) : s;
  out = out.toWellFormed().replace(CONTROL, ' ');
  if (out.length > max) {
    let end = max;
    const c = out.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff) end -= 1; // keep surrogate pairs whole
    out = out.slice(0, end);
  }
  return out;
}

/** Comparison form of human text: NFKC, lower case, whitespace collapsed (NBSP included). */
export function normText(s: string | undefined): string {
  if (!s) return '';
  return s.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Words of a text: runs of letters or digits, lower case. */
export function words(s: string): string[] {
  return s.match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * Tokens of an identifier: split on punctuation, camelCase and letter/digit boundaries,
 * so `loginBtn2`, `login-btn` and `login_button` share the token `login`.
 */
export function identTokens(s: string): string[] {
  const spaced = s
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})|(\p{N})(\p{L})/gu, (_m, a, b, c, d) => (a ? `${a} ${b}` : `${c} ${d}`));
  return words(spaced.toLowerCase());
}

/** Replaces every run of digits by `#`: counters and prices change between versions. */
export function maskDigits(s: string): string {
  return s.replace(/\p{N}+/gu, '#');
}

/**
 * True when a token looks machine-generated (hashes, counters, framework ids such as
 * `ember1234`, `css-1x9fz3`, `:r4:`): such values change on every build, so a mismatch on
 * them says little, while a match still says a lot.
 */
export function looksGenerated(s: string): boolean {
  if (!s) return false;
  if (/\d{4,}/.test(s)) return true; // long counters
  if (/[0-9a-f]{8,}/i.test(s) && /\d/.test(s) && /[a-f]/i.test(s)) return true; // hex hashes
  if (/^:[a-z]?\w*:$/i.test(s)) return true; // React useId
  // short mixed-case/digit hashes as CSS-in-JS emits them: css-1x9fz3, sc-bdVaJa, jsx-123abc
  if (/(^|[-_])(css|sc|jsx|emotion|styled|svelte|ng-tns|mui)[-_][a-z0-9]{4,}/i.test(s)) return true;
  const tail = /[-_]([a-z0-9]{5,})$/i.exec(s)?.[1];
  return !!tail && /\d/.test(tail) && /[a-z]/i.test(tail) && !/^[a-z]+\d{1,2}$/i.test(tail);
}
