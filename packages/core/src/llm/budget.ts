import { limits } from '../contracts/limits.ts';
import type { AiSpend } from '../store/ai-usage.ts';
import { LlmError } from './errors.ts';

/** Per-run and per-test caps (spec Limits) and the alert threshold; config may lower them, never raise. */
export interface BudgetPolicy {
  perRunUsd: number;
  perTestUsd: number;
  alertThreshold: number;
}

export const defaultBudgetPolicy: BudgetPolicy = {
  perRunUsd: limits.COST_LIMIT_PER_RUN_USD,
  perTestUsd: limits.COST_LIMIT_PER_TEST_USD,
  alertThreshold: limits.BUDGET_ALERT_THRESHOLD,
};

/** Clamps configured caps to the spec's hard limits. */
export function budgetPolicy(overrides: Partial<BudgetPolicy> = {}): BudgetPolicy {
  return {
    perRunUsd: Math.min(overrides.perRunUsd ?? Infinity, limits.COST_LIMIT_PER_RUN_USD),
    perTestUsd: Math.min(overrides.perTestUsd ?? Infinity, limits.COST_LIMIT_PER_TEST_USD),
    alertThreshold: overrides.alertThreshold ?? limits.BUDGET_ALERT_THRESHOLD,
  };
}

export type BudgetScope = keyof AiSpend;

const scopeNames: Record<BudgetScope, string> = {
  day: 'organization daily AI budget (ai_budget_daily)',
  month: 'organization monthly AI budget (ai_budget_monthly)',
  run: 'per-run AI cost limit (COST_LIMIT_PER_RUN)',
  test: 'per-test AI cost limit (COST_LIMIT_PER_TEST)',
};

/** The limit of each scope that applies to a call; null where there is none. */
export type BudgetLimits = Record<BudgetScope, number | null>;

export function budgetLimits(policy: BudgetPolicy, org: { ai_budget_daily: number | null; ai_budget_monthly: number | null } | undefined, ctx: { runId?: string | null; testId?: string | null }): BudgetLimits {
  return {
    day: org?.ai_budget_daily ?? null,
    month: org?.ai_budget_monthly ?? null,
    run: ctx.runId ? policy.perRunUsd : null,
    test: ctx.testId ? policy.perTestUsd : null,
  };
}

const usd = (n: number) => `${n.toFixed(4).replace(/0{1,2}$/, '')} USD`;

/** Throws BUDGET_EXCEEDED when a scope is already spent. */
export function assertWithinBudget(spend: AiSpend, lim: BudgetLimits): void {
  for (const scope of Object.keys(lim) as BudgetScope[]) {
    const limit = lim[scope];
    if (limit !== null && spend[scope] >= limit) {
      throw new LlmError('BUDGET_EXCEEDED', `BUDGET: the ${scopeNames[scope]} of ${usd(limit)} is used up (spent ${usd(spend[scope])}); the call was refused`, { scope, limit_usd: limit, spent_usd: spend[scope] });
    }
  }
}

/** The first scope a call costing `estimateUsd` would push over its limit, if any. */
export function scopeCrossed(spend: AiSpend, lim: BudgetLimits, estimateUsd: number): BudgetScope | undefined {
  return (Object.keys(lim) as BudgetScope[]).find((s) => lim[s] !== null && spend[s] + estimateUsd > (lim[s] as number));
}

export function wouldExceed(scope: BudgetScope, spend: AiSpend, lim: BudgetLimits, estimateUsd: number): LlmError {
  return new LlmError('BUDGET_EXCEEDED', `BUDGET: this call (up to ${usd(estimateUsd)}) would exceed the ${scopeNames[scope]} of ${usd(lim[scope] as number)} (spent ${usd(spend[scope])}), even on the cheapest allowed model; the call was refused`, {
    scope,
    limit_usd: lim[scope],
    spent_usd: spend[scope],
    estimate_usd: estimateUsd,
  });
}

/** Organization budgets that crossed the alert threshold with this call (day and month only). */
export function crossedAlertThreshold(before: AiSpend, costUsd: number, lim: BudgetLimits, threshold: number): Array<'day' | 'month'> {
  return (['day', 'month'] as const).filter((s) => {
    const limit = lim[s];
    return limit !== null && limit > 0 && before[s] + costUsd >= threshold * limit;
  });
}
