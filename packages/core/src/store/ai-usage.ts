import type { AiUsage, AiUsageDaily } from '../contracts/ai-usage.ts';
import { ConditionFailedError, type Item } from '../ports/table.ts';
import { keys, stripLayout } from './keys.ts';
import { queryPage, type StoreContext } from './context.ts';

/** A usage row as stored: the contract's fields plus what the budgets and listings need. */
export type AiUsageRecord = AiUsage & { provider: string; test_id: string | null; complexity: string; tier: string };
export type NewAiUsage = Omit<AiUsageRecord, 'id' | 'created_at'>;

/** Spend so far in each budget scope of one call (USD). */
export interface AiSpend {
  day: number;
  month: number;
  run: number;
  test: number;
}

const SPEND_TTL_SECONDS = 90 * 24 * 3600;
const ALERT_TTL_SECONDS = 40 * 24 * 3600;

/** Budget scopes of a call: the run, and the test within the run (or on its own). */
const runScope = (runId: string) => `RUN#${runId}`;
const testScope = (runId: string | null, testId: string) => (runId ? `RUN#${runId}#TEST#${testId}` : `TEST#${testId}`);

/**
 * ai_usage and its roll-ups. Recording a call writes the usage row, then atomic
 * increments (single-item updates, which never conflict with each other the way
 * concurrent transactions on one hot item do) on the day's row (ai_usage_daily), the
 * month's row and the run's and test's spend counters. A counter row that does not exist
 * yet is created at zero first (the table port's updates never create items). If the
 * process dies between the writes, the roll-ups can miss that one call; they never count
 * one twice.
 */
export function aiUsageRepo(ctx: StoreContext) {
  const { table } = ctx;

  const counterKeys = (u: { organization_id: string; run_id: string | null; test_id: string | null }, day: string) => {
    const out: Array<{ key: { pk: string; sk: string }; fields: Record<string, unknown> }> = [
      { key: keys.aiUsageDaily(u.organization_id, day), fields: { entity: 'ai_usage_daily', organization_id: u.organization_id, date: day } },
      { key: keys.aiUsageMonthly(u.organization_id, day.slice(0, 7)), fields: { entity: 'ai_usage_monthly', organization_id: u.organization_id, month: day.slice(0, 7) } },
    ];
    if (u.run_id) out.push({ key: keys.aiSpend(u.organization_id, runScope(u.run_id)), fields: { entity: 'ai_spend', organization_id: u.organization_id, expiresAt: expiry(SPEND_TTL_SECONDS) } });
    if (u.test_id) out.push({ key: keys.aiSpend(u.organization_id, testScope(u.run_id, u.test_id)), fields: { entity: 'ai_spend', organization_id: u.organization_id, expiresAt: expiry(SPEND_TTL_SECONDS) } });
    return out;
  };
  const expiry = (seconds: number) => Math.floor(ctx.clock.now().getTime() / 1000) + seconds;
  const zero = { request_count: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 };
  const num = (item: Item | undefined, attr: string) => (typeof item?.[attr] === 'number' ? (item[attr] as number) : 0);

  /** Atomic add on a counter row, creating it at zero first when it does not exist yet. */
  async function increment(c: { key: { pk: string; sk: string }; fields: Record<string, unknown> }, add: Record<string, number>): Promise<Item> {
    try {
      return await table.update({ key: c.key, add, condition: { kind: 'exists' } });
    } catch (err) {
      if (!(err instanceof ConditionFailedError)) throw err;
    }
    await table.put({ ...c.key, ...c.fields, ...zero }, { kind: 'notExists' }).catch((e) => {
      if (!(e instanceof ConditionFailedError)) throw e; // another writer created it first
    });
    return table.update({ key: c.key, add, condition: { kind: 'exists' } });
  }

  return {
    /** Records a call; returns the row and the day's roll-up after it. */
    async record(input: NewAiUsage): Promise<{ usage: AiUsageRecord; daily: AiUsageDaily }> {
      const now = ctx.clock.now();
      const usage: AiUsageRecord = { ...input, id: ctx.newId(), created_at: now.toISOString() };
      const day = usage.created_at.slice(0, 10);
      await table.put({ ...keys.aiUsage(usage.organization_id, usage.id), entity: 'ai_usage', ...usage }, { kind: 'notExists' });
      const add = { request_count: 1, input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, cost_usd: usage.cost_usd };
      const [daily] = await Promise.all(counterKeys(usage, day).map((c) => increment(c, add)));
      const { month: _m, ...rest } = stripLayout<AiUsageDaily & { month?: string }>(daily);
      return { usage, daily: rest };
    },

    /** What has been spent in each scope a call is budgeted against. */
    async spend(orgId: string, scope: { day: string; runId?: string | null; testId?: string | null }): Promise<AiSpend> {
      const runId = scope.runId ?? null;
      const [day, month, run, test] = await Promise.all([
        table.get(keys.aiUsageDaily(orgId, scope.day)),
        table.get(keys.aiUsageMonthly(orgId, scope.day.slice(0, 7))),
        runId ? table.get(keys.aiSpend(orgId, runScope(runId))) : undefined,
        scope.testId ? table.get(keys.aiSpend(orgId, testScope(runId, scope.testId))) : undefined,
      ]);
      return { day: num(day, 'cost_usd'), month: num(month, 'cost_usd'), run: num(run, 'cost_usd'), test: num(test, 'cost_usd') };
    },

    async daily(orgId: string, day: string): Promise<AiUsageDaily | undefined> {
      const item = await table.get(keys.aiUsageDaily(orgId, day));
      if (!item) return undefined;
      const { month: _m, ...rest } = stripLayout<AiUsageDaily & { month?: string }>(item);
      return rest;
    },

    /** Usage rows of an organization, newest first. */
    list(orgId: string, limit: number, cursor?: string) {
      return queryPage<AiUsageRecord>(table, { pk: keys.aiUsage(orgId, '').pk, skPrefix: keys.aiUsage(orgId, '').sk, descending: true, limit, cursor });
    },

    /**
     * Claims the budget alert of one period (e.g. "daily#2026-11-21"); true only for the
     * first caller, so an alert is raised once per period however many calls cross 80%.
     */
    async claimAlert(orgId: string, period: string): Promise<boolean> {
      try {
        await table.put({ ...keys.aiBudgetAlert(orgId, period), entity: 'ai_budget_alert', organization_id: orgId, expiresAt: expiry(ALERT_TTL_SECONDS) }, { kind: 'notExists' });
        return true;
      } catch (err) {
        if (err instanceof ConditionFailedError) return false;
        throw err;
      }
    },

    /**
     * Keeps organizations.ai_spend_today_usd in step with the day's roll-up. A plain set
     * (last writer wins) is enough: the roll-up row is the source of truth for budgets.
     */
    async syncOrganizationSpend(orgId: string, spentTodayUsd: number): Promise<void> {
      try {
        await table.update({ key: keys.organization(orgId), set: { ai_spend_today_usd: spentTodayUsd }, condition: { kind: 'exists' } });
      } catch (err) {
        if (!(err instanceof ConditionFailedError)) throw err;
      }
    },
  };
}

export type AiUsageRepo = ReturnType<typeof aiUsageRepo>;
