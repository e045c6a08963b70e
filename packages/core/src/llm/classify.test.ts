import { describe, expect, it } from 'vitest';
import { classifyTask } from './classify.ts';
import { candidatesFor } from './router.ts';
import { tierForComplexity, costUsd } from './tiers.ts';
import type { LlmProvider, ModelChoice } from './types.ts';

describe('task classification (spec rule 4)', () => {
  it('uses the task type, input size, hints and explicit classes', () => {
    expect(classifyTask({ type: 'classify' }, { inputTokens: 100 })).toBe('TRIVIAL');
    expect(classifyTask({ type: 'chat_answer' }, { inputTokens: 100 })).toBe('SIMPLE');
    expect(classifyTask({ type: 'unknown_task' }, { inputTokens: 100 })).toBe('MODERATE');
    expect(classifyTask({ type: 'chat_answer' }, { inputTokens: 9_000 })).toBe('MODERATE');
    expect(classifyTask({ type: 'chat_answer' }, { inputTokens: 40_000 })).toBe('COMPLEX');
    expect(classifyTask({ type: 'analyze_code', needsReasoning: true }, { inputTokens: 40_000 })).toBe('EXPERT');
    expect(classifyTask({ type: 'classify' }, { inputTokens: 10, hasImages: true })).toBe('MODERATE');
    expect(classifyTask({ type: 'analyze_code', complexity: 'TRIVIAL' }, { inputTokens: 99_000 })).toBe('TRIVIAL');
  });

  it('maps classes to tiers and prices calls by tier', () => {
    expect(Object.values(tierForComplexity)).toEqual(['cheap', 'cheap', 'mid', 'mid', 'capable']);
    expect(costUsd(600, 400, 0.015)).toBe(0.015);
    expect(costUsd(1, 0, 0.001)).toBe(0.000001);
  });
});

describe('candidate order', () => {
  const p = (name: string): LlmProvider => ({ name, complete: async () => ({ text: '', inputTokens: 0, outputTokens: 0, model: '' }) });
  const m = (provider: string, tier: ModelChoice['tier']): ModelChoice => ({ provider: p(provider), model: `${provider}-${tier}`, tier, costPer1kTokens: 0 });
  const models = [m('a', 'cheap'), m('a', 'capable'), m('b', 'mid'), m('b', 'cheap')];
  const ids = (list: ModelChoice[]) => list.map((c) => c.model);

  it('the tier in provider order, then cheaper tiers nearest first', () => {
    expect(ids(candidatesFor(models, 'capable', true))).toEqual(['a-capable', 'b-mid', 'a-cheap', 'b-cheap']);
    expect(ids(candidatesFor(models, 'mid', true))).toEqual(['b-mid', 'a-cheap', 'b-cheap']);
  });
  it('only the first choice when fallback is off', () => {
    expect(ids(candidatesFor(models, 'mid', false))).toEqual(['b-mid']);
  });
  it('a richer tier stands in when nothing at or below the tier is configured', () => {
    expect(ids(candidatesFor([m('a', 'capable'), m('b', 'mid')], 'cheap', true))).toEqual(['b-mid']);
  });
});
