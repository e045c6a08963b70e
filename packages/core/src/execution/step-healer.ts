import type { UiStep, UiAssertion, Locator, VisualAssertion, AccessibilityAssertion } from '../contracts/steps.ts';
import type { Fingerprint } from '../contracts/fingerprint.ts';
import { describeLocator } from './describe-step.ts';
import type { StepContext, UiSession } from './types.ts';
import { HealingService, describeCandidate, type HealPlanNotes } from '../healing/service/healing-service.ts';
import type { HealingKnowledge, HealMethod, HealQuery, HealRecord } from '../healing/service/knowledge.ts';
import { failureClass, urlPathPattern } from '../healing/service/failure-class.ts';
import type { ModelChooser } from '../healing/service/model-chooser.ts';
import type { FlowOrigin } from '../flows/expand-flows.ts';
import { confidenceBelow } from '../healing/confidence-text.ts';

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
  /** How the fix was found: run (earlier in this run), pattern, memory, cache, dom_similarity or llm (the ranker's pick, confirmed by a model). */
  method?: HealMethod;
  fromCache?: boolean;
}

/**
 * How the test that used a heal ended: a heal is learned (pattern, cache, memory) only when
 * its test passed. Its step's re-run passing is not enough: a near-twin of a removed element
 * passes the step and fails the test (QA: "Add to cart" of another product), and learning
 * it made a wrong fix "proven". `unknown`: cancelled or interrupted, nothing learned either way.
 */
export type TestOutcome = { status: 'passed' } | { status: 'failed'; message: string } | { status: 'unknown' };

export type HealAttempt<T> = { healed: true; heal: AppliedHeal; result: T; settle: (outcome: TestOutcome) => Promise<void> } | { healed: false; reason: string };

/** UI assertions whose locator may be healed: ones that need the element to exist. `hidden` and `count` are about absence or number, so a missing element is their answer, not a broken locator. */
const healableAssertions = new Set<UiAssertion['type']>(['visible', 'text', 'value', 'attribute', 'enabled', 'disabled']);

/**
 * One field of an extract step, healed on its own: each field reads one element, found by
 * its own locator, so a broken field selector is healed like a click's (docs/healing.md).
 */
export interface ExtractFieldItem {
  type: 'extract';
  field: string;
  selector: Locator;
  attribute?: string;
  all?: boolean;
}

/** What in-step healing can fix the locator of: a UI step, a UI assertion, a visual or accessibility assertion of one element, an extract step's field. */
export type HealableItem = UiStep | UiAssertion | VisualAssertion | AccessibilityAssertion | ExtractFieldItem;

export function healableSelector(item: HealableItem): Locator | undefined {
  // A field read with `all` is a list: a fingerprint of one element cannot say what the list was.
  if (item.type === 'extract') return 'field' in item && !item.all ? item.selector : undefined;
  if ('selector' in item && item.selector !== undefined) {
    if (['visible', 'hidden', 'text', 'value', 'url', 'title', 'count', 'attribute', 'enabled', 'disabled'].includes(item.type)) {
      return healableAssertions.has(item.type as UiAssertion['type']) ? (item.selector as Locator) : undefined;
    }
    return item.selector as Locator;
  }
  return undefined;
}

/**
 * Locator-only healing within one run. A broken locator is first tried with a fix made
 * earlier in this run, then with what HealingKnowledge remembers (proven patterns,
 * memory, the 7-day cache), then by ranking the page's visible elements against the
 * element's last recorded fingerprint (HealingService has the order and the safety
 * rules). Each proposal's locator is re-run; a heal counts only if that re-run passes,
 * and is learned only once its test has passed (TestOutcome). Heals are remembered for the
 * rest of the run, so one element is healed once.
 */
export class StepHealer {
  private readonly applied = new Map<string, AppliedHeal>();
  private readonly service: HealingService;
  /** The healing cache's fixes by `original|url pattern`, read once, when a step first asks. */
  private cached?: Promise<Map<string, Locator>>;

  constructor(
    readonly policy: HealingPolicy,
    readonly knowledge?: HealingKnowledge,
    /** Model choice among ambiguous candidates (docs/healing.md "With a model"); absent → ranking only. */
    chooser?: ModelChooser,
  ) {
    this.service = new HealingService(policy, knowledge, chooser);
  }

  /**
   * A fix for this item's locator on this page that is known before trying it: one made
   * earlier in this run, else one the healing cache holds. The runner then waits for either
   * locator, so a step healed before does not wait out the locate timeout on every run.
   */
  async knownFix(item: HealableItem, url: string): Promise<Locator | undefined> {
    const selector = this.policy.enabled ? healableSelector(item) : undefined;
    if (!selector) return undefined;
    const fromCache = this.knowledge?.cachedFixes;
    this.cached ??= fromCache
      ? fromCache
          .call(this.knowledge)
          .then((fixes) => new Map(fixes.map((f) => [`${f.original}|${f.urlPattern}`, f.locator])))
          .catch(() => new Map<string, Locator>()) // no shortcut, healing as usual
      : Promise.resolve(new Map<string, Locator>());
    const cached = await this.cached;
    // The common case on the step path: nothing healed yet, nothing cached — no key to build.
    if (this.applied.size === 0 && cached.size === 0) return undefined;
    const key = `${describeLocator(selector)}|${urlPathPattern(url)}`;
    return this.applied.get(key)?.healedLocator ?? cached.get(key);
  }

