import { z } from 'zod';
import type { Hono } from 'hono';
import { listResponse } from '@svc/core/contracts/common';
import { RotateSecretInput } from '@svc/core/contracts/secret-rotation';
import { AutomationIntegrationCreated, AutomationIntegrationRotated, AutomationIntegrationCreateInput, AutomationIntegrationListQuery, AutomationIntegrationSchema, AutomationIntegrationUpdateInput } from '@svc/core/contracts/automation-integration';
import { automationIntegrationService, publicAutomationIntegration } from '@svc/core/services/automation-integrations';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { userOf } from './runs.ts';

const IdParams = z.strictObject({ id: z.uuid().describe('Automation integration id') });
const notFoundHere = { 404: { description: 'no such integration in this organization' } };

/**
 * Automation integrations (docs/automation.md). Admins only, and signed-in people only:
 * the spec keeps webhook configuration out of the agent interface, and a secret lets
 * whoever holds it start runs and generate tests.
 */
export function automationIntegrationRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const integrations = automationIntegrationService({ store: deps.store });
  const base = { tags: ['integrations'], auth: 'admin' as const, apiKeys: false };

  mountRoute(app, deps, registry, {
    ...base, method: 'get', path: '/api/integrations/automation', summary: 'Workflow-automation integrations of the organization (n8n, Zapier, Make, cron), newest first (never their secrets)', query: AutomationIntegrationListQuery,
    responses: { 200: { description: 'integrations', schema: listResponse(AutomationIntegrationSchema) } },
  }, async ({ c, query, access }) => {
    const page = await deps.store.automationIntegrations.list(access.organizationId, { limit: query.limit, cursor: query.cursor });
    return c.json({ items: page.items.map((i) => AutomationIntegrationSchema.parse(publicAutomationIntegration(i))), next_cursor: page.next_cursor });
  });

  mountRoute(app, deps, registry, {
    ...base, method: 'post', path: '/api/integrations/automation', summary: 'Create an automation integration: its signed events run tests and generate tests from failures in its projects (all of the organization\'s by default)', body: AutomationIntegrationCreateInput,
    responses: { 201: { description: 'created; the signing secret is shown only now', schema: AutomationIntegrationCreated }, 400: { description: 'invalid body' }, 404: { description: 'a listed project is not in this organization' } },
  }, async ({ c, body, access, principal }) => {
    const integration = await integrations.create(access.organizationId, body, userOf(principal));
    c.set('audit', { action: 'automation_integration.create', resource: `automation_integration:${integration.id}`, metadata: { name: integration.name, project_ids: integration.project_ids } });
    return c.json(AutomationIntegrationCreated.parse(integration), 201);
  });

  mountRoute(app, deps, registry, {
    ...base, method: 'get', path: '/api/integrations/automation/:id', summary: 'Get an automation integration (never its secret)', params: IdParams,
    responses: { 200: { description: 'integration', schema: AutomationIntegrationSchema }, ...notFoundHere },
  }, async ({ c, params, access }) => c.json(AutomationIntegrationSchema.parse(publicAutomationIntegration(await integrations.get(access.organizationId, params.id)))));

  mountRoute(app, deps, registry, {
    ...base, method: 'patch', path: '/api/integrations/automation/:id', summary: 'Change an automation integration: name, projects, enabled (false pauses it)', params: IdParams, body: AutomationIntegrationUpdateInput,
    responses: { 200: { description: 'the integration as changed', schema: AutomationIntegrationSchema }, ...notFoundHere },
  }, async ({ c, params, body, access }) => {
    const integration = await integrations.update(access.organizationId, params.id, body);
    c.set('audit', { action: 'automation_integration.update', resource: `automation_integration:${integration.id}`, metadata: { fields: Object.keys(body).sort() } });
    return c.json(AutomationIntegrationSchema.parse(integration));
  });

  mountRoute(app, deps, registry, {
    ...base, method: 'post', path: '/api/integrations/automation/:id/rotate-secret', summary: "Rotate an automation integration's signing secret: a new secret, shown only in this answer; the current one keeps verifying (and co-signs callbacks) for grace_hours (default 24) while the tool is updated", params: IdParams, body: RotateSecretInput,
    responses: { 200: { description: 'rotated; the new secret is shown only now', schema: AutomationIntegrationRotated }, 400: { description: 'invalid body (grace_hours: whole hours, 0..168)' }, ...notFoundHere },
  }, async ({ c, params, body, access }) => {
    const integration = await integrations.rotateSecret(access.organizationId, params.id, body.grace_hours);
    // What was done and until when the old secret works; never a secret or its hint.
    c.set('audit', { action: 'automation_integration.rotate_secret', resource: `automation_integration:${integration.id}`, metadata: { name: integration.name, grace_hours: body.grace_hours, previous_secret_expires_at: integration.previous_secret_expires_at } });
    return c.json(AutomationIntegrationRotated.parse(integration));
  });

  mountRoute(app, deps, registry, {
    ...base, method: 'delete', path: '/api/integrations/automation/:id', summary: 'Remove an automation integration (its events are then refused; its runs stay)', params: IdParams,
    responses: { 204: { description: 'deleted' }, ...notFoundHere },
  }, async ({ c, params, access }) => {
    const integration = await integrations.delete(access.organizationId, params.id);
    c.set('audit', { action: 'automation_integration.delete', resource: `automation_integration:${integration.id}`, metadata: { name: integration.name } });
    return c.body(null, 204);
  });
}
