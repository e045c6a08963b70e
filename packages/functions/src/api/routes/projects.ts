import { z } from 'zod';
import type { Hono } from 'hono';
import { ProjectSchema, ProjectCreateInput, ProjectUpdateInput } from '@svc/core/contracts/project';
import { ListQuery, listResponse } from '@svc/core/contracts/common';
import { AppError, notFound, validationFailed } from '@svc/core/errors';
import { projectConfigIssues } from '@svc/core/projects/config-check';
import type { Principal } from '@svc/core/services/identity';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';

const IdParams = z.strictObject({ id: z.uuid().describe('Project id') });

/**
 * A project's config is checked as it is written (a bad run or healing setting would fail
 * every later run), and is written by people only: the spec's capability matrix gives
 * agents project settings read-only, and the config holds approval requirements and
 * healing thresholds an agent must not loosen for itself. API keys and agent tokens may
 * still create projects and change their name, URL and description.
 */
function checkConfigWrite(config: Record<string, unknown> | undefined, principal: Principal): void {
  if (config === undefined) return;
  if (principal.kind === 'apiKey' || principal.agent) {
    throw new AppError('FORBIDDEN', `config (project settings) is changed by people in the dashboard, not by ${principal.kind === 'apiKey' ? 'API keys' : 'agent tokens'}: agents read it only`, { field: 'config' });
  }
  const issues = projectConfigIssues(config);
  if (issues.length) throw validationFailed(issues);
}

/** Projects of the organization named by X-Organization-ID. */
export function projectRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const { store } = deps;

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/v1/projects', summary: 'List projects, newest first', tags: ['projects'], auth: 'viewer', query: ListQuery,
    responses: { 200: { description: 'projects', schema: listResponse(ProjectSchema) } },
  }, async ({ c, query, access }) => c.json(await store.projects.list(access.organizationId, query.limit, query.cursor)));

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/v1/projects', summary: 'Create a project', tags: ['projects'], auth: 'member', body: ProjectCreateInput,
    responses: { 201: { description: 'created', schema: ProjectSchema } },
  }, async ({ c, body, access, principal }) => {
    checkConfigWrite(body.config, principal);
    const project = await store.projects.create(access.organizationId, body);
    c.set('audit', { action: 'project.create', resource: `project:${project.id}`, metadata: { name: project.name } });
    return c.json(project, 201);
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/v1/projects/:id', summary: 'Get a project', tags: ['projects'], auth: 'viewer', params: IdParams,
    responses: { 200: { description: 'project', schema: ProjectSchema }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, params, access }) => {
    const project = await store.projects.get(access.organizationId, params.id);
    if (!project) throw notFound('project');
    return c.json(project);
  });

  mountRoute(app, deps, registry, {
    method: 'patch', path: '/api/v1/projects/:id', summary: 'Update a project', tags: ['projects'], auth: 'member', params: IdParams, body: ProjectUpdateInput,
    responses: { 200: { description: 'updated', schema: ProjectSchema }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, params, body, access, principal }) => {
    checkConfigWrite(body.config, principal);
    const project = await store.projects.update(access.organizationId, params.id, body);
    c.set('audit', { action: 'project.update', resource: `project:${project.id}`, metadata: { fields: Object.keys(body) } });
    return c.json(project);
  });
}