  async heal<T>(input: {
    item: HealableItem;
    stored: Fingerprint | undefined;
    session: UiSession;
    ctx: StepContext;
    rerun: (healedItem: HealableItem) => Promise<T>;
    /** The locator failure being healed (message and details decide the failure class). */
    error?: { message: string; details?: Record<string, unknown> };
    testId?: string;
    runId?: string;
    stepIndex?: number;
    /** The flow step being healed, when the step came from a flow: what is learned names it. */
    origin?: FlowOrigin;
  }): Promise<HealAttempt<T>> {
    const selector = healableSelector(input.item);
    if (!this.policy.enabled) return { healed: false, reason: 'healing is disabled' };
    if (!selector) return { healed: false, reason: input.item.type === 'extract' ? 'a field read with all: true (a list) is not healed' : `a ${input.item.type} step is not healed` };
    const original = describeLocator(selector);
    const url = input.session.url();
    const urlPattern = urlPathPattern(url);
    const key = `${original}|${urlPattern}`;
    const withLocator = (locator: Locator) => ({ ...input.item, selector: locator }) as HealableItem;

    const known = this.applied.get(key);
    if (known) {
      try {
        const result = await input.rerun(withLocator(known.healedLocator));
        return { healed: true, heal: { ...known, method: 'run', fromCache: false }, result, settle: async (outcome) => this.forgetIfFailed(key, known, outcome) };
      } catch {
        this.applied.delete(key); // the page changed again; heal afresh below
      }
    }

    const message = input.error?.message ?? '';
    const query: HealQuery = {
      original,
      url,
      urlPattern,
      failureClass: failureClass(message, input.error?.details),
      failureText: message,
      testId: input.testId,
      runId: input.runId,
      stepIndex: input.stepIndex,
      ...(input.origin && { flow: { flow: input.origin.flow, step: input.origin.step } }),
    };
    let pageCache: Promise<Fingerprint[]> | undefined;
    const page = () => (pageCache ??= input.session.pageFingerprints());
    const notes: HealPlanNotes = { rejected: [], bestConfidence: 0 };
    const failures: string[] = [];

    for await (const proposal of this.service.proposals({ query, stored: input.stored, page }, notes)) {
      if (input.ctx.signal.aborted) break;
      try {
        const result = await input.rerun(withLocator(proposal.locator));
        const heal: AppliedHeal = { original, healed: proposal.healed, healedLocator: proposal.locator, confidence: proposal.confidence, strategy: proposal.strategy, method: proposal.method, fromCache: proposal.fromCache };
        this.applied.set(key, heal);
        const record: HealRecord = { ...heal, method: proposal.method, fromCache: proposal.fromCache, patternId: proposal.fix?.patternId };
        const settle = async (outcome: TestOutcome) => {
          if (outcome.status === 'passed') return this.learn(query, record, notes, input.ctx);
          this.forgetIfFailed(key, heal, outcome);
          if (outcome.status !== 'failed' || !this.knowledge) return;
          // A remembered fix whose test failed counts against it (and leaves the cache), as one whose re-run failed does.
          try {
            if (proposal.fix) await this.knowledge.recordFailure(query, proposal.fix, `the test failed after this heal: ${outcome.message}`);
            await this.knowledge.completed?.(query, { success: false, bestConfidence: record.confidence });
          } catch (err) {
            input.ctx.log('warn', `healing knowledge: ${(err as Error).message}`);
          }
        };
        return { healed: true, heal, result, settle };
      } catch (err) {
        failures.push(`${proposal.healed}${proposal.method === 'dom_similarity' ? '' : ` (${proposal.method})`}: ${(err as Error).message}`);
        if (proposal.fix && this.knowledge) await this.knowledge.recordFailure(query, proposal.fix, (err as Error).message).catch((e: Error) => input.ctx.log('warn', `healing knowledge: ${e.message}`));
      }
    }
    await this.knowledge?.completed?.(query, { success: false, bestConfidence: notes.bestConfidence }).catch((e: Error) => input.ctx.log('warn', `healing knowledge: ${e.message}`));
    return { healed: false, reason: explain(notes, failures, this.policy.threshold) };
  }

  /** A heal whose test failed is not offered to the run's later tests. */
  private forgetIfFailed(key: string, heal: AppliedHeal, outcome: TestOutcome): void {
    if (outcome.status === 'failed' && this.applied.get(key) === heal) this.applied.delete(key);
  }

  /** Learning must not fail a test that passed: knowledge errors are logged. */
  private async learn(query: HealQuery, record: HealRecord, notes: HealPlanNotes, ctx: StepContext) {
    if (!this.knowledge) return;
    try {
      await this.knowledge.recordSuccess(query, record);
      await this.knowledge.completed?.(query, { success: true, heal: record, bestConfidence: Math.max(notes.bestConfidence, record.confidence) });
    } catch (err) {
      ctx.log('warn', `healing knowledge: could not record the heal: ${(err as Error).message}`);
    }
  }
}

function explain(notes: HealPlanNotes, failures: string[], threshold: number): string {
  const model = notes.model?.suggestion && notes.model.action === 'keep' ? ` (needs approval: ${notes.model.reason})` : '';
  return explainRanking(notes, failures, threshold) + model;
}

function explainRanking(notes: HealPlanNotes, failures: string[], threshold: number): string {
  if (failures.length) return `no candidate passed when re-run (${[...failures, ...notes.rejected].join('; ')})`;
  if (notes.belowThreshold) {
    const { candidate, confidence } = notes.belowThreshold;
    return candidate ? `no confident replacement: best candidate ${describeCandidate(candidate)} has confidence ${confidenceBelow(confidence)} < ${threshold}` : 'the page has no candidate elements';
  }
  if (notes.rejected.length) return notes.rejected.join('; ');
  return 'the page has no candidate elements';
}
