import { z } from 'zod';
import type { Hono } from 'hono';
import { TestFromTemplateInput, TestTemplateCreateInput, TestTemplateSchema, TestTemplateUpdateInput } from '@svc/core/contracts/test-templates';
import { TestSchema } from '@svc/core/contracts/test';
import { testFromTemplate, testTemplateService } from '@svc/core/services/test-templates';
import { notFound, validationFailed } from '@svc/core/errors';
import { ListQuery, listResponse } from '@svc/core/contracts/common';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { actorOf } from '../actor.ts';
import { createTest } from '../create-test.ts';

const IdParams = z.strictObject({ id: z.uuid().describe('Test template id') });
const NOT_FOR_AGENTS = 'templates are written by people in the dashboard: API keys and agents may read them and make tests from them';

/**
 * Custom test templates (docs/test-templates.md). Viewers and agents read; members who are
 * signed in write (an API key or an agent token is refused: the spec's capability matrix
 * gives the agent gateway read-only access); members, agents included, make tests from them.
 */
export function testTemplateRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const templates = testTemplateService({ store: deps.store });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/test-templates', summary: "The organization's custom test templates, by name", tags: ['test-templates'], auth: 'viewer', query: ListQuery,
    responses: { 200: { description: 'templates', schema: listResponse(TestTemplateSchema) }, 400: { description: 'a bad limit or cursor (named)' } },
  }, async ({ c, query, access }) => {
    // The list envelope and paging every list has (an organization keeps a handful: paged by name over the whole list).
    const all = await templates.list(access.organizationId);
    const after = query.cursor === undefined ? -1 : all.findIndex((t) => t.id === templateCursor(query.cursor!));
    if (query.cursor !== undefined && after < 0) throw validationFailed([{ path: 'cursor', message: 'not a next_cursor of this list' }]);
    const items = all.slice(after + 1, after + 1 + query.limit);
    const more = after + 1 + query.limit < all.length;
    return c.json({ items, next_cursor: more ? Buffer.from(items.at(-1)!.id, 'utf8').toString('base64url') : null });
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/test-templates/:id', summary: 'A custom test template', tags: ['test-templates'], auth: 'viewer', params: IdParams,
    responses: { 200: { description: 'template', schema: TestTemplateSchema }, 404: { description: 'no such template in this organization' } },
  }, async ({ c, params, access }) => c.json(await templates.get(access.organizationId, params.id)));

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/test-templates', summary: 'Create a custom test template (people only)', tags: ['test-templates'], auth: 'member', apiKeys: false, body: TestTemplateCreateInput,
    responses: {
      201: { description: 'created', schema: TestTemplateSchema },
      400: { description: 'invalid body: a bad step, a {{template.x}} with no parameter x, a parameter declared twice' },
      403: { description: NOT_FOR_AGENTS },
      409: { description: 'a template of that name exists (regardless of case)' },
    },
  }, async ({ c, body, access, principal }) => {
    const template = await templates.create(access.organizationId, body, actorOf(principal));
    c.set('audit', { action: 'test_template.create', resource: `test_template:${template.id}`, metadata: { name: template.name } });
    return c.json(template, 201);
  });

  mountRoute(app, deps, registry, {
    method: 'patch', path: '/api/test-templates/:id', summary: 'Change a custom test template (lists are replaced whole; people only)', tags: ['test-templates'], auth: 'member', apiKeys: false, params: IdParams, body: TestTemplateUpdateInput,
    responses: {
      200: { description: 'the template as changed', schema: TestTemplateSchema },
      400: { description: 'invalid body, or a change that leaves a placeholder without its parameter' },
      403: { description: NOT_FOR_AGENTS },
      404: { description: 'no such template in this organization' },
      409: { description: 'the new name is taken' },
    },
  }, async ({ c, params, body, access }) => {
    const template = await templates.update(access.organizationId, params.id, body);
    c.set('audit', { action: 'test_template.update', resource: `test_template:${template.id}`, metadata: { fields: Object.keys(body).sort() } });
    return c.json(template);
  });

  mountRoute(app, deps, registry, {
    method: 'delete', path: '/api/test-templates/:id', summary: 'Delete a custom test template (tests made from it stay; people only)', tags: ['test-templates'], auth: 'member', apiKeys: false, params: IdParams,
    responses: { 204: { description: 'deleted' }, 403: { description: NOT_FOR_AGENTS }, 404: { description: 'no such template in this organization' } },
  }, async ({ c, params, access }) => {
    const template = await templates.delete(access.organizationId, params.id);
    c.set('audit', { action: 'test_template.delete', resource: `test_template:${template.id}`, metadata: { name: template.name } });
    return c.body(null, 204);
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/test-templates/:id/tests', summary: 'Make a test from a template with its parameters\' values; publishes test.created', tags: ['test-templates'], auth: 'member', params: IdParams, body: TestFromTemplateInput,
    responses: {
      201: { description: 'the new test', schema: TestSchema },
      400: { description: 'a value for no parameter, none for a required one (values.<name>), or a value that makes an invalid test (the field named)' },
      404: { description: 'no such template or project in this organization' },
    },
  }, async ({ c, params, body, access, principal }) => {
    const template = await templates.get(access.organizationId, params.id);
    if (!(await deps.store.projects.get(access.organizationId, body.project_id))) throw notFound('project');
    const test = await createTest(deps, access.organizationId, c.get('requestId'), testFromTemplate(template, body), actorOf(principal));
    c.set('audit', { action: 'test.create', resource: `test:${test.id}`, metadata: { name: test.name, project_id: test.project_id, template_id: template.id } });
    return c.json(test, 201);
  });
}

/** The template id a cursor names (base64url of the last id given), or '' when it names none. */
function templateCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  return /^[0-9a-f-]{36}$/.test(id) ? id : '';
}
