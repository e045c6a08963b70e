import { z } from 'zod';
import { modelTiers, type ModelTier } from '@svc/core/llm/types';
import { indicativeCostPerTier } from '@svc/core/llm/tiers';

/**
 * LLM configuration from the environment (docs/intelligence.md "Models"):
 *
 *   SVC_LLM_PROVIDERS=anthropic,openai,bedrock   preference order (alias SVC_LLM_PROVIDER)
 *   SVC_LLM_FALLBACK=false                       turn fallback to cheaper models off (default on)
 *   SVC_LLM_TIMEOUT_MS, SVC_LLM_MAX_TOKENS
 *   SVC_LLM_COST_CHEAP / _MID / _CAPABLE         USD per 1K tokens (default the spec's 0.001/0.003/0.015)
 *   SVC_LLM_COST_LIMIT_PER_RUN / _PER_TEST       lower the spec's 10 / 1 USD caps (never raise)
 *   SVC_<P>_MODEL_CHEAP / _MID / _CAPABLE        model ids per tier, P = ANTHROPIC, OPENAI, BEDROCK
 *   SVC_ANTHROPIC_API_KEY (or ANTHROPIC_API_KEY), SVC_ANTHROPIC_BASE_URL
 *   SVC_OPENAI_API_KEY (or OPENAI_API_KEY), SVC_OPENAI_BASE_URL (any OpenAI-compatible server)
 *   SVC_BEDROCK_REGION (or AWS_REGION), SVC_BEDROCK_ENDPOINT
 *   SVC_LLM_VISION=true                          the mid-tier models read screenshots: enable the vision fallback (default off)
 *   SVC_LLM_VISION_VERIFY=true                   after a vision action, the model checks the new state on a second screenshot (default off)
 */
export const providerNames = ['anthropic', 'openai', 'bedrock'] as const;
export type ProviderName = (typeof providerNames)[number];

export const defaultModels: Record<ProviderName, Record<ModelTier, string>> = {
  anthropic: { cheap: 'claude-3-5-haiku-latest', mid: 'claude-sonnet-4-5', capable: 'claude-opus-4-1' },
  openai: { cheap: 'gpt-4o-mini', mid: 'gpt-4o', capable: 'gpt-4.1' },
  bedrock: { cheap: 'anthropic.claude-3-haiku-20240307-v1:0', mid: 'anthropic.claude-3-5-sonnet-20240620-v1:0', capable: 'anthropic.claude-3-opus-20240229-v1:0' },
};

export interface ProviderConfig {
  name: ProviderName;
  models: Partial<Record<ModelTier, string>>;
  apiKey?: string;
  baseUrl?: string;
  region?: string;
  endpoint?: string;
}

export interface LlmConfig {
  providers: ProviderConfig[];
  fallback: boolean;
  timeoutMs: number;
  maxTokens: number;
  costPer1k: Record<ModelTier, number>;
  perRunUsd?: number;
  perTestUsd?: number;
  /** SVC_LLM_VISION: the models that answer MODERATE tasks accept images (vision-locator.ts). */
  vision: boolean;
  /** SVC_LLM_VISION_VERIFY: after a vision action, ask the model whether the page changed as it should (needs SVC_LLM_VISION). */
  visionVerify: boolean;
}

const Bool = z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off']).transform((v) => ['true', '1', 'yes', 'on'].includes(v));
const Num = (min: number) => z.coerce.number().min(min);

function fail(lines: string[]): never {
  throw new Error(`invalid LLM configuration:\n${lines.map((l) => `  ${l}`).join('\n')}`);
}

function parse<T>(schema: z.ZodType<T>, value: string | undefined, name: string, errors: string[]): T | undefined {
  if (value === undefined || value === '') return undefined;
  const r = schema.safeParse(value.trim().toLowerCase());
  if (!r.success) errors.push(`${name}: ${r.error.issues[0]?.message ?? 'invalid'}`);
  return r.success ? r.data : undefined;
}

