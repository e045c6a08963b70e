import type { Step } from '../../../contracts/steps.ts';
import { imperative, liftQuoted, simplify, stripGherkin, stripListMarker, SLOT_RE, type GherkinKeyword } from './text.ts';
import { patterns, type MatchContext, type Pattern } from './patterns.ts';
import { apiPatterns, parseRequest } from './api-patterns.ts';
import { mockPatterns } from './mock-patterns.ts';

export type Section = 'given' | 'when' | 'then';

export interface SentenceMatch {
  ok: true;
  steps: Step[];
  /** Pattern ids used (several when the sentence was split at "and"). */
  patterns: string[];
  certainty: number;
}
export interface SentenceMiss {
  ok: false;
  reason: string;
  /** The supported sentence closest to what was written. */
  closest: string;
}

const ALL: Pattern[] = [...patterns, ...apiPatterns, ...mockPatterns];
const MOCKING = /\b(?:mock|stub|fake)(?:s|ed)?\b/;

/** "Verify that", "make sure", "expect" … mark a check; what follows is matched like any sentence. */
const ASSERT_PREFIX = /^(?:expect(?:ing)?|verify|assert|ensure|confirm|validate|make sure|check (?:that|if|whether)|see that|observe that|it is expected that)(?: that| if| whether)? /;

/** Reads one sentence (a line without its list marker). `section` comes from Given/When/Then. */
export function parseSentence(raw: string, section?: Section): SentenceMatch | SentenceMiss {
  const { keyword, rest } = stripGherkin(stripListMarker(raw));
  const sec = sectionOf(keyword, section);
  const { template: lifted, values } = liftQuoted(rest.trim());
  // One space for any run of whitespace: the patterns below start with \s*, and a long run
  // made each try at each position rescan it (90,000 spaces held the server 6 s; found by QA).
  const template = lifted.replace(/\s+/g, ' ');
  const ctx: MatchContext = { values, section: sec };
  const whole = matchTemplate(template, ctx);
  if (whole.ok) return whole;
  // "type "milk" into "New todo" and press Enter": each part on its own.
  const parts = template.split(/\s*(?:,\s*and then|,\s*then|\band then|\bthen|,\s*and|\band|;|,)\s+/i).map((p) => p.trim()).filter(Boolean);
  if (parts.length > 1) {
    const matches = parts.map((p) => matchTemplate(p, ctx));
    if (matches.every((m) => m.ok)) {
      const ok = matches as SentenceMatch[];
      return { ok: true, steps: ok.flatMap((m) => m.steps), patterns: ok.flatMap((m) => m.patterns), certainty: Math.min(...ok.map((m) => m.certainty)) * 0.95 };
    }
  }
  return whole;
}

function sectionOf(keyword: GherkinKeyword | undefined, current: Section | undefined): Section | undefined {
  if (keyword === 'given' || keyword === 'when' || keyword === 'then') return keyword;
  return current;
}

function normalise(template: string): string {
  let t = imperative(simplify(template));
  const stripped = t.replace(ASSERT_PREFIX, '');
  if (stripped !== t) t = imperative(simplify(stripped));
  return t;
}

function matchTemplate(template: string, ctx: MatchContext): SentenceMatch | SentenceMiss {
  const t = normalise(template);
  // "the POST /x endpoint is mocked to return 201" names a request the test fakes, not one it sends.
  const request = MOCKING.test(t) ? undefined : parseRequest(t, ctx);
  if (request && !('error' in request)) return { ok: true, steps: request, patterns: ['request'], certainty: 1 };
  if (request && 'error' in request) return { ok: false, reason: request.error, closest: 'POST /api/items with {"name": "lamp"} returns 201' };
  for (const p of ALL) {
    if (p.sections && ctx.section && !p.sections.includes(ctx.section)) continue;
    const m = p.re.exec(t);
    if (!m) continue;
    const built = p.build(m, ctx);
    if ('error' in built) return { ok: false, reason: built.error, closest: p.example };
    const empty = emptyTarget(p, m, ctx);
    if (empty) return { ok: false, reason: empty, closest: p.example };
    return { ok: true, steps: built, patterns: [p.id], certainty: p.certainty };
  }
  return { ok: false, reason: 'no supported sentence pattern matches', closest: closestExample(t) };
}

// ---------------------------------------------------------------- empty quoted values

// Letters only: it survives lower-casing, slugs, JSON and regex escaping inside selectors.
const EMPTY_MARK = 'svcemptyquotedvalue';

/**
 * An empty quoted value ("") may be what is typed or the value a field or response field
 * should hold; anywhere else it names nothing: `click ""` clicked whatever button the union
 * matched first, `expect text ""` and `expect title ""` passed on any page, and `GET ""`
 * answered 500 (found by QA). The pattern is built again with a marker in each empty slot:
 * a marker outside a fill/type value or an `equals` of a value or response-field check is
 * the reason the sentence is not understood.
 */
function emptyTarget(p: (typeof ALL)[number], m: RegExpExecArray, ctx: MatchContext): string | undefined {
  if (!ctx.values.some((v) => v.trim() === '')) return undefined;
  const marked = p.build(m, { ...ctx, values: ctx.values.map((v) => (v.trim() === '' ? EMPTY_MARK : v)) });
  if ('error' in marked) return undefined;
  const misplaced = (v: unknown, path: Array<string | number>, step: Record<string, unknown>): boolean => {
    if (typeof v === 'string') {
      if (!v.includes(EMPTY_MARK)) return false;
      const key = path[path.length - 1];
      const value = path.length === 1 && ((step.type === 'fill' && key === 'value') || (step.type === 'type' && key === 'text'));
      const expected = path.length === 2 && path[0] === 'assertion' && key === 'equals' && ['value', 'json'].includes(String((step.assertion as { type?: unknown })?.type));
      const header = path.length === 2 && path[0] === 'headers';
      return !(v === EMPTY_MARK && (value || expected || header));
    }
    if (Array.isArray(v)) return v.some((x, i) => misplaced(x, [...path, i], step));
    if (v && typeof v === 'object') return Object.entries(v).some(([k, x]) => misplaced(x, [...path, k], step));
    return false;
  };
  return marked.some((st) => misplaced(st, [], st as Record<string, unknown>)) ? 'an empty quoted value ("") names nothing here: put the words, element or URL between the quotes' : undefined;
}

// ---------------------------------------------------------------- closest pattern

const EXAMPLES = [...ALL.map((p) => p.example), 'GET /api/items returns 200', 'POST /api/items with {"name": "lamp"} returns 201'];
const exampleWords = EXAMPLES.map((e) => ({ example: e, words: words(normalise(liftQuoted(e).template)) }));

function words(t: string): string[] {
  return t.replace(new RegExp(SLOT_RE, 'g'), ' Q ').split(/[^a-z0-9Q]+/).filter((w) => w && !['the', 'a', 'an', 'to', 'of'].includes(w));
}

/** The example sharing the most words with the sentence (Dice), the verb counting extra. */
export function closestExample(t: string): string {
  const w = words(t);
  let best = { score: -1, example: EXAMPLES[0] };
  for (const e of exampleWords) {
    const common = e.words.filter((x) => w.includes(x)).length;
    let score = (2 * common) / (e.words.length + w.length || 1);
    if (w[0] && e.words[0] === w[0]) score += 0.3;
    if (score > best.score) best = { score, example: e.example };
  }
  return best.example;
}
