import { limits } from '../contracts/limits.ts';
import { AppError } from '../errors.ts';
import type { AlertSink } from '../events/ports.ts';
import type { Clock } from '../ports/clock.ts';
import { silentLogger, type Logger } from '../ports/logger.ts';
import type { AiUsageRepo } from '../store/ai-usage.ts';
import type { Organization } from '../store/organizations.ts';
import type { MetricsRegistry } from '../telemetry/metrics.ts';
import { assertWithinBudget, budgetLimits, budgetPolicy, crossedAlertThreshold, scopeCrossed, wouldExceed, type BudgetPolicy } from './budget.ts';
import { cacheRatesFor } from './cache-pricing.ts';
import { classifyTask } from './classify.ts';
import { LlmError, noModel } from './errors.ts';
import { candidatesFor } from './router.ts';
import { costUsd, estimateTokens, tierForComplexity } from './tiers.ts';
import type { LlmCallContext, LlmClient, LlmInput, LlmMessage, LlmResult, LlmTask, ModelChoice } from './types.ts';

export interface LlmClientOptions {
  /** Every configured model, in provider preference order. */
  models: ModelChoice[];
  /** Fall back to cheaper models on provider errors and budget pressure (default: on). */
  fallback?: boolean;
  store: { aiUsage: AiUsageRepo; organizations: { get(orgId: string): Promise<Organization | undefined> } };
  clock: Clock;
  alerts?: AlertSink;
  metrics?: MetricsRegistry;
  budget?: Partial<BudgetPolicy>;
  logger?: Logger;
  /** Output tokens when the caller gives no maxTokens. */
  defaultMaxTokens?: number;
}

/** Rough prompt cost of one image, for budgeting before the call. */
const IMAGE_TOKENS = 1_600;

/**
 * The LLM facade: classify the task, pick models by tier, check budgets, call with
 * fallback, record usage (ai_usage + roll-ups), raise the 80% budget alert once per
 * period, count tokens in llm_tokens_total.
 */
