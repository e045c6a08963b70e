/**
 * The healing model chooser (issue #4 item 7; docs/healing.md "With a model"). When the
 * fresh ranking is ambiguous, a language model is shown the recorded element and the top
 * few candidates (sanitised fingerprints, never secrets) and asked to pick one by number,
 * or "none". The model can only pick among the candidates it was shown; its answer is
 * checked (number in range, candidate visible, a replacement selector that matches
 * exactly one element, not a reverted fix) and ignored otherwise. What its pick is worth
 * — promotion to auto-apply, or a suggestion that needs approval — is decided by
 * `ModelChooser.decide`, conservatively, so the ≥99% precision promise of auto-applied
 * heals holds.
 */
import { z } from 'zod';
import type { Fingerprint } from '../../contracts/fingerprint.ts';
import type { Locator } from '../../contracts/steps.ts';
import type { TaskComplexity } from '../../contracts/ai-usage.ts';
import { describeLocator } from '../../execution/describe-step.ts';
import type { LlmCallContext, LlmClient } from '../../llm/types.ts';
import type { RankedCandidate } from '../rank.ts';
import { replacementSelector } from '../selector.ts';

export interface ModelChooserOptions {
  llm: LlmClient;
  /** Who pays for the calls (ai_usage.organization_id); run and test come from each heal. */
  organizationId: string;
  /** Candidates shown to the model, at most 5 (default 5). */
  topN?: number;
  /**
   * How far below the threshold the ranker's top confidence may be for the model's
   * agreement to promote it to auto-apply (default 0.05: with a 0.8 threshold, 0.75–0.8).
   */
  promoteBand?: number;
  /** Top two candidates whose confidences are closer than this are ambiguous (default 0.1). */
  margin?: number;
  /** A ranking whose best confidence is below this is not worth a call (default 0.3). */
  floor?: number;
}

/** One candidate as it was shown to the model. */
export interface ShownCandidate {
  /** Index among the page's fingerprints. */
  pageIndex: number;
  confidence: number;
  locator: Locator;
  healed: string;
  strategy: string;
}

/** What the model said, after validation. */
export type ModelVerdict =
  | { kind: 'chose'; candidate: ShownCandidate; rank: number; reason: string; usageId: string; model: string }
  | { kind: 'none'; reason: string; usageId: string; model: string }
  /** The answer broke a rule (out of range, not JSON, a made-up selector...): ignored. */
  | { kind: 'refused'; reason: string }
  /** The call failed (no model, budget, provider down): the ranking stands. */
  | { kind: 'failed'; reason: string };

/** What the healer does with a verdict. */
export type ModelDecision =
  /** Apply (after the re-run passes) at this confidence. */
  | { action: 'promote'; candidate: ShownCandidate; confidence: number; reason: string }
  /** Withhold the ranker's above-threshold proposals: the model disagreed on an ambiguous pair. */
  | { action: 'withhold'; reason: string; suggestion?: ShownCandidate }
  /** Leave the ranker's outcome; `suggestion` (if any) needs a person's approval. */
  | { action: 'keep'; reason: string; suggestion?: ShownCandidate };

const MAX_SHOWN = 5;
/** How many ranked entries are looked at to find the candidates worth showing. */
const SCAN = 20;
const TEXT_MAX = 120;
const SHORT_MAX = 80;

/** The model's answer: a candidate number, or "none" (null and -1 read as none). */
const Answer = z.object({
  choice: z.union([z.number(), z.literal('none'), z.null()]),
  reason: z.string().max(2000).optional(),
});

const SYSTEM = [
  'You help an end-to-end test runner repair a broken element locator.',
  'You are shown the element as it was recorded the last time the locator worked, and numbered candidate elements from the current page.',
  'Pick the candidate that is the same element for a user (same purpose and meaning), or "none" when no candidate clearly is.',
  'You may only answer with one of the candidate numbers shown, or "none". Do not invent selectors or elements.',
  'Answer with one JSON object and nothing else: {"choice": <candidate number> or "none", "reason": "<one short sentence>"}.',
].join('\n');

export class ModelChooser {
  readonly topN: number;
  readonly promoteBand: number;
  readonly margin: number;
  readonly floor: number;

  constructor(readonly options: ModelChooserOptions) {
    this.topN = Math.max(1, Math.min(MAX_SHOWN, options.topN ?? MAX_SHOWN));
    this.promoteBand = options.promoteBand ?? 0.05;
    this.margin = options.margin ?? 0.1;
    this.floor = options.floor ?? 0.3;
  }

  /** False without a configured model: the deterministic path is taken and nothing is called. */
  get available(): boolean {
    return this.options.llm.configured;
  }

