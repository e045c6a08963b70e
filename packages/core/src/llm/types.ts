import type { TaskComplexity } from '../contracts/ai-usage.ts';

/** Model tiers (spec rule 4): cheapest first. */
export const modelTiers = ['cheap', 'mid', 'capable'] as const;
export type ModelTier = (typeof modelTiers)[number];

export interface LlmMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** An image sent with the last user message (screenshots), base64 without the data: prefix. */
export interface LlmImage {
  mediaType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  base64: string;
}

/** One completion request, in provider-neutral form. */
export interface LlmRequest {
  model: string;
  system?: string;
  messages: LlmMessage[];
  maxTokens: number;
  temperature?: number;
  /** Ask for a single JSON object as the answer (native JSON mode where the provider has one). */
  json?: boolean;
  images?: LlmImage[];
  /** The system prompt and this conversation will be sent again, longer (see LlmInput.cache). */
  cache?: boolean;
}

export interface LlmResponse {
  text: string;
  /** Every input token the model read, cached or not. */
  inputTokens: number;
  outputTokens: number;
  /** Of inputTokens: read from the provider's prompt cache (billed at a discount, cache-pricing.ts). */
  cacheReadTokens?: number;
  /** Of inputTokens: written to the provider's prompt cache (priced per provider: Anthropic bills 1.25 times input). */
  cacheWriteTokens?: number;
  /** The model that answered, as the provider reports it. */
  model: string;
}

/**
 * The port every provider adapter implements (Anthropic, OpenAI-compatible, Bedrock).
 * Adapters throw LlmError (errors.ts) so the router can tell what to fall back on.
 */
export interface LlmProvider {
  /** Short name for logs and usage rows, e.g. "anthropic". */
  readonly name: string;
  complete(request: LlmRequest): Promise<LlmResponse>;
}

/** A model the router may pick: which provider serves it, at which tier, at what price. */
export interface ModelChoice {
  provider: LlmProvider;
  model: string;
  tier: ModelTier;
  /** USD per 1K tokens (input and output alike, the spec's indicative figures by default). */
  costPer1kTokens: number;
}

/** What a feature asks for: the task (for routing and the usage row) and optional hints. */
export interface LlmTask {
  /** What the call is for; stored as ai_usage.task_type, e.g. chat_answer, heal_selector. */
  type: string;
  /** Explicit class; wins over the classifier's rules. */
  complexity?: TaskComplexity;
  /** Raise the class by one step (multi-step reasoning, a high-stakes answer). */
  needsReasoning?: boolean;
}

export interface LlmInput {
  system?: string;
  /** A single user prompt, or a whole conversation. */
  prompt?: string;
  messages?: LlmMessage[];
  maxTokens?: number;
  temperature?: number;
  json?: boolean;
  images?: LlmImage[];
  /**
   * The same system prompt and conversation will be sent again with more turns (an agent's
   * loop): a provider that caches prompts on request (Anthropic, Claude and Nova on Bedrock)
   * is asked to, so later turns read the long prefix at a fraction of the price. Not for
   * one-off calls: writing Anthropic's cache costs a quarter more than plain input.
   * OpenAI caches long prompts whether asked or not.
   */
  cache?: boolean;
}

/** Who pays and what the call belongs to (budgets are checked against these). */
export interface LlmCallContext {
  organizationId: string;
  runId?: string | null;
  testId?: string | null;
}

export interface LlmResult {
  text: string;
  model: string;
  provider: string;
  tier: ModelTier;
  complexity: TaskComplexity;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** ai_usage id of this call. */
  usageId: string;
  /** True when the answer came from another model than the first choice. */
  fellBack: boolean;
  /** Models tried before the one that answered, and why each was passed over. */
  skipped: Array<{ provider: string; model: string; reason: string }>;
}

/** The facade other features use. */
export interface LlmClient {
  /** False for the "not configured" client: callers can take their deterministic path. */
  readonly configured: boolean;
  /** Configured providers and models, for /health-style listings (no secrets). */
  describe(): Array<{ provider: string; model: string; tier: ModelTier }>;
  complete(task: LlmTask, input: LlmInput, ctx: LlmCallContext): Promise<LlmResult>;
}
