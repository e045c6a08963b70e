import { indicativeCostPer1kTokens, taskComplexities, type TaskComplexity } from '../contracts/ai-usage.ts';
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

/** Prompt-cache prices relative to plain input (Anthropic's: a read is a tenth, a write a quarter more). */
export const CACHE_READ_FACTOR = 0.1;
export const CACHE_WRITE_FACTOR = 1.25;

/**
 * Cost of a call: tokens at the model's price per 1K, rounded to a millionth of a dollar.
 * Input read from or written to a prompt cache (part of inputTokens) is priced as the
 * provider bills it.
 */
export function costUsd(inputTokens: number, outputTokens: number, costPer1kTokens: number, cache: { read?: number; write?: number } = {}): number {
  const read = cache.read ?? 0;
  const write = cache.write ?? 0;
  const weighted = Math.max(0, inputTokens - read - write) + read * CACHE_READ_FACTOR + write * CACHE_WRITE_FACTOR + outputTokens;
  return Math.round((weighted / 1000) * costPer1kTokens * 1e6) / 1e6;
}

/** A rough token count for budgeting before a call: ~4 characters per token. */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4);
