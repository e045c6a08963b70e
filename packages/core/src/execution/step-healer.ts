import type { UiStep, UiAssertion, Locator } from '../contracts/steps.ts';
import type { Fingerprint } from '../contracts/fingerprint.ts';
import { rankCandidates } from '../healing/rank.ts';
import { replacementSelector } from '../healing/selector.ts';
import { describeLocator } from './describe-step.ts';
import type { StepContext, UiSession } from './types.ts';

/** SELF_HEAL_CONFIDENCE_THRESHOLD and SELF_HEAL_MAX_RETRIES (spec: Limits). */
export interface HealingPolicy {
  enabled: boolean;
  threshold: number;
  maxRetries: number;
}
export const defaultHealingPolicy: HealingPolicy = { enabled: true, threshold: 0.8, maxRetries: 3 };

export interface AppliedHeal {
  original: string;
  healed: string;
  healedLocator: Locator;
  confidence: number;
  strategy: string;
}

export type HealAttempt<T> = { healed: true; heal: AppliedHeal; result: T } | { healed: false; reason: string };

/** UI assertions whose locator may be healed: ones that need the element to exist. `hidden` and `count` are about absence or number, so a missing element is their answer, not a broken locator. */
const healableAssertions = new Set<UiAssertion['type']>(['visible', 'text', 'value', 'attribute', 'enabled', 'disabled']);

export function healableSelector(item: UiStep | UiAssertion): Locator | undefined {
  if ('selector' in item && item.selector !== undefined) {
    if (['visible', 'hidden', 'text', 'value', 'url', 'title', 'count', 'attribute', 'enabled', 'disabled'].includes(item.type)) {
      return healableAssertions.has(item.type as UiAssertion['type']) ? (item.selector as Locator) : undefined;
    }
    return item.selector as Locator;
  }
  return undefined;
}

/**
 * Locator-only healing within one run. A broken locator is matched against the page's
 * visible elements using the element's last recorded fingerprint; the best candidates
 * at or above the confidence threshold (at most maxRetries) get a replacement locator
 * that must match exactly one element, and the step is re-run with it. A heal counts
 * only if that re-run passes. Heals are remembered for the rest of the run, so one
 * element is healed once.
 */
export class StepHealer {
  private readonly applied = new Map<string, AppliedHeal>();
  constructor(readonly policy: HealingPolicy) {}

  async heal<T>(input: {
    item: UiStep | UiAssertion;
    stored: Fingerprint | undefined;
    session: UiSession;
    ctx: StepContext;
    rerun: (healedItem: UiStep | UiAssertion) => Promise<T>;
  }): Promise<HealAttempt<T>> {
    const selector = healableSelector(input.item);
    if (!this.policy.enabled) return { healed: false, reason: 'healing is disabled' };
    if (!selector) return { healed: false, reason: `a ${input.item.type} step is not healed` };
    const original = describeLocator(selector);
    const key = `${original}|${pathOf(input.session.url())}`;

    const known = this.applied.get(key);
    if (known) {
      try {
        return { healed: true, heal: known, result: await input.rerun({ ...input.item, selector: known.healedLocator } as UiStep | UiAssertion) };
      } catch {
        this.applied.delete(key); // the page changed again; rank afresh below
      }
    }

    if (!input.stored) return { healed: false, reason: 'no fingerprint of this element was recorded in an earlier run' };
    const page = await input.session.pageFingerprints();
    const ranked = rankCandidates(input.stored, page);
    const eligible = ranked.filter((r) => r.confidence >= this.policy.threshold && page[r.index]?.visible !== false).slice(0, this.policy.maxRetries);
    if (!eligible.length) {
      const best = ranked[0];
      return { healed: false, reason: best ? `no confident replacement: best candidate ${describeCandidate(page[best.index])} has confidence ${best.confidence.toFixed(2)} < ${this.policy.threshold}` : 'the page has no candidate elements' };
    }
    const reasons: string[] = [];
    for (const candidate of eligible) {
      const proposal = replacementSelector(page[candidate.index], page);
      if (!proposal) {
        reasons.push(`${describeCandidate(page[candidate.index])}: no selector can address it`);
        continue;
      }
      try {
        const result = await input.rerun({ ...input.item, selector: proposal.locator } as UiStep | UiAssertion);
        const heal: AppliedHeal = { original, healed: describeLocator(proposal.locator), healedLocator: proposal.locator, confidence: candidate.confidence, strategy: proposal.strategy };
        this.applied.set(key, heal);
        return { healed: true, heal, result };
      } catch (err) {
        reasons.push(`${describeLocator(proposal.locator)}: ${(err as Error).message}`);
      }
    }
    return { healed: false, reason: `no candidate passed when re-run (${reasons.join('; ')})` };
  }
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

function describeCandidate(fp: Fingerprint | undefined): string {
  if (!fp) return 'element';
  const text = fp.text ? ` "${fp.text.slice(0, 40)}"` : '';
  return `<${fp.tag ?? '?'}${fp.id ? `#${fp.id}` : ''}>${text}`;
}
