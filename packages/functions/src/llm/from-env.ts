import { createLlmClient, notConfiguredLlmClient } from '@svc/core/llm/client';
import type { LlmClient, LlmProvider, ModelChoice, ModelTier } from '@svc/core/llm/types';
import type { AlertSink } from '@svc/core/events/ports';
import type { Clock } from '@svc/core/ports/clock';
import type { Logger } from '@svc/core/ports/logger';
import type { Store } from '@svc/core/store/index';
import type { MetricsRegistry } from '@svc/core/telemetry/metrics';
import { anthropicProvider } from './anthropic.ts';
import { bedrockProvider } from './bedrock.ts';
import { parseLlmConfig, type LlmConfig, type ProviderConfig } from './config.ts';
import { openAiProvider } from './openai.ts';

export interface LlmWiring {
  store: Pick<Store, 'aiUsage' | 'organizations'>;
  clock: Clock;
  alerts?: AlertSink;
  metrics?: MetricsRegistry;
  logger?: Logger;
}

/**
 * The LlmClient for an entry point: the configured providers behind the router, or the
 * "not configured" client (every call fails with NO_MODEL) when SVC_LLM_PROVIDERS is
 * unset. A set but broken configuration throws at start-up, naming the variable.
 */
export function createLlmFromEnv(env: Record<string, string | undefined>, wiring: LlmWiring): LlmClient {
  const config = parseLlmConfig(env);
  if (!config) return notConfiguredLlmClient();
  return createLlmFromConfig(config, wiring);
}

export function createLlmFromConfig(config: LlmConfig, wiring: LlmWiring): LlmClient {
  const models: ModelChoice[] = config.providers.flatMap((p) => {
    const provider = providerFor(p, config.timeoutMs);
    return (Object.entries(p.models) as Array<[ModelTier, string]>).map(([tier, model]) => ({ provider, model, tier, costPer1kTokens: config.costPer1k[tier] }));
  });
  return createLlmClient({
    models,
    fallback: config.fallback,
    store: wiring.store,
    clock: wiring.clock,
    alerts: wiring.alerts,
    metrics: wiring.metrics,
    logger: wiring.logger,
    defaultMaxTokens: config.maxTokens,
    budget: { perRunUsd: config.perRunUsd, perTestUsd: config.perTestUsd },
  });
}

function providerFor(p: ProviderConfig, timeoutMs: number): LlmProvider {
  switch (p.name) {
    case 'anthropic':
      return anthropicProvider({ apiKey: p.apiKey as string, baseUrl: p.baseUrl, timeoutMs });
    case 'openai':
      return openAiProvider({ apiKey: p.apiKey, baseUrl: p.baseUrl, timeoutMs });
    case 'bedrock':
      return bedrockProvider({ region: p.region as string, endpoint: p.endpoint, timeoutMs });
  }
}
