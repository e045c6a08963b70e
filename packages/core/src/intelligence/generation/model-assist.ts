import { z } from 'zod';
import type { Step } from '../../contracts/steps.ts';
import type { Fingerprint } from '../../contracts/fingerprint.ts';
import type { TaskComplexity } from '../../contracts/ai-usage.ts';
import { LlmError } from '../../llm/errors.ts';
import type { LlmCallContext, LlmClient } from '../../llm/types.ts';
import { parseSentence } from './grammar/parse-sentence.ts';
import { withLines, type NotUnderstoodLine, type PlainLanguageResult, type UnderstoodLine } from './plain-language.ts';

/**
 * Generation with a model: lines the grammar could not read (free-form prose included) go
 * to the model with their context, and the model rewrites each as sentences of the
 * SUPPORTED grammar. Those sentences are parsed by our own grammar, so the model never
 * contributes a raw selector or a step that skipped validation; a rewrite the grammar
 * still cannot read leaves the line not understood.
 */

/** A model-written line is less certain than the grammar reading the same sentence. */
export const MODEL_CERTAINTY_FACTOR = 0.7;
/** Stories longer than this go to a more capable model (COMPLEX instead of MODERATE). */
export const LONG_STORY_LINES = 40;
export const LONG_STORY_CHARS = 4_000;
const MAX_ELEMENTS = 80;
const MAX_FIELD = 80;

/** Where the test starts, and (when a browser was available) what can be acted on there. */
export interface PageContext {
  url?: string;
  elements?: Fingerprint[];
}

export interface ModelAssistReport {
  model: string;
  provider: string;
  complexity: TaskComplexity;
  usage_id: string;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  /** Lines now understood thanks to the model's rewrite. */
  rewritten: number[];
  /** Lines the model could not turn into grammar sentences, and why. */
  refused: Array<{ line: number; reason: string }>;
}

export interface ModelAssisted {
  result: PlainLanguageResult;
  /** Present when the model answered. */
  model?: ModelAssistReport;
  /** Why the model was not used (NO_MODEL, budget, provider failure): the grammar's answer stands. */
  model_error?: { reason: string; message: string };
}

export interface ModelAssistOptions {
  page?: PageContext;
  ctx: LlmCallContext;
  /** Origins an absolute URL in a rewrite may point at (the base URL's); any other needs to appear in the original text. */
  allowedOrigins?: string[];
}

/** The answer the model is asked for; anything else is refused as a whole. */
const RewriteAnswer = z.object({
  rewrites: z.array(z.object({ line: z.number().int(), sentences: z.array(z.string().max(500)).max(20) })).max(500),
});

const SYSTEM = `You convert test descriptions into sentences of a fixed plain-language grammar for an end-to-end testing tool.
Rewrite each line you are given as one or more sentences of the grammar, in order. Use only the sentence forms below; put names and values in double quotes exactly as they appear on the page (use the listed elements' names and labels). Never write CSS selectors, XPath, code, or JSON steps. Do not invent credentials or data that the line and context do not give. If a line cannot be expressed in the grammar, give it an empty list.

Supported sentences (examples):
go to "/login" | open the login page | open the app
click "Sign in" | click the "Save" button | click the link "Pricing"
double-click "Buy milk" | hover over "Info"
fill "Email" with "a@b.c" | type "hello" into "Search" | press Enter | press Enter in "Search"
select "Red" from "Colour" | check "Remember me" | uncheck "Remember me" | clear "Search"
log in as "a@b.c" with password "pw" | search for "lamp" | choose the "Pro" plan
wait for "Saved" | wait for the URL to contain "/done" | scroll to the bottom
expect heading "Welcome" | expect text "Saved" | I should not see "Error"
expect the URL to contain "/dashboard" | expect title "Sign in"
expect 3 items in "todo list" | expect "Email" to have value "a@b.c"
the "Archive" button should be disabled | the "Remember me" checkbox should be checked
GET /api/items returns 200 | POST /api/items with {"name": "lamp"} and bearer token "t" returns 201
expect response field "id" to exist | the response should contain "lamp"

Answer with one JSON object and nothing else: {"rewrites":[{"line":<line number>,"sentences":["<sentence>", ...]}]}`;

