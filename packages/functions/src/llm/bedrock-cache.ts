/**
 * Which Bedrock models take Converse `cachePoint` blocks. Bedrock rejects a request with
 * cache points for a model without prompt caching (a ValidationException, which fails
 * the call rather than falling back), so this is an allow list, not "every Claude":
 * Claude 3 Haiku/Sonnet/Opus and Claude 3.5 Sonnet (svc's default Bedrock models) have
 * none, and Claude 3.5 Sonnet v2 only for accounts admitted to its preview. A model that
 * is not listed simply runs uncached. Ids may carry a cross-region prefix (`us.`, `eu.`,
 * `apac.`, `global.`), hence a search rather than an anchored match.
 */
const CACHING_MODELS = [
  // Claude 3.5 Haiku, 3.7 Sonnet, and the 4-and-later names (claude-sonnet-4…, claude-opus-4-1…, claude-haiku-4-5…).
  /\banthropic\.claude-(?:3-5-haiku|3-7-sonnet|(?:sonnet|opus|haiku)-\d)/,
  // Amazon Nova Micro, Lite, Pro, Premier (and Nova 2).
  /\bamazon\.nova-(?:2-)?(?:micro|lite|pro|premier)\b/,
];

export function supportsCachePoints(modelId: string): boolean {
  return CACHING_MODELS.some((re) => re.test(modelId));
}

/** "Cache the prompt up to here" in Converse: the default (five-minute) cache. */
export const CACHE_POINT = { cachePoint: { type: 'default' as const } };
