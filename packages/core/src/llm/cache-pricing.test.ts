import { describe, expect, it } from 'vitest';
import { cacheRatesFor } from './cache-pricing.ts';
import { costUsd } from './tiers.ts';

describe('prompt-cache rates per provider', () => {
  it('knows Anthropic, OpenAI, and Bedrock by model family (cross-region prefixes included)', () => {
    expect(cacheRatesFor('anthropic', 'claude-sonnet-4-5')).toEqual({ read: 0.1, write: 1.25 });
    expect(cacheRatesFor('openai', 'gpt-4o')).toEqual({ read: 0.5, write: 1 });
    expect(cacheRatesFor('bedrock', 'global.anthropic.claude-sonnet-4-5-20250929-v1:0')).toEqual({ read: 0.1, write: 1.25 });
    expect(cacheRatesFor('bedrock', 'eu.amazon.nova-lite-v1:0')).toEqual({ read: 0.25, write: 1 });
    // Unknown: cached input costs what plain input does (an upper bound, never an invented discount).
    expect(cacheRatesFor('bedrock', 'meta.llama3-1-70b-instruct-v1:0')).toEqual({ read: 1, write: 1 });
    expect(cacheRatesFor('ollama', 'llama3.1')).toEqual({ read: 1, write: 1 });
  });

  it('costUsd weighs cached input by the rates given, Anthropic\'s when none are', () => {
    // 1,000 in (800 read) + 0 out: 200 + 800 × rate.
    expect(costUsd(1_000, 0, 1, { read: 800, rates: { read: 0.5, write: 1 } })).toBe(0.6);
    expect(costUsd(1_000, 0, 1, { read: 800 })).toBe(0.28);
    expect(costUsd(1_000, 0, 1, { write: 800 })).toBe(1.2);
    expect(costUsd(1_000, 0, 1)).toBe(1);
  });
});
