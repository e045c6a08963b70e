import { z } from 'zod';
import type { Hono } from 'hono';
import { ApiKeySchema, ApiKeyCreateInput, ApiKeyCreatedSchema } from '@svc/core/contracts/api-key';
import { ListQuery, listResponse } from '@svc/core/contracts/common';
import { generateApiKey } from '@svc/core/auth/index';
import { notFound, validationFailed } from '@svc/core/errors';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';

const IdParams = z.strictObject({ id: z.uuid() });

/** API key management: admins, from the dashboard only (spec: Authentication rule 7). */
export function apiKeyRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const { store } = deps;

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/api-keys', summary: 'Create an API key; the key is shown once', tags: ['api-keys'], auth: 'admin', apiKeys: false,
    body: ApiKeyCreateInput,
    responses: { 201: { description: 'created', schema: ApiKeyCreatedSchema } },
  }, async ({ c, body, access, principal }) => {
    if (body.project_id && !(await store.projects.get(access.organizationId, body.project_id))) throw notFound('project');
    // A key restricted to a project would be trusted as one, yet every route answers it as an
    // organization key: until each route checks the restriction, svc issues none (decisions.md).
    if (body.project_id) throw validationFailed([{ path: 'project_id', message: 'keys restricted to one project are not issued yet: svc does not enforce the restriction on every route, and a key that only looks restricted is worse than none. Issue an organization key (with read permissions only, if that is enough)' }]);
    const generated = generateApiKey();
    const record = await store.apiKeys.create({
      organizationId: access.organizationId,
      name: body.name,
      prefix: generated.prefix,
      hash: generated.hash,
      permissions: body.permissions,
      projectId: body.project_id ?? null,
      expiresAt: body.expires_at ?? null,
      createdBy: principal.userId,
    });
    c.set('audit', { action: 'api_key.create', resource: `api_key:${record.id}`, metadata: { name: record.name, permissions: record.permissions } });
    return c.json({ ...record, key: generated.key }, 201);
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/api-keys', summary: 'API keys of the organization (never the secrets)', tags: ['api-keys'], auth: 'admin', apiKeys: false, query: ListQuery,
    responses: { 200: { description: 'keys', schema: listResponse(ApiKeySchema) } },
  }, async ({ c, query, access }) => c.json(await store.apiKeys.list(access.organizationId, query.limit, query.cursor)));

  mountRoute(app, deps, registry, {
    method: 'delete', path: '/api/api-keys/:id', summary: 'Revoke an API key; it stops working at once', tags: ['api-keys'], auth: 'admin', apiKeys: false,
    params: IdParams, responses: { 200: { description: 'revoked', schema: ApiKeySchema } },
  }, async ({ c, params, access }) => {
    const record = await store.apiKeys.revoke(access.organizationId, params.id);
    c.set('audit', { action: 'api_key.revoke', resource: `api_key:${record.id}` });
    return c.json(record);
  });
}
