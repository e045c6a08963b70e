import { z } from 'zod';
import type { Hono } from 'hono';
import { listResponse } from '@svc/core/contracts/common';
import { ChatIntegrationCreated, ChatIntegrationCreateInput, ChatIntegrationListQuery, ChatIntegrationSchema, ChatIntegrationUpdateInput } from '@svc/core/contracts/chat-integration';
import { chatIntegrationService, publicChatIntegration } from '@svc/core/services/chat-integrations';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { userOf } from './runs.ts';

const IdParams = z.strictObject({ id: z.uuid().describe('Chat integration id') });
const notFoundHere = { 404: { description: 'no such integration in this organization' } };

/**
 * Chat integrations (docs/chatops.md). Admins only, and signed-in people only: the spec
 * keeps webhook configuration out of the agent interface, and a signing secret lets
 * whoever holds it start runs from a chat.
 */
export function chatIntegrationRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const integrations = chatIntegrationService({ store: deps.store });
  const base = { tags: ['integrations'], auth: 'admin' as const, apiKeys: false };

  mountRoute(app, deps, registry, {
    ...base, method: 'get', path: '/api/integrations/chat', summary: 'Chat (Slack slash command) integrations of the organization, newest first (never their signing secrets)', query: ChatIntegrationListQuery,
    responses: { 200: { description: 'integrations', schema: listResponse(ChatIntegrationSchema) } },
  }, async ({ c, query, access }) => {
    const page = await deps.store.chatIntegrations.list(access.organizationId, { limit: query.limit, cursor: query.cursor });
    return c.json({ items: page.items.map((i) => ChatIntegrationSchema.parse(publicChatIntegration(i))), next_cursor: page.next_cursor });
  });

  mountRoute(app, deps, registry, {
    ...base, method: 'post', path: '/api/integrations/chat', summary: "Link a Slack app's slash command to a default project: its signed commands run, report on and score the organization's projects", body: ChatIntegrationCreateInput,
    responses: { 201: { description: 'created (the signing secret is never returned)', schema: ChatIntegrationCreated }, 400: { description: 'invalid body' }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, body, access, principal }) => {
    const integration = await integrations.create(access.organizationId, body, userOf(principal));
    c.set('audit', { action: 'chat_integration.create', resource: `chat_integration:${integration.id}`, metadata: { project_id: integration.project_id, provider: integration.provider, team_id: integration.team_id } });
    return c.json(ChatIntegrationCreated.parse(integration), 201);
  });

  mountRoute(app, deps, registry, {
    ...base, method: 'get', path: '/api/integrations/chat/:id', summary: 'Get a chat integration (never its signing secret)', params: IdParams,
    responses: { 200: { description: 'integration', schema: ChatIntegrationSchema }, ...notFoundHere },
  }, async ({ c, params, access }) => c.json(ChatIntegrationSchema.parse(publicChatIntegration(await integrations.get(access.organizationId, params.id)))));

  mountRoute(app, deps, registry, {
    ...base, method: 'patch', path: '/api/integrations/chat/:id', summary: 'Change a chat integration: default project, signing secret, workspace, allowed users, enabled (false pauses it)', params: IdParams, body: ChatIntegrationUpdateInput,
    responses: { 200: { description: 'the integration as changed', schema: ChatIntegrationSchema }, ...notFoundHere },
  }, async ({ c, params, body, access }) => {
    const integration = await integrations.update(access.organizationId, params.id, body);
    c.set('audit', { action: 'chat_integration.update', resource: `chat_integration:${integration.id}`, metadata: { fields: Object.keys(body).sort() } });
    return c.json(ChatIntegrationSchema.parse(integration));
  });

  mountRoute(app, deps, registry, {
    ...base, method: 'delete', path: '/api/integrations/chat/:id', summary: 'Remove a chat integration (its commands are then refused; its runs stay)', params: IdParams,
    responses: { 204: { description: 'deleted' }, ...notFoundHere },
  }, async ({ c, params, access }) => {
    const integration = await integrations.delete(access.organizationId, params.id);
    c.set('audit', { action: 'chat_integration.delete', resource: `chat_integration:${integration.id}`, metadata: { provider: integration.provider, team_id: integration.team_id } });
    return c.body(null, 204);
  });
}