  /**
   * Ambiguous: the best candidate is below the threshold but worth asking about, or the
   * best two are within `margin` of each other. A clear winner is never sent to a model.
   */
  isAmbiguous(ranked: readonly RankedCandidate[], threshold: number): boolean {
    const [top, second] = ranked;
    if (!top || top.confidence < this.floor) return false;
    if (top.confidence < threshold) return true;
    return !!second && top.confidence - second.confidence < this.margin;
  }

  /**
   * The candidates worth showing: best first, visible, addressable by a selector that
   * matches exactly one of the page's elements, not a fix a person reverted.
   */
  shortlist(page: readonly Fingerprint[], ranked: readonly RankedCandidate[], reverted: ReadonlySet<string> = new Set()): ShownCandidate[] {
    const out: ShownCandidate[] = [];
    for (const r of ranked.slice(0, SCAN)) {
      if (out.length >= this.topN) break;
      const valid = validCandidate(page, r.index, reverted);
      if (valid) out.push({ ...valid, confidence: r.confidence });
    }
    return out;
  }

  /** Asks the model; never throws (a failed call or a bad answer leaves the ranking as it is). */
  async choose(input: { stored: Fingerprint; page: readonly Fingerprint[]; shown: readonly ShownCandidate[]; reverted?: ReadonlySet<string>; runId?: string | null; testId?: string | null }): Promise<ModelVerdict> {
    const { shown } = input;
    if (!shown.length) return { kind: 'failed', reason: 'no candidate can be addressed by a unique selector' };
    const ctx: LlmCallContext = { organizationId: this.options.organizationId, runId: input.runId ?? null, testId: input.testId ?? null };
    const complexity: TaskComplexity = shown.length <= 2 ? 'SIMPLE' : 'MODERATE';
    let text: string;
    let usageId: string;
    let model: string;
    try {
      const res = await this.options.llm.complete(
        { type: 'heal_selector', complexity },
        { system: SYSTEM, prompt: choicePrompt(input.stored, input.page, shown), json: true, temperature: 0, maxTokens: 200 },
        ctx,
      );
      ({ text, usageId, model } = res);
    } catch (err) {
      return { kind: 'failed', reason: `model unavailable: ${(err as Error).message}` };
    }
    const parsed = parseAnswer(text);
    if (!parsed.ok) return { kind: 'refused', reason: `the model's answer was ignored: ${parsed.reason}` };
    const reason = oneLine(parsed.answer.reason ?? '');
    const choice = parsed.answer.choice;
    if (choice === null || choice === 'none' || choice === -1) return { kind: 'none', reason, usageId, model };
    if (!Number.isInteger(choice) || choice < 0 || choice >= shown.length) {
      return { kind: 'refused', reason: `the model's answer was ignored: candidate ${choice} is not one of 0–${shown.length - 1}` };
    }
    const candidate = shown[choice];
    // Checked again on the page as given, not trusted from the shortlist.
    const valid = validCandidate(input.page, candidate.pageIndex, input.reverted ?? new Set());
    if (!valid || valid.healed !== candidate.healed) return { kind: 'refused', reason: `the model's answer was ignored: candidate ${choice} is not a visible element with a unique selector` };
    return { kind: 'chose', candidate, rank: choice, reason, usageId, model };
  }

  /**
   * What a verdict is worth (docs/healing.md "With a model"):
   * - the model agrees with the ranker's top candidate, whose confidence is within
   *   `promoteBand` below the threshold → promoted to auto-apply at the threshold;
   * - the ranker's top is at or above the threshold but the pair is ambiguous and the
   *   model picks another candidate or none → nothing is auto-applied (a suggestion);
   * - any other pick → a suggestion that needs approval; the ranking's outcome stands;
   * - a refused or failed answer → the ranking's outcome stands.
   */
  decide(verdict: ModelVerdict, ranked: readonly RankedCandidate[], threshold: number): ModelDecision {
    const top = ranked[0];
    if (verdict.kind === 'failed' || verdict.kind === 'refused') return { action: 'keep', reason: verdict.reason };
    const topAbove = !!top && top.confidence >= threshold;
    if (verdict.kind === 'none') {
      return topAbove
        ? { action: 'withhold', reason: `model (${verdict.model}) saw no matching candidate: ${verdict.reason || 'no reason given'}` }
        : { action: 'keep', reason: `model (${verdict.model}) saw no matching candidate: ${verdict.reason || 'no reason given'}` };
    }
    const c = verdict.candidate;
    const agrees = !!top && c.pageIndex === top.index;
    const why = `model (${verdict.model}) chose ${c.healed}: ${verdict.reason || 'no reason given'}`;
    if (agrees && !topAbove && top.confidence >= threshold - this.promoteBand) return { action: 'promote', candidate: c, confidence: threshold, reason: why };
    if (agrees) return { action: 'keep', reason: why, ...(topAbove ? {} : { suggestion: c }) };
    if (topAbove) return { action: 'withhold', reason: `${why} (the ranker preferred another element)`, suggestion: c };
    return { action: 'keep', reason: why, suggestion: c };
  }
}