/** Parses the environment; undefined when no provider is named (the "not configured" client). */
export function parseLlmConfig(env: Record<string, string | undefined>): LlmConfig | undefined {
  const list = (env.SVC_LLM_PROVIDERS ?? env.SVC_LLM_PROVIDER ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (list.length === 0) return undefined;
  const errors: string[] = [];
  const providers: ProviderConfig[] = [];
  for (const name of list) {
    if (!(providerNames as readonly string[]).includes(name)) {
      errors.push(`SVC_LLM_PROVIDERS: unknown provider "${name}" (expected ${providerNames.join(', ')})`);
      continue;
    }
    if (providers.some((p) => p.name === name)) continue;
    providers.push(providerConfig(name as ProviderName, env, errors));
  }
  const fallback = parse(Bool, env.SVC_LLM_FALLBACK, 'SVC_LLM_FALLBACK', errors) ?? true;
  const timeoutMs = parse(Num(1).int(), env.SVC_LLM_TIMEOUT_MS, 'SVC_LLM_TIMEOUT_MS', errors) ?? 60_000;
  const maxTokens = parse(Num(1).int(), env.SVC_LLM_MAX_TOKENS, 'SVC_LLM_MAX_TOKENS', errors) ?? 1024;
  const costPer1k = Object.fromEntries(
    modelTiers.map((t) => [t, parse(Num(0), env[`SVC_LLM_COST_${t.toUpperCase()}`], `SVC_LLM_COST_${t.toUpperCase()}`, errors) ?? indicativeCostPerTier[t]]),
  ) as Record<ModelTier, number>;
  const perRunUsd = parse(Num(0), env.SVC_LLM_COST_LIMIT_PER_RUN, 'SVC_LLM_COST_LIMIT_PER_RUN', errors);
  const perTestUsd = parse(Num(0), env.SVC_LLM_COST_LIMIT_PER_TEST, 'SVC_LLM_COST_LIMIT_PER_TEST', errors);
  // Opt-in: not every model (least of all local ones) reads images, and acting at coordinates changes how steps run.
  const vision = parse(Bool, env.SVC_LLM_VISION, 'SVC_LLM_VISION', errors) ?? false;
  const visionVerify = parse(Bool, env.SVC_LLM_VISION_VERIFY, 'SVC_LLM_VISION_VERIFY', errors) ?? false;
  if (visionVerify && !vision) errors.push('SVC_LLM_VISION_VERIFY: verifies what the vision fallback did, so it needs SVC_LLM_VISION=true');
  if (errors.length) fail(errors);
  return { providers, fallback, timeoutMs, maxTokens, costPer1k, perRunUsd, perTestUsd, vision, visionVerify };
}

function providerConfig(name: ProviderName, env: Record<string, string | undefined>, errors: string[]): ProviderConfig {
  const P = name.toUpperCase();
  const given: Partial<Record<ModelTier, string>> = {};
  for (const t of modelTiers) {
    const v = env[`SVC_${P}_MODEL_${t.toUpperCase()}`]?.trim();
    if (v) given[t] = v;
  }
  const baseUrl = env[`SVC_${P}_BASE_URL`]?.trim() || undefined;
  if (baseUrl && !/^https?:\/\/[^\s]+$/i.test(baseUrl)) errors.push(`SVC_${P}_BASE_URL: must be an http(s) URL`);
  // A custom OpenAI-compatible server serves its own models: no guessing their names.
  const useDefaults = !(name === 'openai' && baseUrl);
  const models = Object.keys(given).length ? given : useDefaults ? { ...defaultModels[name] } : {};
  if (Object.keys(models).length === 0) errors.push(`SVC_${P}_MODEL_CHEAP/_MID/_CAPABLE: name at least one model served by ${baseUrl}`);
  switch (name) {
    case 'anthropic': {
      const apiKey = env.SVC_ANTHROPIC_API_KEY || env.ANTHROPIC_API_KEY;
      if (!apiKey) errors.push('SVC_ANTHROPIC_API_KEY (or ANTHROPIC_API_KEY): required for the anthropic provider');
      return { name, models, apiKey, baseUrl };
    }
    case 'openai': {
      const apiKey = env.SVC_OPENAI_API_KEY || env.OPENAI_API_KEY || undefined;
      if (!apiKey && !baseUrl) errors.push('SVC_OPENAI_API_KEY (or OPENAI_API_KEY): required for api.openai.com (a local server set with SVC_OPENAI_BASE_URL may do without)');
      return { name, models, apiKey, baseUrl };
    }
    case 'bedrock': {
      const region = env.SVC_BEDROCK_REGION || env.AWS_REGION || env.AWS_DEFAULT_REGION;
      if (!region) errors.push('SVC_BEDROCK_REGION (or AWS_REGION): required for the bedrock provider');
      const endpoint = env.SVC_BEDROCK_ENDPOINT?.trim() || undefined;
      if (endpoint && !/^https?:\/\/[^\s]+$/i.test(endpoint)) errors.push('SVC_BEDROCK_ENDPOINT: must be an http(s) URL');
      return { name, models, region, endpoint };
    }
  }
}
