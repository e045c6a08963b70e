import type { Step, TestDefinition } from '../../contracts/steps.ts';
import { numberedLines, stripGherkin, stripListMarker } from './grammar/text.ts';
import { parseSentence, type Section } from './grammar/parse-sentence.ts';
import { readExamples, withVariables } from './grammar/examples.ts';
import type { ParameterSet } from '../../contracts/parameter-sets.ts';
import { generatedTimeout } from './timeout.ts';

/**
 * Plain language and user stories → one executable test, with no model. Every line is
 * either understood (and mapped to steps) or listed as not understood with its line
 * number and the closest supported sentence — nothing is dropped silently.
 */
export interface UnderstoodLine {
  line: number;
  text: string;
  patterns: string[];
  certainty: number;
  steps: Step[];
  /** 'model' when a language model rewrote the line into grammar sentences (model-assist.ts); absent: the grammar read it. */
  source?: 'grammar' | 'model';
  /** The grammar sentences the model wrote for this line (source 'model' only). */
  rewrite?: string[];
}
export interface NotUnderstoodLine {
  line: number;
  text: string;
  reason: string;
  closest: string;
}
export interface PlainLanguageResult {
  name?: string;
  description?: string;
  steps: Step[];
  understood: UnderstoodLine[];
  not_understood: NotUnderstoodLine[];
  /** 0..1: the grammar's certainty, lowered by every line it could not read. */
  confidence: number;
  type: TestDefinition['type'];
  /** A Scenario Outline's example rows, one parameter set each (absent: no examples table). */
  parameter_sets?: ParameterSet[];
}

const TITLE = /^(?:feature|scenario|scenario outline|story|user story|title|test|test case|name)\s*:\s*(.*)$/i;
const NARRATIVE = /^(?:as an?|as the|i want|i'd like|in order to|so that|so i can)\b/i;
const SECTION_ONLY = /^(?:background|given|when|then|steps|acceptance criteria|scenario|examples)\s*:?\s*$/i;

export function parsePlainLanguage(text: string): PlainLanguageResult {
  let name: string | undefined;
  let nameFromFeature = false;
  const narrative: string[] = [];
  const understood: UnderstoodLine[] = [];
  const notUnderstood: NotUnderstoodLine[] = [];
  let section: Section | undefined;
  const lines = numberedLines(text);
  const examples = readExamples(lines);
  notUnderstood.push(...examples.problems);
  for (const { line, text: raw } of lines) {
    if (examples.lines.has(line)) continue;
    const bare = withVariables(stripListMarker(raw).trim(), examples.columns);
    const title = TITLE.exec(bare);
    if (title) {
      // A scenario names the test better than the feature it belongs to.
      const t = title[1].trim();
      if (t && (!name || (nameFromFeature && !/^feature$/i.test(bare.split(':')[0].trim())))) {
        nameFromFeature = /^feature$/i.test(bare.split(':')[0].trim());
        name = t;
      }
      continue;
    }
    if (SECTION_ONLY.test(bare)) continue;
    if (NARRATIVE.test(bare)) {
      narrative.push(bare.replace(/[,.]$/, ''));
      continue;
    }
    const { keyword } = stripGherkin(bare);
    if (keyword === 'given' || keyword === 'when' || keyword === 'then') section = keyword;
    // Several sentences on one line ("Click X. Then see Y.") are read one by one.
    const sentences = splitSentences(bare);
    const got = sentences.map((s) => parseSentence(s, section));
    const miss = got.find((g) => !g.ok);
    if (miss && !miss.ok) {
      notUnderstood.push({ line, text: raw, reason: miss.reason, closest: miss.closest });
      continue;
    }
    const ok = got.filter((g) => g.ok);
    understood.push({ line, text: raw, patterns: ok.flatMap((g) => g.patterns), certainty: Math.min(...ok.map((g) => g.certainty)), steps: ok.flatMap((g) => g.steps) });
  }
  return {
    ...(name && { name }),
    ...(narrative.length && { description: narrative.join(', ') + '.' }),
    ...withLines(understood, notUnderstood),
    ...(examples.sets.length && { parameter_sets: examples.sets }),
  };
}

/** Steps (in line order), confidence and type from the lines read so far; also used after a model rewrote some lines. */
export function withLines(understood: UnderstoodLine[], notUnderstood: NotUnderstoodLine[]): Pick<PlainLanguageResult, 'steps' | 'understood' | 'not_understood' | 'confidence' | 'type'> {
  const ordered = [...understood].sort((a, b) => a.line - b.line);
  const steps = ordered.flatMap((u) => u.steps);
  const mean = ordered.length ? ordered.reduce((s, u) => s + u.certainty, 0) / ordered.length : 0;
  const share = ordered.length / Math.max(1, ordered.length + notUnderstood.length);
  return { steps, understood: ordered, not_understood: notUnderstood, confidence: round(mean * share), type: testType(steps) };
}

/** Sentences end at ". " followed by a capital letter outside quotes ("Click X. Then see Y."). */
function splitSentences(line: string): string[] {
  const out: string[] = [];
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"') quote = c;
    if (c === '.' && line[i + 1] === ' ' && /[A-Z]/.test(line[i + 2] ?? '')) {
      out.push(line.slice(start, i + 1).trim());
      start = i + 2;
    }
  }
  out.push(line.slice(start).trim());
  return out.filter(Boolean);
}

/** ui when any step drives the browser; api when all are HTTP. */
export function testType(steps: Step[]): TestDefinition['type'] {
  const ui = steps.some((s) => s.type !== 'request' && s.type !== 'sql' && !(s.type === 'assert' && ['status', 'header', 'json', 'json_schema', 'response_time', 'row_count', 'cell'].includes(s.assertion.type)));
  if (ui) return 'ui';
  return steps.some((s) => s.type === 'request') ? 'api' : steps.some((s) => s.type === 'sql') ? 'db' : 'ui';
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** The test a parse produces (the caller checks not_understood first). */
export function toTestDefinition(result: PlainLanguageResult, opts: { name?: string; description?: string; tags?: string[] } = {}): TestDefinition {
  const name = (opts.name ?? result.name ?? defaultName(result)).slice(0, 255);
  const description = opts.description ?? result.description;
  return {
    name,
    ...(description && { description }),
    type: result.type,
    priority: 'medium',
    tags: opts.tags ?? ['generated'],
    // A short budget (a wrong guess should fail fast), plus the fixed waits the test holds.
    timeout_ms: generatedTimeout(result.steps),
    parameters: {},
    parameter_sets: result.parameter_sets ?? [],
    steps: result.steps,
    assertions: [],
  };
}

function defaultName(result: PlainLanguageResult): string {
  const first = result.understood[0]?.text ?? 'generated test';
  return stripGherkin(stripListMarker(first)).rest.slice(0, 120) || 'generated test';
}
