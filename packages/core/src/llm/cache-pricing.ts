/**
 * What a provider bills for input read from or written to its prompt cache, relative to
 * the model's plain input price. The ratio is the provider's (and on Bedrock the model
 * family's), not one number for all: pricing OpenAI's cached tokens at Anthropic's tenth
 * would make budgets look looser than they are.
 */
export interface CacheRates {
  /** A cached input token read back (part of inputTokens). */
  read: number;
  /** An input token written to the cache on this call (part of inputTokens). */
  write: number;
}

/** Anthropic (and its models on Bedrock): a read is a tenth, a five-minute write a quarter more. */
export const ANTHROPIC_CACHE_RATES: CacheRates = { read: 0.1, write: 1.25 };

/**
 * OpenAI caches by itself and charges nothing extra for the write. The read discount
 * differs by model (a half for gpt-4o and gpt-4o-mini, three quarters for gpt-4.1, more
 * for newer ones): a half is the smallest, so costs stay an upper bound on any model.
 */
export const OPENAI_CACHE_RATES: CacheRates = { read: 0.5, write: 1 };

/** Amazon Nova on Bedrock: a read costs a quarter of input; a write is priced as plain input (no surcharge). */
export const NOVA_CACHE_RATES: CacheRates = { read: 0.25, write: 1 };

/** A provider whose cache prices svc does not know: cached input is priced as plain input (an upper bound). */
export const UNPRICED_CACHE_RATES: CacheRates = { read: 1, write: 1 };

/**
 * The cache rates for a model of a provider, by the provider's name in usage rows
 * (`LlmProvider.name`). Bedrock serves several families with their own prices; its
 * model ids may carry a cross-region prefix (`us.`, `eu.`, `global.`), hence the search.
 */
export function cacheRatesFor(provider: string, model: string): CacheRates {
  switch (provider) {
    case 'anthropic':
      return ANTHROPIC_CACHE_RATES;
    case 'openai':
      return OPENAI_CACHE_RATES;
    case 'bedrock':
      if (/\bamazon\.nova-/.test(model)) return NOVA_CACHE_RATES;
      if (/\banthropic\.claude-/.test(model)) return ANTHROPIC_CACHE_RATES;
      return UNPRICED_CACHE_RATES;
    default:
      return UNPRICED_CACHE_RATES;
  }
}
