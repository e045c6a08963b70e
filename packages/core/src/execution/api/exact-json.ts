/**
 * JSON with its big integers kept exact. JavaScript reads a JSON number as a double, so an
 * integer beyond 2^53 comes out as another number (9007199254740993 → …992): an id check
 * passed against the wrong digits, and a saved id sent back was another id (found by QA).
 * Such integers are read as their exact digits, as text — as a database's bigint is — so
 * `equals: "9007199254740993"` checks them and a saved one is sent back unchanged.
 * Fractions and exponents stay doubles: they are approximate by nature.
 */
export function parseJsonExact(text: string): unknown {
  // The common case costs one scan: no run of 16 digits, no integer beyond 2^53.
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  return JSON.parse(quoteUnsafeIntegers(text));
}

/** Whether a value read by parseJsonExact holds an integer kept as text (a schema check reads the number instead). */
export function isExactIntegerText(value: unknown): value is string {
  return typeof value === 'string' && /^-?\d{16,}$/.test(value) && !Number.isSafeInteger(Number(value));
}

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/y;

/** The text with every integer literal beyond 2^53 (outside strings) in quotes. */
function quoteUnsafeIntegers(text: string): string {
  const parts: string[] = [];
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string, escapes included; an unterminated one is JSON.parse's to report.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c /* \ */) i++;
      i++;
      continue;
    }
    if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i;
      const token = NUMBER.exec(text)?.[0];
      if (!token) {
        i++;
        continue;
      }
      if (/^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token))) {
        parts.push(text.slice(copied, i), `"${token}"`);
        copied = i + token.length;
      }
      i += token.length;
      continue;
    }
    i++;
  }
  parts.push(text.slice(copied));
  return parts.join('');
}