/** Asks the model to rewrite the not-understood lines; the grammar validates every sentence it writes. */
export async function rewriteWithModel(llm: LlmClient, parsed: PlainLanguageResult, opts: ModelAssistOptions): Promise<ModelAssisted> {
  if (parsed.not_understood.length === 0) return { result: parsed };
  const prompt = rewritePrompt(parsed, opts.page);
  let res;
  try {
    res = await llm.complete({ type: 'generate_test', complexity: storyComplexity(parsed) }, { system: SYSTEM, prompt, json: true, temperature: 0, maxTokens: 2_000 }, opts.ctx);
  } catch (err) {
    if (!(err instanceof LlmError)) throw err;
    return { result: parsed, model_error: { reason: err.reason, message: err.message } };
  }
  const applied = applyRewrites(parsed, res.text, allowedOrigins(parsed, opts));
  return {
    result: applied.result,
    model: { model: res.model, provider: res.provider, complexity: res.complexity, usage_id: res.usageId, input_tokens: res.inputTokens, output_tokens: res.outputTokens, cost_usd: res.costUsd, rewritten: applied.rewritten, refused: applied.refused },
  };
}

/** MODERATE; COMPLEX for long stories (a mid model loses track of them). */
export function storyComplexity(parsed: PlainLanguageResult): TaskComplexity {
  const lines = [...parsed.understood, ...parsed.not_understood];
  const chars = lines.reduce((n, l) => n + l.text.length, 0);
  return lines.length > LONG_STORY_LINES || chars > LONG_STORY_CHARS ? 'COMPLEX' : 'MODERATE';
}

/** The user prompt: page, its elements, the understood lines, and the lines to rewrite. */
export function rewritePrompt(parsed: PlainLanguageResult, page?: PageContext): string {
  const out: string[] = [];
  if (page?.url) out.push(`Page under test: ${page.url}`);
  const elements = compactElements(page?.elements ?? []);
  if (elements.length) {
    out.push('Interactive elements on that page (one JSON object per line):');
    for (const e of elements) out.push(`- ${JSON.stringify(e)}`);
  }
  if (parsed.understood.length) {
    out.push('Lines already understood (line: text):');
    for (const u of parsed.understood) out.push(`${u.line}: ${u.text.trim()}`);
  }
  out.push('Lines to rewrite (line: text):');
  for (const n of parsed.not_understood) out.push(`${n.line}: ${n.text.trim()}`);
  return out.join('\n');
}

export interface CompactElement {
  role?: string;
  /** Only when there is no role (a password field has none). */
  tag?: string;
  name?: string;
  label?: string;
  /** Visible text, only when there is no accessible name. */
  text?: string;
  placeholder?: string;
  type?: string;
  testId?: string;
}

const INTERACTIVE_TAGS = new Set(['a', 'button', 'input', 'select', 'textarea', 'summary']);
const INTERACTIVE_ROLES = new Set(['button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox', 'option', 'switch', 'slider', 'spinbutton', 'tab', 'menuitem', 'heading']);

/**
 * Role, accessible name and label of each visible interactive element (and headings, for
 * assertions), deduplicated and capped: enough for the model to use the page's own names,
 * never values (a password field's content stays out of the prompt).
 */
export function compactElements(fingerprints: Fingerprint[]): CompactElement[] {
  const seen = new Set<string>();
  const out: CompactElement[] = [];
  for (const f of fingerprints) {
    if (f.visible === false || f.type === 'hidden') continue;
    // Elements with a test id or a button's behaviour are meant to be acted on, whatever their tag.
    if (!INTERACTIVE_TAGS.has(f.tag ?? '') && !INTERACTIVE_ROLES.has(f.role ?? '') && !f.testId && !f.isButton) continue;
    const label = f.ariaLabel ?? (f.tag === 'input' || f.tag === 'select' || f.tag === 'textarea' ? f.neighborText?.[0] : undefined);
    const e: CompactElement = {
      ...(f.role ? { role: f.role } : f.tag && { tag: f.tag }),
      ...(f.accessibleName ? { name: clip(f.accessibleName) } : f.text && { text: clip(f.text) }),
      ...(label && label !== f.accessibleName && { label: clip(label) }),
      ...(f.placeholder && { placeholder: clip(f.placeholder) }),
      ...(f.tag === 'input' && f.type && { type: f.type }),
      ...(f.testId && { testId: clip(f.testId) }),
    };
    if (!e.name && !e.text && !e.label && !e.placeholder && !e.testId) continue;
    const key = JSON.stringify(e);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(e);
    if (out.length >= MAX_ELEMENTS) break;
  }
  return out;
}

