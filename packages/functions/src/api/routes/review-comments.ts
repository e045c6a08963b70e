import { z } from 'zod';
import type { Hono } from 'hono';
import { CommentTargetQuery, ReviewCommentCreateInput, ReviewCommentListSchema, ReviewCommentSchema, ReviewCommentUpdateInput } from '@svc/core/contracts/review-comments';
import { reviewCommentService, type Commenter } from '@svc/core/services/review-comments';
import { roleAtLeast } from '@svc/core/auth/index';
import type { OrganizationAccess, Principal } from '@svc/core/services/identity';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';

const IdParams = z.strictObject({ id: z.uuid().describe('Comment id') });
const PEOPLE_ONLY = 'review comments are for people in the dashboard (spec capability matrix): API keys and agent tokens are refused';

function commenterOf(principal: Principal, access: OrganizationAccess): Commenter {
  // apiKeys: false on every route below, so the principal is a person.
  if (principal.kind !== 'user') throw new Error('review comments are written by people');
  return { actor: `user:${principal.userId}`, email: principal.email, admin: roleAtLeast(access.role, 'admin') };
}

/**
 * Review comments (docs/review-comments.md), dashboard-only like the rest of the spec's
 * "review comments, approval workflows …" row: viewers read, members write, the author edits,
 * any member resolves a thread, the author or an admin deletes. Both path families.
 */
export function reviewCommentRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const comments = reviewCommentService({ store: deps.store });

  for (const base of ['/api/comments', '/api/v1/comments']) {
    mountRoute(app, deps, registry, {
      method: 'get', path: base, summary: 'The comments on a run, test, visual baseline or generated test, oldest first', tags: ['comments'], auth: 'viewer', apiKeys: false, query: CommentTargetQuery,
      responses: { 200: { description: 'comments', schema: ReviewCommentListSchema }, 403: { description: PEOPLE_ONLY }, 404: { description: 'no such target in this organization' } },
    }, async ({ c, query, access }) => c.json(await comments.list(access.organizationId, query.target_type, query.target_id)));

    mountRoute(app, deps, registry, {
      method: 'get', path: `${base}/:id`, summary: 'A comment', tags: ['comments'], auth: 'viewer', apiKeys: false, params: IdParams,
      responses: { 200: { description: 'comment', schema: ReviewCommentSchema }, 403: { description: PEOPLE_ONLY }, 404: { description: 'no such comment in this organization' } },
    }, async ({ c, params, access }) => c.json(await comments.get(access.organizationId, params.id)));

    mountRoute(app, deps, registry, {
      method: 'post', path: base, summary: 'Comment on a target, starting a thread or answering one (parent_id)', tags: ['comments'], auth: 'member', apiKeys: false, body: ReviewCommentCreateInput,
      responses: {
        201: { description: 'created', schema: ReviewCommentSchema },
        400: { description: 'invalid body: no text, parent_id not a thread on this target, test_id not a test of the run' },
        403: { description: PEOPLE_ONLY },
        404: { description: 'no such target in this organization' },
        409: { description: 'the target has the most comments one keeps (500)' },
      },
    }, async ({ c, body, access, principal }) => {
      const comment = await comments.create(access.organizationId, body, commenterOf(principal, access));
      c.set('audit', { action: 'comment.create', resource: `comment:${comment.id}`, metadata: { target: `${comment.target_type}:${comment.target_id}`, ...(comment.parent_id && { parent_id: comment.parent_id }) } });
      return c.json(comment, 201);
    });

    mountRoute(app, deps, registry, {
      method: 'patch', path: `${base}/:id`, summary: 'Edit a comment (its author) or resolve/reopen the thread it starts (any member)', tags: ['comments'], auth: 'member', apiKeys: false, params: IdParams, body: ReviewCommentUpdateInput,
      responses: {
        200: { description: 'the comment as changed', schema: ReviewCommentSchema },
        400: { description: 'invalid body, or resolved on an answer rather than a thread' },
        403: { description: `${PEOPLE_ONLY}; or the text of someone else's comment` },
        404: { description: 'no such comment in this organization' },
        409: { description: 'the comment changed meanwhile' },
      },
    }, async ({ c, params, body, access, principal }) => {
      const comment = await comments.update(access.organizationId, params.id, body, commenterOf(principal, access));
      c.set('audit', { action: 'comment.update', resource: `comment:${comment.id}`, metadata: { fields: Object.keys(body).sort() } });
      return c.json(comment);
    });

    mountRoute(app, deps, registry, {
      method: 'delete', path: `${base}/:id`, summary: "Delete a comment (its author or an admin); a thread's first comment with answers keeps its place without its text", tags: ['comments'], auth: 'member', apiKeys: false, params: IdParams,
      responses: { 204: { description: 'deleted' }, 403: { description: `${PEOPLE_ONLY}; or someone else's comment without the admin role` }, 404: { description: 'no such comment in this organization' } },
    }, async ({ c, params, access, principal }) => {
      const comment = await comments.delete(access.organizationId, params.id, commenterOf(principal, access));
      c.set('audit', { action: 'comment.delete', resource: `comment:${comment.id}`, metadata: { target: `${comment.target_type}:${comment.target_id}`, author: comment.author } });
      return c.body(null, 204);
    });
  }
}
