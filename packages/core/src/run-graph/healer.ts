import type { TestSpec } from '../contracts/test-spec.ts';
import type { TestResult } from '../contracts/run-state.ts';
import type { TestExtras } from './spec-to-definition.ts';

/**
 * The self-healer, as the run graph sees it. The healing issue implements it (DOM
 * similarity, memory, LLM); the graph only asks for a fix and decides whether it may be
 * applied: locator-only fixes at confidence ≥ the patch's threshold (the project's, default
 * SELF_HEAL_CONFIDENCE_THRESHOLD) apply automatically, anything else waits for approval.
 */
export interface HealFailure {
  test: TestSpec;
  result: TestResult;
  /** Previous fixes tried for this test in this run, oldest first. */
  previous: HealPatch[];
  attempt: number;
  app_url: string;
  /** The run the failure belongs to: a healer that replays the test uses the run's own execution resources. */
  organization_id?: string;
  project_id?: string;
  thread_id?: string;
  /** The test's own timeout and {{parameters}} when it came from a file (svc run). */
  extras?: TestExtras;
}

export interface HealPatch {
  /** The test with the fix applied. */
  test: TestSpec;
  /** What changed, for people: e.g. [{ step: 2, field: 'selector', from: '#buy', to: '[data-testid=buy]' }]. */
  changes: Array<Record<string, unknown>>;
  confidence: number;
  /** The confidence this project needs for a fix to apply without approval (its `config.healing.threshold`); default SELF_HEAL_CONFIDENCE_THRESHOLD. */
  threshold?: number;
  /** locator: only selectors changed; anything else (assertion, data, intent) always needs approval. */
  kind: 'locator' | 'assertion' | 'data' | 'other';
  /** How the fix was found (healing.completed's healing_method), e.g. dom_similarity. */
  method?: string;
}

export type HealOutcome =
  | { healed: false; reason: string; usage?: HealUsage }
  | { healed: true; patch: HealPatch; usage?: HealUsage };

export interface HealUsage {
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

export interface Healer {
  heal(failure: HealFailure, ctx: { signal: AbortSignal }): Promise<HealOutcome>;
}
