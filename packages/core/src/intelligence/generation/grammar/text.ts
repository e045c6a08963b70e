/**
 * Text clean-up before matching: typographic quotes become plain ones, list markers and
 * Gherkin keywords are peeled off, and quoted values are lifted out so the patterns only
 * ever see the words around them ("click ⟦0⟧ button").
 */

/** “smart” and ‘single’ quotes, and the guillemets some editors insert, as plain quotes. */
export function normalizeQuotes(s: string): string {
  return s
    .replace(/[\u201C\u201D\u201E\u201F\u00AB\u00BB\u2033]/g, '"')
    .replace(/[\u2018\u2019\u201A\u201B\u2032]/g, "'")
    .replace(/\u00A0/g, ' ');
}

export interface Lifted {
  /** The sentence with each quoted value replaced by ⟦n⟧. */
  template: string;
  /** The quoted values, in order. */
  values: string[];
}

const SLOT = (n: number) => `\u27E6${n}\u27E7`;
export const SLOT_RE = '\u27E6(\\d+)\u27E7';

/**
 * Lifts "double", 'single' and `backtick` quoted values out of a sentence. A single
 * quote counts as a quote only at a word boundary, so "don't" and "user's" stay words.
 * JSON bodies ({…} or […]) are lifted whole, braces balanced, quotes inside kept.
 */
