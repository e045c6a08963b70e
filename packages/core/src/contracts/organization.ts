import { z } from 'zod';
import { acceptAliases, IsoDateTime, JsonObject, Uuid } from './common.ts';

/** Subscription tiers (spec "Suggested plan tiers"). */
export const plans = ['free', 'starter', 'pro', 'team', 'enterprise'] as const;
export const Plan = z.enum(plans).describe('Subscription plan: free, starter, pro, team or enterprise');
export type Plan = z.output<typeof Plan>;

export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])$/;
export const Slug = z
  .string()
  .regex(SLUG_PATTERN, 'must be 3-63 lower-case letters, digits or hyphens, starting and ending with a letter or digit')
  .describe('URL-safe unique identifier: 3-63 chars of a-z, 0-9 and -, not starting or ending with -');

const BudgetUsd = z.number().nonnegative().nullable();

/** An organization (the spec's tenant record). */
export const OrganizationSchema = z.object({
  id: Uuid.describe('Organization id'),
  name: z.string().describe('Display name'),
  slug: Slug,
  plan: Plan.default('free').describe('Subscription plan (default free)'),
  ai_budget_daily: BudgetUsd.describe('Daily AI spending limit in USD, or null for no limit'),
  ai_budget_monthly: BudgetUsd.describe('Monthly AI spending limit in USD, or null for no limit'),
  ai_spend_today_usd: z.number().nonnegative().describe('AI spend so far today (UTC) in USD'),
  features: JsonObject.describe('Feature flags enabled for the organization'),
  settings: JsonObject.describe('Organization settings'),
  stripe_customer_id: z.string().nullable().describe('Billing-provider customer reference, or null'),
  created_at: IsoDateTime.describe('When the organization was created'),
});
export type Organization = z.output<typeof OrganizationSchema>;

const OrganizationCreateFields = z.strictObject({
  name: z.string().trim().min(1).max(255).describe('Display name, 1-255 characters'),
  slug: Slug.optional().describe('Unique URL-safe identifier; derived from name when omitted'),
  plan: Plan.optional().describe('Subscription plan; defaults to free'),
  ai_budget_daily: BudgetUsd.optional().describe('Daily AI spending limit in USD (alias: ai_budget_daily_usd); null for no limit'),
  ai_budget_monthly: BudgetUsd.optional().describe('Monthly AI spending limit in USD; null for no limit'),
  settings: JsonObject.optional().describe('Organization settings'),
});

/** POST /api/organizations body. Accepts `ai_budget_daily_usd` for `ai_budget_daily`. */
export const OrganizationCreateInput = acceptAliases(OrganizationCreateFields, { ai_budget_daily_usd: 'ai_budget_daily' });
export type OrganizationCreateInput = z.output<typeof OrganizationCreateInput>;