const clip = (s: string) => (s.length > MAX_FIELD ? `${s.slice(0, MAX_FIELD - 1)}…` : s);

/**
 * Applies the model's answer: each rewritten line's sentences must all be read by the
 * grammar (and point at no foreign origin), else the line stays not understood with the
 * reason. Lines the model was not asked about are ignored.
 */
export function applyRewrites(parsed: PlainLanguageResult, answer: string, origins: string[] = []): { result: PlainLanguageResult; rewritten: number[]; refused: Array<{ line: number; reason: string }> } {
  const refused: Array<{ line: number; reason: string }> = [];
  const decoded = decodeAnswer(answer);
  if (!decoded) {
    for (const n of parsed.not_understood) refused.push({ line: n.line, reason: "the model's answer was not the JSON object asked for" });
    return { result: { ...parsed, not_understood: parsed.not_understood.map((n) => note(n, refused[0].reason)) }, rewritten: [], refused };
  }
  const byLine = new Map(decoded.rewrites.map((r) => [r.line, r.sentences.map((s) => s.trim()).filter(Boolean)]));
  const understood: UnderstoodLine[] = [...parsed.understood];
  const still: NotUnderstoodLine[] = [];
  const rewritten: number[] = [];
  for (const n of parsed.not_understood) {
    const sentences = byLine.get(n.line);
    const verdict = sentences === undefined ? { reason: 'the model gave no rewrite' } : sentences.length === 0 ? { reason: 'the model found no sentence of the grammar for it' } : readSentences(sentences, n.text, origins);
    if ('reason' in verdict) {
      refused.push({ line: n.line, reason: verdict.reason });
      still.push(note(n, verdict.reason));
      continue;
    }
    rewritten.push(n.line);
    understood.push({ line: n.line, text: n.text, patterns: verdict.patterns, certainty: round(verdict.certainty * MODEL_CERTAINTY_FACTOR), steps: verdict.steps, source: 'model', rewrite: sentences! });
  }
  return { result: { ...parsed, ...withLines(understood, still) }, rewritten, refused };
}

function readSentences(sentences: string[], original: string, origins: string[]): { steps: Step[]; patterns: string[]; certainty: number } | { reason: string } {
  const steps: Step[] = [];
  const patterns: string[] = [];
  let certainty = 1;
  for (const s of sentences) {
    if (/[\r\n]/.test(s)) return { reason: `the model's rewrite "${s.slice(0, 120)}" spans several lines` };
    const got = parseSentence(s);
    if (!got.ok) return { reason: `the model's rewrite "${s.slice(0, 120)}" is not a supported sentence either (${got.reason})` };
    const foreign = got.steps.map(absoluteOrigin).find((o) => o && !origins.includes(o) && !original.includes(o));
    if (foreign) return { reason: `the model's rewrite "${s.slice(0, 120)}" points at ${foreign}, which the text does not mention` };
    steps.push(...got.steps);
    patterns.push(...got.patterns);
    certainty = Math.min(certainty, got.certainty);
  }
  return { steps, patterns, certainty };
}

