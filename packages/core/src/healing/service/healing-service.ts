import type { Fingerprint } from '../../contracts/fingerprint.ts';
import type { Locator } from '../../contracts/steps.ts';
import { rankCandidates } from '../rank.ts';
import { replacementSelector } from '../selector.ts';
import { describeLocator } from '../../execution/describe-step.ts';
import type { HealMethod, HealQuery, HealingKnowledge, KnowledgeLookup, KnownFix } from './knowledge.ts';
import { locatorMatchCount } from './locator-match.ts';
import type { ModelChooser, ShownCandidate } from './model-chooser.ts';

export interface HealingServicePolicy {
  threshold: number;
  maxRetries: number;
}

/** One fix to try: a locator, why it is believed, and how sure we are. */
export interface HealProposal {
  locator: Locator;
  healed: string;
  confidence: number;
  method: HealMethod;
  fromCache: boolean;
  strategy: string;
  /** The remembered fix this came from (pattern, memory, cache). */
  fix?: KnownFix;
  /** For a fresh ranking: index of the chosen element among the page's fingerprints. */
  candidateIndex?: number;
  /** method 'llm': the ranker's own confidence, before the model's agreement promoted it. */
  rankerConfidence?: number;
  /** method 'llm': what the model said. */
  modelReason?: string;
}

export interface HealPlanInput {
  query: HealQuery;
  /** The element's fingerprint from the last run that found it. */
  stored?: Fingerprint;
  /** Fingerprints of the page's visible elements, fetched at most once. */
  page: () => Promise<Fingerprint[]>;
}

/** Why candidates were passed over, and the best confidence seen (for the report and healing.completed). */
export interface HealPlanNotes {
  rejected: string[];
  bestConfidence: number;
  /** Set when a fresh ranking found nothing confident enough. */
  belowThreshold?: { candidate: Fingerprint | undefined; confidence: number };
  /** What the model chooser said about an ambiguous ranking (model-chooser.ts). */
  model?: { action: 'promote' | 'withhold' | 'keep'; reason: string; suggestion?: ShownCandidate };
}

/**
 * The healing order (issue #4): remembered fixes — proven patterns and memory, then the
 * cache — and only then a fresh ranking (rankCandidates + replacementSelector). Every
 * proposal obeys the safety rules: locator-only, confidence ≥ threshold, a visible
 * element (remembered fixes must still match exactly one of the page's visible elements
 * when that can be told from the fingerprints), at most maxRetries proposals in all.
 * Proposals are produced lazily: the ranking runs only if every remembered fix failed.
 * Re-running, storing and the once-per-run rule are the caller's (StepHealer).
 */
export class HealingService {
  constructor(
    readonly policy: HealingServicePolicy,
    readonly knowledge?: HealingKnowledge,
    /** Asks a model about ambiguous rankings; absent or without a configured model, nothing changes. */
    readonly chooser?: ModelChooser,
  ) {}

  async *proposals(input: HealPlanInput, notes: HealPlanNotes = { rejected: [], bestConfidence: 0 }): AsyncGenerator<HealProposal> {
    const seen = new Set<string>();
    let budget = this.policy.maxRetries;

    const none: KnowledgeLookup = { fixes: [], reverted: [] };
    const known = this.knowledge ? await this.knowledge.lookup(input.query).catch((err: Error) => (notes.rejected.push(`healing knowledge unavailable: ${err.message}`), none)) : none;
    const reverted = new Set(known.reverted);
    for (const fix of known.fixes) {
      if (budget <= 0) return;
      if (seen.has(fix.healed)) continue;
      notes.bestConfidence = Math.max(notes.bestConfidence, fix.confidence);
      if (fix.confidence < this.policy.threshold) {
        notes.rejected.push(`${fix.source} fix ${fix.healed}: confidence ${fix.confidence.toFixed(2)} < ${this.policy.threshold}`);
        continue;
      }
      const count = locatorMatchCount(fix.healedLocator, await input.page());
      if (count !== undefined && count !== 1) {
        notes.rejected.push(`${fix.source} fix ${fix.healed}: matches ${count} visible elements on this page`);
        continue;
      }
      seen.add(fix.healed);
      budget--;
      yield { locator: fix.healedLocator, healed: fix.healed, confidence: fix.confidence, method: fix.source, fromCache: fix.source === 'cache', strategy: fix.source, fix };
    }

    if (budget <= 0) return;
    if (!input.stored) {
      notes.rejected.push('no fingerprint of this element was recorded in an earlier run');
      return;
    }
    const page = await input.page();
    const ranked = rankCandidates(input.stored, page);
    if (ranked[0]) notes.bestConfidence = Math.max(notes.bestConfidence, ranked[0].confidence);
    const eligible = ranked.filter((r) => r.confidence >= this.policy.threshold && page[r.index]?.visible !== false);
    if (this.chooser?.available && this.chooser.isAmbiguous(ranked, this.policy.threshold)) {
      const shown = this.chooser.shortlist(page, ranked, reverted);
      const verdict = await this.chooser.choose({ stored: input.stored, page, shown, reverted, runId: input.query.runId, testId: input.query.testId });
      const decision = this.chooser.decide(verdict, ranked, this.policy.threshold);
      notes.model = { action: decision.action, reason: decision.reason, ...(decision.action !== 'promote' && decision.suggestion ? { suggestion: decision.suggestion } : {}) };
      if (decision.action === 'keep' && verdict.kind !== 'chose') notes.rejected.push(decision.reason);
      if (decision.action === 'withhold') {
        notes.rejected.push(`not applied without approval: ${decision.reason}`);
        return;
      }
      if (decision.action === 'promote' && !seen.has(decision.candidate.healed)) {
        const c = decision.candidate;
        seen.add(c.healed);
        budget--;
        notes.bestConfidence = Math.max(notes.bestConfidence, decision.confidence);
        yield { locator: c.locator, healed: c.healed, confidence: decision.confidence, method: 'llm', fromCache: false, strategy: c.strategy, candidateIndex: c.pageIndex, rankerConfidence: c.confidence, modelReason: decision.reason };
        if (budget <= 0) return;
      }
    }
    if (!eligible.length) {
      notes.belowThreshold = { candidate: ranked[0] ? page[ranked[0].index] : undefined, confidence: ranked[0]?.confidence ?? 0 };
      return;
    }
    for (const candidate of eligible) {
      if (budget <= 0) return;
      const proposal = replacementSelector(page[candidate.index], page);
      if (!proposal) {
        notes.rejected.push(`${describeCandidate(page[candidate.index])}: no selector can address it`);
        continue;
      }
      const healed = describeLocator(proposal.locator);
      if (seen.has(healed)) continue;
      if (reverted.has(healed)) {
        notes.rejected.push(`${healed}: a person reverted this fix`);
        continue;
      }
      seen.add(healed);
      budget--;
      yield { locator: proposal.locator, healed, confidence: candidate.confidence, method: 'dom_similarity', fromCache: false, strategy: proposal.strategy, candidateIndex: candidate.index };
    }
  }
}

export function describeCandidate(fp: Fingerprint | undefined): string {
  if (!fp) return 'element';
  const text = fp.text ? ` "${fp.text.slice(0, 40)}"` : '';
  return `<${fp.tag ?? '?'}${fp.id ? `#${fp.id}` : ''}>${text}`;
}
