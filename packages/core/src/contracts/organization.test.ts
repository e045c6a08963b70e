import { describe, expect, it } from 'vitest';
import { issues, paths, id, now, parseInput } from './test-support.ts';
import { OrganizationCreateInput, OrganizationSchema } from './organization.ts';

describe('organization', () => {
  it('create: alias ai_budget_daily_usd', () => {
    expect(parseInput(OrganizationCreateInput, { name: 'Acme', ai_budget_daily_usd: 5 })).toEqual({ name: 'Acme', ai_budget_daily: 5 });
    expect(issues(OrganizationCreateInput, { name: 'Acme', ai_budget_daily_usd: 5, ai_budget_daily: 6 })).toEqual([
      { path: 'ai_budget_daily_usd', message: 'use only one of ai_budget_daily_usd, ai_budget_daily' },
    ]);
  });
  it('create: strict, slug pattern, name length', () => {
    expect(issues(OrganizationCreateInput, { name: 'Acme', owner: 'x' })).toEqual([{ path: 'owner', message: 'unknown field' }]);
    expect(paths(OrganizationCreateInput, { name: 'Acme', slug: '-bad-' })).toEqual(['slug']);
    expect(paths(OrganizationCreateInput, { name: 'Acme', slug: 'Upper' })).toEqual(['slug']);
    expect(parseInput(OrganizationCreateInput, { name: 'Acme', slug: 'acme-inc' }).slug).toBe('acme-inc');
    expect(paths(OrganizationCreateInput, { name: '' })).toEqual(['name']);
    expect(paths(OrganizationCreateInput, { name: 'x'.repeat(256) })).toEqual(['name']);
    expect(paths(OrganizationCreateInput, { name: 'a', plan: 'gold' })).toEqual(['plan']);
    expect(paths(OrganizationCreateInput, { name: 'a', ai_budget_monthly: -1 })).toEqual(['ai_budget_monthly']);
  });
  it('resource: plan defaults to free', () => {
    const org = OrganizationSchema.parse({
      id: id(), name: 'a', slug: 'acme', ai_budget_daily: null, ai_budget_monthly: 100, ai_spend_today_usd: 0,
      features: {}, settings: {}, stripe_customer_id: null, created_at: now,
    });
    expect(org.plan).toBe('free');
  });
});
