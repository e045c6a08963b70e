export { createLlmClient, notConfiguredLlmClient, type LlmClientOptions } from './client.ts';
export { classifyTask, baseComplexity } from './classify.ts';
export { candidatesFor } from './router.ts';
export { tierForComplexity, indicativeCostPerTier, costUsd, estimateTokens } from './tiers.ts';
export { cacheRatesFor, type CacheRates } from './cache-pricing.ts';
export { budgetPolicy, defaultBudgetPolicy, type BudgetPolicy } from './budget.ts';
export { LlmError, noModel, reasonForStatus, type LlmErrorReason } from './errors.ts';
export * from './types.ts';
