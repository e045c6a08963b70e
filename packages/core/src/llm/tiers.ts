import { indicativeCostPer1kTokens, taskComplexities, type TaskComplexity } from '../contracts/ai-usage.ts';
import { ANTHROPIC_CACHE_RATES, type CacheRates } from './cache-pricing.ts';
import { modelTiers, type ModelTier } from './types.ts';

/** Spec rule 4: TRIVIAL and SIMPLE → cheapest, MODERATE and COMPLEX → mid, EXPERT → most capable. */
export const tierForComplexity: Record<TaskComplexity, ModelTier> = {
  TRIVIAL: 'cheap',
  SIMPLE: 'cheap',
  MODERATE: 'mid',
  COMPLEX: 'mid',
  EXPERT: 'capable',
};

/** Indicative USD per 1K tokens of each tier, from the spec's per-class figures. */
export const indicativeCostPerTier: Record<ModelTier, number> = {
  cheap: indicativeCostPer1kTokens.SIMPLE,
  mid: indicativeCostPer1kTokens.COMPLEX,
  capable: indicativeCostPer1kTokens.EXPERT,
};

/** Tiers cheaper than `tier`, nearest first. */
export function cheaperTiers(tier: ModelTier): ModelTier[] {
  return modelTiers.slice(0, modelTiers.indexOf(tier)).reverse();
}

/** Tiers more capable than `tier`, nearest first. */
export function richerTiers(tier: ModelTier): ModelTier[] {
  return modelTiers.slice(modelTiers.indexOf(tier) + 1);
}

export const complexityRank = (c: TaskComplexity) => taskComplexities.indexOf(c);
export const complexityAt = (rank: number): TaskComplexity => taskComplexities[Math.max(0, Math.min(taskComplexities.length - 1, rank))];

/**
 * Cost of a call: tokens at the model's price per 1K, rounded to a millionth of a dollar.
 * Input read from or written to a prompt cache (part of inputTokens) is weighed by the
 * answering provider's cache rates (cache-pricing.ts); without rates, Anthropic's.
 */
export function costUsd(
  inputTokens: number,
  outputTokens: number,
  costPer1kTokens: number,
  cache: { read?: number; write?: number; rates?: CacheRates } = {},
): number {
  const read = cache.read ?? 0;
  const write = cache.write ?? 0;
  const rates = cache.rates ?? ANTHROPIC_CACHE_RATES;
  const weighted = Math.max(0, inputTokens - read - write) + read * rates.read + write * rates.write + outputTokens;
  return Math.round((weighted / 1000) * costPer1kTokens * 1e6) / 1e6;
}

/** A rough token count for budgeting before a call: ~4 characters per token. */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4);
