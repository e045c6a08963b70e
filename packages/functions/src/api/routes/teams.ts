import { z } from 'zod';
import type { Hono } from 'hono';
import { MemberSchema, MemberRoleUpdateInput } from '@svc/core/contracts/member';
import { InvitationSchema, InvitationCreateInput } from '@svc/core/contracts/invitation';
import { ListQuery, listResponse } from '@svc/core/contracts/common';
import { generateRefreshToken, hashRefreshToken } from '@svc/core/auth/index';
import { memberItem } from '@svc/core/store/index';
import { AppError, notFound } from '@svc/core/errors';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';

const UserIdParams = z.strictObject({ user_id: z.string().min(1).max(255) });
const IdParams = z.strictObject({ id: z.uuid() });
const AcceptInput = z.strictObject({ token: z.string().min(20).max(200).describe('Invitation token from the invitation link') });

/**
 * The organization's team: its members, their roles, and invitations. "Team" is the
 * organization's membership (docs/decisions.md); invitations are accepted with a token
 * the inviting admin passes on (svc sends no email).
 */
export function teamRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const { store } = deps;

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/teams', summary: 'Members of the organization', tags: ['teams'], auth: 'viewer', query: ListQuery,
    responses: { 200: { description: 'members', schema: listResponse(MemberSchema) } },
  }, async ({ c, query, access }) => c.json(await store.members.listForOrganization(access.organizationId, query.limit, query.cursor)));

  mountRoute(app, deps, registry, {
    method: 'patch', path: '/api/teams/members/:user_id', summary: "Change a member's role", tags: ['teams'], auth: 'admin', apiKeys: false,
    params: UserIdParams, body: MemberRoleUpdateInput,
    responses: { 200: { description: 'updated', schema: MemberSchema }, 409: { description: 'would leave no admin' } },
  }, async ({ c, params, body, access }) => {
    const member = await store.members.setRole(access.organizationId, params.user_id, body.role);
    c.set('audit', { action: 'member.role_change', resource: `member:${params.user_id}`, metadata: { role: body.role } });
    return c.json(member);
  });

  mountRoute(app, deps, registry, {
    method: 'delete', path: '/api/teams/members/:user_id', summary: 'Remove a member', tags: ['teams'], auth: 'admin', apiKeys: false,
    params: UserIdParams, responses: { 204: { description: 'removed' } },
  }, async ({ c, params, access }) => {
    await store.members.remove(access.organizationId, params.user_id);
    c.set('audit', { action: 'member.remove', resource: `member:${params.user_id}` });
    return c.body(null, 204);
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/teams/invitations', summary: 'Invitations of the organization', tags: ['teams'], auth: 'admin', apiKeys: false, query: ListQuery,
    responses: { 200: { description: 'invitations', schema: listResponse(InvitationSchema) } },
  }, async ({ c, query, access }) => c.json(await store.invitations.list(access.organizationId, query.limit, query.cursor)));

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/teams/invitations', summary: 'Invite someone by email; the token is shown once', tags: ['teams'], auth: 'admin', apiKeys: false,
    body: InvitationCreateInput,
    responses: { 201: { description: 'invited', schema: InvitationSchema.extend({ token: z.string() }) } },
  }, async ({ c, body, access, principal }) => {
    const token = generateRefreshToken(); // same shape: 32 random bytes, stored as a SHA-256 hash
    const invitation = await store.invitations.create(access.organizationId, { email: body.email, role: body.role, invitedBy: principal.userId, tokenHash: token.hash });
    c.set('audit', { action: 'invitation.create', resource: `invitation:${invitation.id}`, metadata: { email: invitation.email, role: invitation.role } });
    return c.json({ ...invitation, token: token.token }, 201);
  });

  mountRoute(app, deps, registry, {
    method: 'delete', path: '/api/teams/invitations/:id', summary: 'Revoke an invitation', tags: ['teams'], auth: 'admin', apiKeys: false,
    params: IdParams, responses: { 200: { description: 'revoked', schema: InvitationSchema } },
  }, async ({ c, params, access }) => {
    const invitation = await store.invitations.revoke(access.organizationId, params.id);
    c.set('audit', { action: 'invitation.revoke', resource: `invitation:${invitation.id}` });
    return c.json(invitation);
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/teams/invitations/accept', summary: 'Accept an invitation as the signed-in user', tags: ['teams'], auth: 'user', apiKeys: false,
    body: AcceptInput,
    responses: { 200: { description: 'joined', schema: MemberSchema } },
  }, async ({ c, body, principal }) => {
    if (principal.kind !== 'user') throw new AppError('FORBIDDEN', 'only users accept invitations');
    const tokenHash = hashRefreshToken(body.token);
    const invitation = await store.invitations.findByToken(tokenHash);
    if (!invitation || Date.parse(invitation.expires_at) <= deps.clock.now().getTime()) throw notFound('invitation');
    if (invitation.email !== principal.email.toLowerCase()) throw notFound('invitation'); // an invitation is for one address
    const now = deps.clock.now().toISOString();
    const member = { id: crypto.randomUUID(), organization_id: invitation.organization_id, user_id: principal.userId, email: principal.email, role: invitation.role, status: 'active' as const, created_at: now };
    await store.invitations.accept(tokenHash, invitation, principal, memberItem(member));
    c.set('audit', { action: 'invitation.accept', resource: `invitation:${invitation.id}`, organizationId: invitation.organization_id });
    return c.json(member);
  });
}
