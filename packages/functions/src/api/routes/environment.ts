import { z } from 'zod';
import type { Hono } from 'hono';
import { EnvironmentVariableInput, EnvironmentVariableName, EnvironmentVariableSchema } from '@svc/core/contracts/environment';
import { notFound } from '@svc/core/errors';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';

const ProjectParams = z.strictObject({ id: z.uuid().describe('Project id') });
const VariableParams = z.strictObject({ id: z.uuid().describe('Project id'), name: EnvironmentVariableName });

/**
 * A project's environment variables and secrets (spec: "Environment variables", dashboard
 * only). Signed-in users only: an API key — the agent gateway's credential — gets 403
 * (spec: Authentication rule 7). Members read names and plain values; admins set and
 * delete. A secret's value is write-only: runs read it, the API never returns it.
 */
export function environmentRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const { store } = deps;
  const project = async (orgId: string, projectId: string) => {
    if (!(await store.projects.get(orgId, projectId))) throw notFound('project');
  };

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/v1/projects/:id/environment', summary: "The project's environment variables (secrets without their values)", tags: ['projects'], auth: 'member', apiKeys: false,
    params: ProjectParams, responses: { 200: { description: 'variables, by name', schema: z.object({ items: z.array(EnvironmentVariableSchema) }) }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, params, access }) => {
    await project(access.organizationId, params.id);
    return c.json({ items: await store.environment.list(access.organizationId, params.id) });
  });

  mountRoute(app, deps, registry, {
    method: 'put', path: '/api/v1/projects/:id/environment/:name', summary: 'Set an environment variable or secret (creates or replaces it)', tags: ['projects'], auth: 'admin', apiKeys: false,
    params: VariableParams, body: EnvironmentVariableInput,
    responses: { 200: { description: 'the variable as stored (a secret without its value)', schema: EnvironmentVariableSchema }, 404: { description: 'no such project in this organization' }, 409: { description: 'the project already holds the most variables allowed' } },
  }, async ({ c, params, body, access, principal }) => {
    await project(access.organizationId, params.id);
    const variable = await store.environment.set(access.organizationId, params.id, params.name, body, principal.userId);
    c.set('audit', { action: 'environment.set', resource: `project:${params.id}`, metadata: { name: params.name, secret: body.secret } });
    return c.json(variable);
  });

  mountRoute(app, deps, registry, {
    method: 'delete', path: '/api/v1/projects/:id/environment/:name', summary: 'Delete an environment variable or secret', tags: ['projects'], auth: 'admin', apiKeys: false,
    params: VariableParams, responses: { 204: { description: 'deleted' }, 404: { description: 'no such project or variable' } },
  }, async ({ c, params, access }) => {
    await project(access.organizationId, params.id);
    if (!(await store.environment.delete(access.organizationId, params.id, params.name))) throw notFound('environment variable');
    c.set('audit', { action: 'environment.delete', resource: `project:${params.id}`, metadata: { name: params.name } });
    return c.body(null, 204);
  });
}