export function liftQuoted(sentence: string): Lifted {
  const values: string[] = [];
  let out = '';
  let i = 0;
  const s = sentence;
  while (i < s.length) {
    const ch = s[i];
    if ((ch === '{' || ch === '[') && /(^|\s|:)$/.test(out)) {
      const end = balancedEnd(s, i);
      if (end > i) {
        values.push(s.slice(i, end + 1));
        out += SLOT(values.length - 1);
        i = end + 1;
        continue;
      }
    }
    // Unquoted URLs and paths ("GET /api/items", "open https://x") are values too: their case matters.
    if ((ch === '/' || s.startsWith('http://', i) || s.startsWith('https://', i)) && (i === 0 || /\s/.test(s[i - 1]))) {
      let end = i;
      while (end < s.length && !/\s/.test(s[end])) end++;
      let token = s.slice(i, end);
      token = token.replace(/[.,;:!?)]+$/, '');
      if (token.length > 1 || token === '/') {
        values.push(token);
        out += SLOT(values.length - 1);
        i += token.length;
        continue;
      }
    }
    const isQuote = ch === '"' || ch === '`' || (ch === "'" && (i === 0 || /[\s(:,=]/.test(s[i - 1])));
    if (isQuote) {
      const close = findClose(s, i + 1, ch);
      if (close > i) {
        values.push(s.slice(i + 1, close).replace(/\\(["'`\\])/g, '$1'));
        out += SLOT(values.length - 1);
        i = close + 1;
        continue;
      }
    }
    out += ch;
    i++;
  }
  return { template: out, values };
}

function findClose(s: string, from: number, q: string): number {
  for (let j = from; j < s.length; j++) {
    if (s[j] === '\\') {
      j++;
      continue;
    }
    if (s[j] !== q) continue;
    // A closing single quote must end a word: "it's" inside 'it's fine' is ambiguous, so take the last boundary quote.
    if (q === "'" && j + 1 < s.length && /[A-Za-z0-9]/.test(s[j + 1])) continue;
    return j;
  }
  return -1;
}

function balancedEnd(s: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let j = start; j < s.length; j++) {
    const c = s[j];
    if (inString) {
      if (c === '\\') j++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') stack.push(c === '{' ? '}' : ']');
    else if (c === '}' || c === ']') {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return j;
    }
  }
  return -1;
}

/** Puts quoted values back (for messages). */
export function restore(template: string, values: string[]): string {
  return template.replace(new RegExp(SLOT_RE, 'g'), (_, n) => JSON.stringify(values[Number(n)]));
}

/** A leading list marker: "1.", "2)", "-", "*", "•", "Step 3:". */
const LIST_MARKER = /^\s*(?:(?:step\s+)?\d+\s*[.):-]\s+|[-*•+]\s+)/i;

export function stripListMarker(line: string): string {
  return line.replace(LIST_MARKER, '');
}

export type GherkinKeyword = 'given' | 'when' | 'then' | 'and' | 'but';

/** Peels a Gherkin keyword (Given/When/Then/And/But) off the front of a line. */
export function stripGherkin(line: string): { keyword?: GherkinKeyword; rest: string } {
  const m = /^\s*(given|when|then|and|but)\b[\s,:]*/i.exec(line);
  if (!m) return { rest: line };
  return { keyword: m[1].toLowerCase() as GherkinKeyword, rest: line.slice(m[0].length) };
}

/**
 * Words that carry no instruction: the subject ("I", "the user"), politeness and
 * modal verbs ("should", "is able to"), so "the user should be able to click X" reads
 * as "click X". Operates on the lower-cased template (quoted values are slots).
 */
export function simplify(template: string): string {
  let t = ` ${template.toLowerCase()} `
    .replace(/[’]/g, "'")
    .replace(/\s+/g, ' ')
    .replace(/[.!;]+\s*$/, ' ')
    .replace(/[.!;]+ $/, ' ');
  t = t.replace(/^ (?:then |and |but )?(?:i|we|you|they|he|she|the user|a user|user|the visitor|a visitor|the customer|a customer|the admin|an admin|the tester|someone)(?:'m| am| are| is)? /, ' ');
  t = t.replace(/^ (?:please |now |also |then |finally |first |next |after that |afterwards )+/, ' ');
  t = t.replace(/ (?:should|must|shall|will|can|could|need to|needs to|have to|has to|want to|wants to|try to|tries to|be able to|am able to|is able to|are able to)(?= )/g, '');
  t = t.replace(/ (?:still|now|then|also|immediately|successfully) /g, ' ');
  return t.replace(/\s+/g, ' ').trim();
}

/** Third-person and -ing verbs to the imperative ("clicks" → "click", "filling in" → "fill in"). */
const VERBS: Record<string, string> = {
  clicks: 'click', clicking: 'click', clicked: 'click', taps: 'click', tap: 'click', tapping: 'click', tapped: 'click', presses: 'press', pressing: 'press', pressed: 'press', hits: 'press', hit: 'press',
  fills: 'fill', filling: 'fill', filled: 'fill', enters: 'enter', entering: 'enter', entered: 'enter', types: 'type', typing: 'type', typed: 'type', inputs: 'enter', input: 'enter',
  selects: 'select', selecting: 'select', selected: 'select', chooses: 'choose', choosing: 'choose', chose: 'choose', picks: 'pick', picking: 'pick', picked: 'pick',
  checks: 'check', checking: 'check', ticks: 'tick', ticking: 'tick', unchecks: 'uncheck', unchecking: 'uncheck', unticks: 'untick',
  goes: 'go', going: 'go', went: 'go', navigates: 'navigate', navigating: 'navigate', navigated: 'navigate', opens: 'open', opening: 'open', opened: 'open', visits: 'visit', visiting: 'visit', visited: 'visit', loads: 'load', browses: 'browse',
  sees: 'see', seeing: 'see', hovers: 'hover', hovering: 'hover', submits: 'submit', submitting: 'submit', double_clicks: 'double-click', 'double-clicks': 'double-click', doubleclicks: 'double-click',
  sends: 'send', sending: 'send', sent: 'send', requests: 'request', calls: 'call', calling: 'call', gets: 'get', posts: 'post', puts: 'put', deletes: 'delete', patches: 'patch',
  waits: 'wait', waiting: 'wait', scrolls: 'scroll', scrolling: 'scroll', adds: 'add', adding: 'add', creates: 'create', creating: 'create', uploads: 'upload', logs: 'log', signs: 'sign',
  verifies: 'verify', expects: 'expect', ensures: 'ensure', confirms: 'confirm', asserts: 'assert', completes: 'complete', marks: 'mark', toggles: 'toggle', reloads: 'reload', refreshes: 'refresh',
};

export function imperative(t: string): string {
  return t.replace(/^([a-z_-]+)\b/, (w) => VERBS[w] ?? w);
}

/** Splits text into trimmed, numbered lines (1-based), keeping blank-line positions out. */
export function numberedLines(text: string): Array<{ line: number; text: string }> {
  return normalizeQuotes(text)
    .split(/\r?\n/)
    .map((t, i) => ({ line: i + 1, text: t.trim() }))
    .filter((l) => l.text !== '' && !l.text.startsWith('#') && !l.text.startsWith('//'));
}