export function createLlmClient(opts: LlmClientOptions): LlmClient {
  if (opts.models.length === 0) return notConfiguredLlmClient();
  const fallback = opts.fallback ?? limits.MODEL_FALLBACK_ENABLED;
  const policy = budgetPolicy(opts.budget);
  const logger = opts.logger ?? silentLogger;
  const tokens = opts.metrics?.counter('llm_tokens_total', 'LLM tokens used, by model', ['model']);
  const requests = opts.metrics?.counter('llm_requests_total', 'LLM requests by model and outcome (ok, error)', ['model', 'outcome']);

  return {
    configured: true,
    describe: () => opts.models.map((m) => ({ provider: m.provider.name, model: m.model, tier: m.tier })),

    async complete(task: LlmTask, input: LlmInput, ctx: LlmCallContext): Promise<LlmResult> {
      const messages: LlmMessage[] = input.messages ?? (input.prompt !== undefined ? [{ role: 'user', content: input.prompt }] : []);
      if (messages.length === 0 || messages.every((m) => m.content.trim() === '')) {
        throw new AppError('VALIDATION_FAILED', 'an LLM call needs a prompt or at least one non-empty message', { issues: [{ path: 'prompt', message: 'required' }] });
      }
      const maxTokens = input.maxTokens ?? opts.defaultMaxTokens ?? 1024;
      const inputTokens = estimateTokens(`${input.system ?? ''}${messages.map((m) => m.content).join('\n')}`) + (input.images?.length ?? 0) * IMAGE_TOKENS;
      const complexity = classifyTask(task, { inputTokens, hasImages: (input.images?.length ?? 0) > 0 });
      const tier = tierForComplexity[complexity];
      const candidates = candidatesFor(opts.models, tier, fallback);

      const day = opts.clock.now().toISOString().slice(0, 10);
      const [org, spend] = await Promise.all([
        opts.store.organizations.get(ctx.organizationId),
        opts.store.aiUsage.spend(ctx.organizationId, { day, runId: ctx.runId, testId: ctx.testId }),
      ]);
      const lim = budgetLimits(policy, org, ctx);
      assertWithinBudget(spend, lim);

      const skipped: LlmResult['skipped'] = [];
      let budgetRefusal: LlmError | undefined;
      let lastError: LlmError | undefined;
      for (const choice of candidates) {
        const estimate = costUsd(inputTokens, maxTokens, choice.costPer1kTokens);
        const crossed = scopeCrossed(spend, lim, estimate);
        if (crossed) {
          budgetRefusal = wouldExceed(crossed, spend, lim, estimate);
          skipped.push({ provider: choice.provider.name, model: choice.model, reason: `budget: would exceed ${crossed} limit` });
          continue;
        }
        try {
          const res = await choice.provider.complete({ model: choice.model, system: input.system, messages, maxTokens, temperature: input.temperature, json: input.json, images: input.images, ...(input.cache ? { cache: true } : {}) });
          requests?.inc({ model: choice.model, outcome: 'ok' });
          tokens?.inc({ model: choice.model }, res.inputTokens + res.outputTokens);
          const rates = cacheRatesFor(choice.provider.name, choice.model);
          const cost = costUsd(res.inputTokens, res.outputTokens, choice.costPer1kTokens, { read: res.cacheReadTokens, write: res.cacheWriteTokens, rates });
          const { usage, daily } = await opts.store.aiUsage.record({
            organization_id: ctx.organizationId,
            run_id: ctx.runId ?? null,
            test_id: ctx.testId ?? null,
            model: choice.model,
            provider: choice.provider.name,
            input_tokens: res.inputTokens,
            output_tokens: res.outputTokens,
            cost_usd: cost,
            task_type: task.type,
            complexity,
            tier: choice.tier,
          });
          await afterRecord(ctx.organizationId, day, spend, cost, lim, daily.cost_usd);
          return {
            text: res.text,
            model: choice.model,
            provider: choice.provider.name,
            tier: choice.tier,
            complexity,
            inputTokens: res.inputTokens,
            outputTokens: res.outputTokens,
            costUsd: cost,
            usageId: usage.id,
            fellBack: skipped.length > 0,
            skipped,
          };
        } catch (err) {
          if (!(err instanceof LlmError)) throw err;
          requests?.inc({ model: choice.model, outcome: 'error' });
          logger.warn('llm call failed', { provider: choice.provider.name, model: choice.model, reason: err.reason, message: err.message });
          if (!err.retryable) throw err;
          lastError = err;
          skipped.push({ provider: choice.provider.name, model: choice.model, reason: err.reason });
        }
      }
      if (lastError) {
        throw new LlmError(lastError.reason, `${lastError.message} (tried ${skipped.map((s) => `${s.provider}/${s.model}: ${s.reason}`).join('; ')})`, { attempts: skipped });
      }
      throw budgetRefusal ?? noModel();
    },
  };

  async function afterRecord(orgId: string, day: string, before: Awaited<ReturnType<AiUsageRepo['spend']>>, cost: number, lim: ReturnType<typeof budgetLimits>, spentToday: number) {
    await opts.store.aiUsage.syncOrganizationSpend(orgId, spentToday);
    for (const scope of crossedAlertThreshold(before, cost, lim, policy.alertThreshold)) {
      const period = scope === 'day' ? `daily#${day}` : `monthly#${day.slice(0, 7)}`;
      if (!opts.alerts || !(await opts.store.aiUsage.claimAlert(orgId, period))) continue;
      const limit = lim[scope] as number;
      await opts.alerts.raise({
        name: 'AiBudgetThreshold',
        severity: 'warning',
        summary: `AI spend reached ${Math.round(policy.alertThreshold * 100)}% of the organization's ${scope === 'day' ? 'daily' : 'monthly'} budget (${limit} USD)`,
        tenant_id: orgId,
        details: { period, budget_usd: limit, spent_usd: before[scope] + cost, threshold: policy.alertThreshold },
      });
    }
  }
}

/** The client used when no provider is configured: every call fails with NO_MODEL. */
export function notConfiguredLlmClient(): LlmClient {
  return {
    configured: false,
    describe: () => [],
    async complete() {
      throw noModel();
    },
  };
}
