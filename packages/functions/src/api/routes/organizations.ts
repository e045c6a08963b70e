import { z } from 'zod';
import type { Hono } from 'hono';
import { OrganizationSchema, OrganizationCreateInput } from '@svc/core/contracts/organization';
import { MemberRole } from '@svc/core/contracts/member';
import type { Principal } from '@svc/core/services/identity';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';

const OrganizationWithRole = OrganizationSchema.extend({ role: MemberRole });
const OrganizationList = z.object({ items: z.array(OrganizationWithRole), next_cursor: z.null() });

/** The caller's organizations; creating one makes the caller its admin. */
export function organizationRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  async function listFor(principal: Principal) {
    if (principal.kind === 'apiKey') {
      const org = await deps.store.organizations.get(principal.organizationId);
      const access = await deps.identity.access(principal, principal.organizationId);
      return org ? [{ ...org, role: access.role }] : [];
    }
    const memberships = await deps.store.members.listForUser(principal.userId);
    const orgs = await Promise.all(memberships.map(async (m) => {
      const org = await deps.store.organizations.get(m.organization_id);
      return org ? { ...org, role: m.role } : undefined;
    }));
    return orgs.filter((o): o is NonNullable<typeof o> => o !== undefined);
  }

  for (const path of ['/api/organizations', '/api/v1/organizations']) {
    mountRoute(app, deps, registry, {
      method: 'get', path, summary: "The caller's organizations, with the caller's role in each", tags: ['organizations'], auth: 'user',
      responses: { 200: { description: 'organizations', schema: OrganizationList } },
    }, async ({ c, principal }) => c.json({ items: await listFor(principal), next_cursor: null }));
  }

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/organizations', summary: 'Create an organization; the caller becomes its admin', tags: ['organizations'], auth: 'user', apiKeys: false,
    body: OrganizationCreateInput,
    responses: { 201: { description: 'created', schema: OrganizationWithRole }, 409: { description: 'slug taken' } },
  }, async ({ c, body, principal }) => {
    const { organization } = await deps.store.organizations.create(body, { userId: principal.userId, email: principal.kind === 'user' ? principal.email : '' });
    c.set('audit', { action: 'organization.create', resource: `organization:${organization.id}`, organizationId: organization.id });
    return c.json({ ...organization, role: 'admin' as const }, 201);
  });
}
