import type { Locator } from '../../contracts/steps.ts';
import type { FailureClass } from './failure-class.ts';

/** How a heal was found; also the `healing_method` of healing.completed. `llm`: the ranker's top candidate, confirmed by a model (model-chooser.ts). */
export type HealMethod = 'run' | 'pattern' | 'memory' | 'cache' | 'dom_similarity' | 'llm' | 'manual';

/** One broken locator, in the words of the healing cache and memory. */
export interface HealQuery {
  /** The broken locator as text (describeLocator). */
  original: string;
  url: string;
  /** URL path with ids as :id (urlPathPattern). */
  urlPattern: string;
  failureClass: FailureClass;
  /** The driver's failure message, for memory similarity. */
  failureText: string;
  testId?: string;
  runId?: string;
  stepIndex?: number;
  /** The step came from a flow: which one and its step (1-based); the fix belongs in the flow. */
  flow?: { flow: string; step: number };
}

/** A fix learned earlier (a proven pattern, a similar failure in memory, or the cache). */
export interface KnownFix {
  source: 'pattern' | 'memory' | 'cache';
  healed: string;
  healedLocator: Locator;
  confidence: number;
  patternId?: string;
  /** pattern: its success count; memory: the similarity of the remembered failure. */
  evidence?: number;
}

export interface KnowledgeLookup {
  fixes: KnownFix[];
  reverted: string[];
}

/** A heal whose re-run passed. */
export interface HealRecord {
  original: string;
  healed: string;
  healedLocator: Locator;
  confidence: number;
  method: HealMethod;
  fromCache: boolean;
  strategy: string;
  patternId?: string;
}

/**
 * What the healer knows beyond one run: proven patterns, memory, the cache. The server
 * binds the store (storeHealingKnowledge); `svc run` binds files in its state dir.
 * Implementations are scoped to one organization and project when built.
 */
export interface HealingKnowledge {
  /**
   * Known fixes for this failure, best first: proven patterns, then memory, then the
   * cache; and the healed selectors people reverted for this selector, which are never
   * applied again (not even when a fresh ranking finds them).
   */
  lookup(q: HealQuery): Promise<KnowledgeLookup>;
  /** A heal's re-run passed: learn it (pattern, cache, memory). */
  recordSuccess(q: HealQuery, heal: HealRecord): Promise<void>;
  /** A known fix was tried and its re-run failed: count it against the pattern, drop it from the cache. */
  recordFailure(q: HealQuery, fix: KnownFix, reason: string): Promise<void>;
  /** After every heal attempt, successful or not (healing.completed, stats). */
  completed?(q: HealQuery, outcome: { success: boolean; heal?: HealRecord; bestConfidence: number }): Promise<void>;
  /**
   * The fixes the 7-day cache holds for the project, by original selector and page (URL
   * pattern): what a run tries alongside a locator it healed before, so it does not wait
   * out the locate timeout first. Read once per healer.
   */
  cachedFixes?(): Promise<Array<{ original: string; urlPattern: string; locator: Locator }>>;
}

/** The text embedded for memory: stored with the fix and compared with later failures. */
export function failureText(q: Pick<HealQuery, 'original' | 'failureClass' | 'urlPattern' | 'failureText'>): string {
  return `${q.original} ${q.failureClass.replace('_', ' ')} on ${q.urlPattern}: ${q.failureText}`.slice(0, 4000);
}