/** The candidate at `index` if it is visible and a selector addresses it alone (and was not reverted). */
function validCandidate(page: readonly Fingerprint[], index: number, reverted: ReadonlySet<string>): Omit<ShownCandidate, 'confidence'> | undefined {
  const fp = page[index];
  if (!fp || fp.visible === false) return undefined;
  const sel = replacementSelector(fp, page);
  if (!sel || !sel.unique) return undefined;
  const healed = describeLocator(sel.locator);
  if (reverted.has(healed)) return undefined;
  return { pageIndex: index, locator: sel.locator, healed, strategy: sel.strategy };
}

function choicePrompt(stored: Fingerprint, page: readonly Fingerprint[], shown: readonly ShownCandidate[]): string {
  const lines = [
    'Recorded element (when the locator last worked):',
    JSON.stringify(promptFingerprint(stored)),
    '',
    `Candidates on the current page (${shown.length}):`,
    ...shown.map((c, i) => `[${i}] ${JSON.stringify(promptFingerprint(page[c.pageIndex]))}`),
    '',
    'Which candidate number is the recorded element? Answer {"choice": <number> or "none", "reason": "..."}.',
  ];
  return lines.join('\n');
}

/** Looks like a credential or session value: never sent to a model. */
const SECRETISH = /(?:eyJ[\w-]{8,}\.[\w-]{8,}\.?[\w-]*|\b(?:sk|pk|rk|ghp|gho|xox[abp])[-_][\w-]{12,}|\b[A-Fa-f0-9]{32,}\b|\b[A-Za-z0-9+_-]{40,}={0,2})/g;
const SECRET_NAMES = /pass|secret|token|key|auth|session|csrf|otp|card|cvv|ssn|pin/i;

const clean = (s: string | undefined, max = SHORT_MAX) => (s === undefined ? undefined : oneLine(s).replace(SECRETISH, '[redacted]').slice(0, max));

/**
 * What the model sees of a fingerprint: identifying, human-facing fields only, truncated,
 * credential-looking strings redacted. Values of password, hidden and secret-named fields
 * are dropped, as are raw attributes, query strings and fragments of links.
 */
export function promptFingerprint(fp: Fingerprint): Record<string, unknown> {
  const type = fp.type?.toLowerCase();
  const sensitiveField = type === 'password' || type === 'hidden' || SECRET_NAMES.test(`${fp.name ?? ''} ${fp.id ?? ''} ${fp.attributes?.autocomplete ?? ''}`);
  const out: Record<string, unknown> = {
    tag: fp.tag,
    id: clean(fp.id),
    name: clean(fp.name),
    type: clean(fp.type, 20),
    role: clean(fp.role, 30),
    text: clean(fp.text, TEXT_MAX),
    accessibleName: clean(fp.accessibleName),
    ariaLabel: clean(fp.ariaLabel),
    testId: clean(fp.testId),
    placeholder: clean(fp.placeholder),
    title: clean(fp.title),
    alt: clean(fp.alt),
    href: fp.href ? clean(fp.href.split(/[?#]/)[0], 120) : undefined,
    value: sensitiveField ? undefined : clean(fp.value, 40),
    classes: fp.classes?.slice(0, 5).map((c) => clean(c, 40)),
    nearText: fp.neighborText?.slice(0, 3).map((t) => clean(t, 60)),
    box: fp.box ? { x: Math.round(fp.box.x), y: Math.round(fp.box.y), width: Math.round(fp.box.width), height: Math.round(fp.box.height) } : undefined,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0)));
}

function parseAnswer(text: string): { ok: true; answer: z.output<typeof Answer> } | { ok: false; reason: string } {
  // Models sometimes wrap JSON in prose or a code fence: take the first {...} block.
  const match = /\{[\s\S]*\}/.exec(text);
  if (!match) return { ok: false, reason: 'not a JSON object' };
  let raw: unknown;
  try {
    raw = JSON.parse(match[0]);
  } catch {
    return { ok: false, reason: 'not a JSON object' };
  }
  const r = Answer.safeParse(normaliseChoice(raw));
  if (!r.success) return { ok: false, reason: `choice must be a candidate number or "none" (${r.error.issues[0]?.path.join('.') || 'answer'}: ${r.error.issues[0]?.message})` };
  return { ok: true, answer: r.data };
}

/** Accepts `index` for `choice` and numeric strings ("2"); anything else goes to the schema as is. */
function normaliseChoice(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object') return raw;
  const o = raw as Record<string, unknown>;
  let choice = o.choice ?? o.index ?? o.candidate;
  if (typeof choice === 'string' && /^\s*-?\d+\s*$/.test(choice)) choice = Number(choice);
  if (typeof choice === 'string' && choice.trim().toLowerCase() === 'none') choice = 'none';
  return { choice: choice === undefined ? undefined : choice, reason: typeof o.reason === 'string' ? o.reason : undefined };
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 300);
