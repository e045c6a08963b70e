import { z } from 'zod';
import type { Hono } from 'hono';
import { listResponse, ListQuery } from '@svc/core/contracts/common';
import { RotateSecretInput } from '@svc/core/contracts/secret-rotation';
import { VcsDeliverySchema, VcsIntegrationCreated, VcsIntegrationRotated, VcsStatusLogSchema, VcsIntegrationCreateInput, VcsIntegrationListQuery, VcsIntegrationSchema, VcsIntegrationUpdateInput } from '@svc/core/contracts/vcs-integration';
import { notFound } from '@svc/core/errors';
import { publicIntegration, vcsIntegrationService } from '@svc/core/services/vcs-integrations';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { userOf } from './runs.ts';

const IdParams = z.strictObject({ id: z.uuid().describe('VCS integration id') });
const notFoundHere = { 404: { description: 'no such integration in this organization' } };

/**
 * Source-control integrations (docs/vcs-webhooks.md). Admins only, and signed-in people
 * only: the spec keeps webhook configuration out of the agent interface, and an
 * integration's secret lets whoever holds it start runs.
 */
export function vcsIntegrationRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const integrations = vcsIntegrationService({ store: deps.store });
  const base = { tags: ['integrations'], auth: 'admin' as const, apiKeys: false };

  mountRoute(app, deps, registry, {
    ...base, method: 'get', path: '/api/integrations/vcs', summary: 'Source-control integrations of the organization or one project, newest first (never their secrets or tokens)', query: VcsIntegrationListQuery,
    responses: { 200: { description: 'integrations', schema: listResponse(VcsIntegrationSchema) }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, query, access }) => {
    if (query.project_id && !(await deps.store.projects.get(access.organizationId, query.project_id))) throw notFound('project');
    const page = await deps.store.vcsIntegrations.list(access.organizationId, { projectId: query.project_id, limit: query.limit, cursor: query.cursor });
    return c.json({ items: page.items.map((i) => VcsIntegrationSchema.parse(publicIntegration(i))), next_cursor: page.next_cursor });
  });

  mountRoute(app, deps, registry, {
    ...base, method: 'post', path: '/api/integrations/vcs', summary: 'Link a GitHub or GitLab repository to a project: its push and pull-request webhooks start runs', body: VcsIntegrationCreateInput,
    responses: { 201: { description: 'created; the webhook secret is shown only now', schema: VcsIntegrationCreated }, 400: { description: 'invalid body' }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, body, access, principal }) => {
    const integration = await integrations.create(access.organizationId, body, userOf(principal));
    c.set('audit', { action: 'vcs_integration.create', resource: `vcs_integration:${integration.id}`, metadata: { project_id: integration.project_id, provider: integration.provider, repository: integration.repository } });
    return c.json(VcsIntegrationCreated.parse(integration), 201);
  });

  mountRoute(app, deps, registry, {
    ...base, method: 'get', path: '/api/integrations/vcs/:id', summary: 'Get a source-control integration (never its secret or token)', params: IdParams,
    responses: { 200: { description: 'integration', schema: VcsIntegrationSchema }, ...notFoundHere },
  }, async ({ c, params, access }) => c.json(VcsIntegrationSchema.parse(publicIntegration(await integrations.get(access.organizationId, params.id)))));

  mountRoute(app, deps, registry, {
    ...base, method: 'patch', path: '/api/integrations/vcs/:id', summary: 'Change an integration: repository, events, branches, tags, healing, enabled (false pauses it), the commit-status token (null removes it), API URL and context', params: IdParams, body: VcsIntegrationUpdateInput,
    responses: { 200: { description: 'the integration as changed', schema: VcsIntegrationSchema }, ...notFoundHere },
  }, async ({ c, params, body, access }) => {
    const integration = await integrations.update(access.organizationId, params.id, body);
    c.set('audit', { action: 'vcs_integration.update', resource: `vcs_integration:${integration.id}`, metadata: { fields: Object.keys(body).sort() } });
    return c.json(VcsIntegrationSchema.parse(integration));
  });

  mountRoute(app, deps, registry, {
    ...base, method: 'post', path: '/api/integrations/vcs/:id/rotate-secret', summary: "Rotate an integration's webhook secret: a new secret, shown only in this answer; the current one keeps verifying for grace_hours (default 24) while the host's webhook is updated", params: IdParams, body: RotateSecretInput,
    responses: { 200: { description: 'rotated; the new secret is shown only now', schema: VcsIntegrationRotated }, 400: { description: 'invalid body (grace_hours: whole hours, 0..168)' }, ...notFoundHere },
  }, async ({ c, params, body, access }) => {
    const integration = await integrations.rotateSecret(access.organizationId, params.id, body.grace_hours);
    // What was done and until when the old secret works; never a secret or its hint.
    c.set('audit', { action: 'vcs_integration.rotate_secret', resource: `vcs_integration:${integration.id}`, metadata: { provider: integration.provider, repository: integration.repository, grace_hours: body.grace_hours, previous_secret_expires_at: integration.previous_secret_expires_at } });
    return c.json(VcsIntegrationRotated.parse(integration));
  });

  mountRoute(app, deps, registry, {
    ...base, method: 'delete', path: '/api/integrations/vcs/:id', summary: 'Remove an integration (its webhooks are then refused; its runs stay)', params: IdParams,
    responses: { 204: { description: 'deleted' }, ...notFoundHere },
  }, async ({ c, params, access }) => {
    const integration = await integrations.delete(access.organizationId, params.id);
    c.set('audit', { action: 'vcs_integration.delete', resource: `vcs_integration:${integration.id}`, metadata: { provider: integration.provider, repository: integration.repository } });
    return c.body(null, 204);
  });

  mountRoute(app, deps, registry, {
    ...base, method: 'get', path: '/api/integrations/vcs/:id/deliveries', summary: 'Deliveries of an integration, newest first (kept 90 days): event, delivery id, outcome, run or reason', params: IdParams, query: ListQuery,
    responses: { 200: { description: 'deliveries', schema: listResponse(VcsDeliverySchema) }, ...notFoundHere },
  }, async ({ c, params, query, access }) => {
    await integrations.get(access.organizationId, params.id);
    const page = await deps.store.vcsIntegrations.deliveries(access.organizationId, params.id, query.limit, query.cursor);
    return c.json({ items: page.items.map((d) => VcsDeliverySchema.parse(d)), next_cursor: page.next_cursor });
  });

  mountRoute(app, deps, registry, {
    ...base, method: 'get', path: '/api/integrations/vcs/:id/statuses', summary: 'Commit statuses svc posted for the runs of an integration, newest run first (kept 90 days): state, commit, the host\'s answer', params: IdParams, query: ListQuery,
    responses: { 200: { description: 'commit statuses', schema: listResponse(VcsStatusLogSchema) }, ...notFoundHere },
  }, async ({ c, params, query, access }) => {
    await integrations.get(access.organizationId, params.id);
    const page = await deps.store.vcsStatuses.log(access.organizationId, params.id, query.limit, query.cursor);
    return c.json({ items: page.items.map((s) => VcsStatusLogSchema.parse(s)), next_cursor: page.next_cursor });
  });
}
