import { z } from 'zod';
import type { Hono } from 'hono';
import { UserProfileSchema, UserProfileUpdateInput } from '@svc/core/contracts/user-profile';
import { MemberRole } from '@svc/core/contracts/member';
import { notFound } from '@svc/core/errors';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';

const Me = UserProfileSchema.extend({
  memberships: z.array(z.object({ organization_id: z.string(), organization_name: z.string(), organization_slug: z.string(), role: MemberRole })),
});

/** The caller's profile and memberships. */
export function userRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  /** `onlyOrganization`: an API key belongs to one organization, and sees its creator's membership of that one only. */
  async function me(userId: string, onlyOrganization?: string) {
    const profile = await deps.store.users.getProfile(userId);
    if (!profile) throw notFound('user profile');
    const memberships = (await deps.store.members.listForUser(userId)).filter((m) => onlyOrganization === undefined || m.organization_id === onlyOrganization);
    const rows = await Promise.all(memberships.map(async (m) => {
      const org = await deps.store.organizations.get(m.organization_id);
      return org && { organization_id: org.id, organization_name: org.name, organization_slug: org.slug, role: m.role };
    }));
    return { ...profile, memberships: rows.filter((r) => !!r) };
  }

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/v1/users/me', summary: "The caller's profile and memberships (with an API key: its creator's, and only the key's organization)", tags: ['users'], auth: 'user',
    responses: { 200: { description: 'profile', schema: Me } },
  }, async ({ c, principal }) => c.json(await me(principal.userId, principal.kind === 'apiKey' ? principal.organizationId : undefined)));

  mountRoute(app, deps, registry, {
    method: 'patch', path: '/api/v1/users/me', summary: "Update the caller's profile", tags: ['users'], auth: 'user', apiKeys: false,
    body: UserProfileUpdateInput,
    responses: { 200: { description: 'updated', schema: Me } },
  }, async ({ c, body, principal }) => {
    if (body.default_organization_id && !(await deps.store.members.get(body.default_organization_id, principal.userId))) {
      throw notFound('organization');
    }
    const updated = await deps.store.users.updateProfile(principal.userId, body);
    // Audit logs are per organization: the entry goes to the user's default one, if any.
    const organizationId = updated.default_organization_id ?? (await deps.store.members.listForUser(principal.userId))[0]?.organization_id;
    if (organizationId) c.set('audit', { action: 'user.update', resource: `user:${principal.userId}`, organizationId, metadata: { fields: Object.keys(body) } });
    return c.json(await me(principal.userId));
  });
}
