/**
 * LLM configuration from the environment: the scheme documented in docs/intelligence.md
 * ("Models"), clear errors naming the variable, and the "not configured" client.
 */
import { describe, expect, it } from 'vitest';
import { createStore } from '@svc/core/store/index';
import { systemClock } from '@svc/core/ports/clock';
import { parseLlmConfig } from '../../packages/functions/src/llm/config.ts';
import { createLlmFromEnv } from '../../packages/functions/src/llm/from-env.ts';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';

const configError = (env: Record<string, string>) => {
  try {
    parseLlmConfig(env);
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
};

describe('LLM configuration', () => {
  it('no SVC_LLM_PROVIDERS means not configured: calls fail with NO_MODEL', async () => {
    expect(parseLlmConfig({})).toBeUndefined();
    const llm = createLlmFromEnv({ ANTHROPIC_API_KEY: 'present but not chosen' }, { store: createStore(new FileTable(), systemClock), clock: systemClock });
    expect(llm.configured).toBe(false);
    expect(llm.describe()).toEqual([]);
    await expect(llm.complete({ type: 'chat_answer' }, { prompt: 'x' }, { organizationId: 'o' })).rejects.toMatchObject({ code: 'NOT_CONFIGURED', reason: 'NO_MODEL' });
  });

  it('providers in preference order with default models per tier, spec costs and fallback on', () => {
    const c = parseLlmConfig({ SVC_LLM_PROVIDERS: 'anthropic, bedrock', ANTHROPIC_API_KEY: 'k', AWS_REGION: 'eu-west-1' })!;
    expect(c.providers.map((p) => p.name)).toEqual(['anthropic', 'bedrock']);
    expect(Object.keys(c.providers[0].models)).toEqual(['cheap', 'mid', 'capable']);
    expect(c.providers[1].region).toBe('eu-west-1');
    expect(c.fallback).toBe(true);
    expect(c.costPer1k).toEqual({ cheap: 0.001, mid: 0.003, capable: 0.015 });
  });

  it('an OpenAI-compatible local server: base URL, no key, only the models named', () => {
    const c = parseLlmConfig({ SVC_LLM_PROVIDER: 'openai', SVC_OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', SVC_OPENAI_MODEL_CHEAP: 'llama3.1:8b', SVC_LLM_FALLBACK: 'false' })!;
    expect(c.providers[0]).toEqual({ name: 'openai', models: { cheap: 'llama3.1:8b' }, apiKey: undefined, baseUrl: 'http://127.0.0.1:11434/v1' });
    expect(c.fallback).toBe(false);
  });

  it('a broken configuration names every variable at fault', () => {
    expect(configError({ SVC_LLM_PROVIDERS: 'anthropic' })).toMatch(/SVC_ANTHROPIC_API_KEY \(or ANTHROPIC_API_KEY\): required/);
    expect(configError({ SVC_LLM_PROVIDERS: 'gemini' })).toMatch(/SVC_LLM_PROVIDERS: unknown provider "gemini" \(expected anthropic, openai, bedrock\)/);
    expect(configError({ SVC_LLM_PROVIDERS: 'openai', SVC_OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1' })).toMatch(/SVC_OPENAI_MODEL_CHEAP\/_MID\/_CAPABLE: name at least one model/);
    expect(configError({ SVC_LLM_PROVIDERS: 'openai' })).toMatch(/SVC_OPENAI_API_KEY \(or OPENAI_API_KEY\): required for api.openai.com/);
    expect(configError({ SVC_LLM_PROVIDERS: 'bedrock' })).toMatch(/SVC_BEDROCK_REGION \(or AWS_REGION\)/);
    const many = configError({ SVC_LLM_PROVIDERS: 'openai', OPENAI_API_KEY: 'k', SVC_LLM_FALLBACK: 'maybe', SVC_LLM_TIMEOUT_MS: '-1' });
    expect(many).toMatch(/SVC_LLM_FALLBACK/);
    expect(many).toMatch(/SVC_LLM_TIMEOUT_MS/);
  });

  it('keys never appear in configuration errors', () => {
    expect(configError({ SVC_LLM_PROVIDERS: 'anthropic,nope', ANTHROPIC_API_KEY: 'sk-ant-very-secret' })).not.toContain('sk-ant-very-secret');
  });

  it('lists configured models without secrets', () => {
    const llm = createLlmFromEnv({ SVC_LLM_PROVIDERS: 'anthropic', ANTHROPIC_API_KEY: 'sk-secret', SVC_ANTHROPIC_MODEL_CHEAP: 'claude-haiku' }, { store: createStore(new FileTable(), systemClock), clock: systemClock });
    expect(llm.configured).toBe(true);
    expect(llm.describe()).toEqual([{ provider: 'anthropic', model: 'claude-haiku', tier: 'cheap' }]);
    expect(JSON.stringify(llm.describe())).not.toContain('sk-secret');
  });
});