function absoluteOrigin(step: Step): string | undefined {
  if (step.type !== 'goto' && step.type !== 'request') return undefined;
  if (!/^https?:\/\//i.test(step.url)) return undefined;
  try {
    return new URL(step.url).origin;
  } catch {
    return step.url;
  }
}

/** The JSON object, also inside a ```json fence or after a sentence of preamble. */
function decodeAnswer(text: string): z.output<typeof RewriteAnswer> | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    const parsed = RewriteAnswer.safeParse(JSON.parse(text.slice(start, end + 1)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const note = (n: NotUnderstoodLine, modelReason: string): NotUnderstoodLine => ({ ...n, reason: `${n.reason}; ${modelReason}` });

function allowedOrigins(parsed: PlainLanguageResult, opts: ModelAssistOptions): string[] {
  const out = new Set(opts.allowedOrigins ?? []);
  if (opts.page?.url) {
    try {
      out.add(new URL(opts.page.url).origin);
    } catch {
      // a relative page URL adds nothing
    }
  }
  for (const s of parsed.steps) {
    const o = absoluteOrigin(s);
    if (o) out.add(o);
  }
  return [...out];
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * The page the not-understood lines act on: the last `goto` before the first of them,
 * else the first `goto`, else the base URL itself; resolved against the base URL.
 */
export function pageUrlFor(parsed: PlainLanguageResult, baseUrl?: string, beforeLine?: number): string | undefined {
  const first = beforeLine ?? parsed.not_understood[0]?.line ?? Infinity;
  const gotos = parsed.understood.flatMap((u) => u.steps.filter((s) => s.type === 'goto').map((s) => ({ line: u.line, url: (s as { url: string }).url })));
  const url = gotos.filter((g) => g.line <= first).at(-1)?.url ?? gotos[0]?.url ?? baseUrl;
  if (!url) return undefined;
  try {
    return new URL(url, baseUrl).href;
  } catch {
    return undefined;
  }
}

/** The understood line that produced step `index` of the test (steps are in line order). */
export function lineOfStep(parsed: PlainLanguageResult, index: number): UnderstoodLine | undefined {
  let at = 0;
  for (const u of parsed.understood) {
    if (index < at + u.steps.length) return u;
    at += u.steps.length;
  }
  return undefined;
}

export interface Repaired extends ModelAssisted {
  /** The line the model was asked to rewrite. */
  line?: number;
}

/**
 * The ambiguous case: the test was read, but its one run failed to find exactly one
 * element for a step (e.g. an unqualified name matching several elements). The line that
 * produced the step goes back to the model with the failure and the page's elements, to
 * be rewritten so it names one element; the grammar reads the rewrite as before. Returns
 * the result with that line replaced, or the reason nothing changed.
 */
export async function repairWithModel(llm: LlmClient, parsed: PlainLanguageResult, failure: { step: number; error: string }, opts: ModelAssistOptions): Promise<Repaired> {
  const owner = lineOfStep(parsed, failure.step);
  if (!owner) return { result: parsed };
  const others = parsed.understood.filter((u) => u !== owner);
  const asked: PlainLanguageResult = { ...parsed, understood: others, not_understood: [{ line: owner.line, text: owner.text, reason: 'failed when run', closest: '' }] };
  const prompt = `${rewritePrompt(asked, opts.page)}
Line ${owner.line} was read as sentences of the grammar, but when the test ran once it failed: ${failure.error.slice(0, 600)}
Rewrite line ${owner.line} so that each element it acts on is named exactly (use the exact names from the elements list, or say which kind of element it is).`;
  let res;
  try {
    res = await llm.complete({ type: 'generate_test', complexity: storyComplexity(parsed) }, { system: SYSTEM, prompt, json: true, temperature: 0, maxTokens: 1_000 }, opts.ctx);
  } catch (err) {
    if (!(err instanceof LlmError)) throw err;
    return { result: parsed, line: owner.line, model_error: { reason: err.reason, message: err.message } };
  }
  const applied = applyRewrites(asked, res.text, allowedOrigins(parsed, opts));
  const replaced = applied.result.understood.find((u) => u.line === owner.line);
  if (replaced && JSON.stringify(replaced.steps) === JSON.stringify(owner.steps)) {
    applied.rewritten = [];
    applied.refused.push({ line: owner.line, reason: "the model's rewrite reads the same as the line that failed" });
  }
  const report: ModelAssistReport = { model: res.model, provider: res.provider, complexity: res.complexity, usage_id: res.usageId, input_tokens: res.inputTokens, output_tokens: res.outputTokens, cost_usd: res.costUsd, rewritten: applied.rewritten, refused: applied.refused };
  if (applied.rewritten.length === 0) return { result: parsed, line: owner.line, model: report };
  // Keep the lines the grammar still could not read (allow_partial) as they were.
  return { result: { ...parsed, ...withLines(applied.result.understood, parsed.not_understood) }, line: owner.line, model: report };
}
