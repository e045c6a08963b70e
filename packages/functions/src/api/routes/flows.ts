import { z } from 'zod';
import type { Hono } from 'hono';
import { FlowCreateInput, FlowListQuery, FlowSchema, FlowUpdateInput } from '@svc/core/contracts/flow';
import { flowService } from '@svc/core/services/flows';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { actorOf } from '../actor.ts';

const IdParams = z.strictObject({ id: z.uuid().describe('Flow id') });
const FlowList = z.object({ items: z.array(FlowSchema.extend({ used_by_tests: z.number().int().describe('How many of the project\'s tests use it directly') })) });

/**
 * Flows: a project's shared steps, which tests run with a `use` step
 * (docs/test-format.md, Flows). Members write, viewers read; another organization's flow
 * is a 404. A flow in use is neither deleted nor renamed (409 naming up to 5 users).
 */
export function flowRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const flows = flowService({ store: deps.store });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/flows', summary: "List a project's flows, by name", tags: ['flows'], auth: 'viewer', query: FlowListQuery,
    responses: { 200: { description: 'flows', schema: FlowList }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, query, access }) => c.json({ items: await flows.list(access.organizationId, query.project_id) }));

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/flows', summary: 'Create a flow: named, parameterised steps that tests run with a use step', tags: ['flows'], auth: 'member', body: FlowCreateInput,
    responses: {
      201: { description: 'created', schema: FlowSchema },
      400: { description: 'invalid body: a bad name or step, a use of an unknown flow or with the wrong parameters, a cycle, nesting deeper than 5' },
      404: { description: 'no such project in this organization' },
      409: { description: 'the project has a flow of that name (regardless of case)' },
    },
  }, async ({ c, body, access, principal }) => {
    const flow = await flows.create(access.organizationId, body, actorOf(principal));
    c.set('audit', { action: 'flow.create', resource: `flow:${flow.id}`, metadata: { project_id: flow.project_id, name: flow.name } });
    return c.json(flow, 201);
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/flows/:id', summary: 'Get a flow', tags: ['flows'], auth: 'viewer', params: IdParams,
    responses: { 200: { description: 'flow', schema: FlowSchema }, 404: { description: 'no such flow in this organization' } },
  }, async ({ c, params, access }) => c.json(await flows.get(access.organizationId, params.id)));

  mountRoute(app, deps, registry, {
    method: 'patch', path: '/api/flows/:id', summary: 'Change a flow: any of name, description, parameters, steps (lists are replaced whole)', tags: ['flows'], auth: 'member', params: IdParams, body: FlowUpdateInput,
    responses: {
      200: { description: 'the flow as changed', schema: FlowSchema },
      400: { description: 'invalid body, as for create' },
      404: { description: 'no such flow in this organization' },
      409: { description: 'a rename of a flow in use, a name taken, or a change that would break the tests using it (names them)' },
    },
  }, async ({ c, params, body, access }) => {
    const flow = await flows.update(access.organizationId, params.id, body);
    c.set('audit', { action: 'flow.update', resource: `flow:${flow.id}`, metadata: { fields: Object.keys(body).sort(), project_id: flow.project_id } });
    return c.json(flow);
  });

  mountRoute(app, deps, registry, {
    method: 'delete', path: '/api/flows/:id', summary: 'Delete a flow no test or flow uses', tags: ['flows'], auth: 'member', params: IdParams,
    responses: { 204: { description: 'deleted' }, 404: { description: 'no such flow in this organization' }, 409: { description: 'tests or flows use it (up to 5 named)' } },
  }, async ({ c, params, access }) => {
    const flow = await flows.delete(access.organizationId, params.id);
    c.set('audit', { action: 'flow.delete', resource: `flow:${flow.id}`, metadata: { name: flow.name, project_id: flow.project_id } });
    return c.body(null, 204);
  });
}
