import type { z } from 'zod';
import type { OrganizationSchema } from '../contracts/organization.ts';
import type { MemberSchema } from '../contracts/member.ts';
import { ConditionFailedError } from '../ports/table.ts';
import { conflict } from '../errors.ts';
import { keys, stripLayout } from './keys.ts';
import type { StoreContext } from './context.ts';

export type Organization = z.output<typeof OrganizationSchema>;
export type Member = z.output<typeof MemberSchema>;
export type Role = Member['role'];

export interface NewOrganization {
  name: string;
  slug?: string;
  plan?: Organization['plan'];
  ai_budget_daily?: number | null;
  ai_budget_monthly?: number | null;
  settings?: Record<string, unknown>;
}

export function slugify(name: string): string {
  const base = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  return base.length >= 3 ? base : `org-${base || 'x'}`.slice(0, 48);
}

export function organizationsRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    /**
     * Creates the organization, claims its slug and makes the creator an admin, in one
     * transaction: a taken slug leaves nothing behind.
     */
    async create(input: NewOrganization, creator: { userId: string; email: string }) {
      const now = ctx.clock.now().toISOString();
      const id = ctx.newId();
      const explicitSlug = input.slug !== undefined;
      let slug = input.slug ?? slugify(input.name);
      for (let attempt = 0; attempt < 5; attempt++) {
        const org: Organization = {
          id,
          name: input.name,
          slug,
          plan: input.plan ?? 'free',
          ai_budget_daily: input.ai_budget_daily ?? null,
          ai_budget_monthly: input.ai_budget_monthly ?? null,
          ai_spend_today_usd: 0,
          features: {},
          settings: input.settings ?? {},
          stripe_customer_id: null,
          created_at: now,
        };
        const member: Member = {
          id: ctx.newId(),
          organization_id: id,
          user_id: creator.userId,
          email: creator.email,
          role: 'admin',
          status: 'active',
          created_at: now,
        };
        try {
          await table.transact([
            { type: 'put', item: { ...keys.orgSlug(slug), organization_id: id }, condition: { kind: 'notExists' } },
            { type: 'put', item: { ...keys.organization(id), entity: 'organization', ...org }, condition: { kind: 'notExists' } },
            { type: 'put', item: memberItem(member) },
          ]);
          return { organization: org, membership: member };
        } catch (err) {
          if (!(err instanceof ConditionFailedError)) throw err;
          if (explicitSlug) throw conflict(`slug "${slug}" is taken`, { field: 'slug' });
          slug = `${slugify(input.name).slice(0, 40)}-${Math.random().toString(36).slice(2, 8)}`;
        }
      }
      throw conflict('could not allocate a unique slug; pass one explicitly', { field: 'slug' });
    },

    async get(orgId: string): Promise<Organization | undefined> {
      const item = await table.get(keys.organization(orgId));
      return item ? stripLayout<Organization>(item) : undefined;
    },
  };
}

export function memberItem(member: Member) {
  return {
    ...keys.member(member.organization_id, member.user_id),
    entity: 'member',
    gsi1pk: keys.memberByUser(member.user_id),
    gsi1sk: `MEMBER#${member.organization_id}`,
    ...member,
  };
}
