import { z } from 'zod';
import { deliveryFetch } from '../../net/metadata-safe-fetch.ts';
import type { Hono } from 'hono';
import { listResponse, ListQuery } from '@svc/core/contracts/common';
import { NotificationChannelCreateInput, NotificationChannelCreated, NotificationChannelSchema, NotificationChannelUpdateInput, NotificationLogQuery, NotificationLogSchema } from '@svc/core/contracts/notification';
import { notificationService, publicChannel } from '@svc/core/services/notifications';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';

const IdParams = z.strictObject({ id: z.uuid().describe('Notification channel id') });
const TestOutcome = z.object({ status: z.enum(['delivered', 'failed']), attempts: z.number().int(), http_status: z.number().int().nullable(), error: z.string().nullable() });
const notFoundHere = { 404: { description: 'no such channel in this organization' } };

/**
 * Notification channels (docs/notifications.md). Admins only, and signed-in people only:
 * the spec keeps notification rules and webhook configuration out of the agent interface,
 * and a channel's URL is a credential that sends the organization's results elsewhere.
 */
export function notificationRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const notifications = notificationService({ store: deps.store, clock: deps.clock, logger: deps.logger, fetch: deliveryFetch });
  const base = { tags: ['notifications'], auth: 'admin' as const, apiKeys: false };

  mountRoute(app, deps, registry, {
    ...base, method: 'get', path: '/api/notifications/channels', summary: 'Notification channels of the organization (never their URLs or secrets)', query: ListQuery,
    responses: { 200: { description: 'channels', schema: listResponse(NotificationChannelSchema) } },
  }, async ({ c, query, access }) => {
    const page = await deps.store.notifications.list(access.organizationId, query.limit, query.cursor);
    return c.json({ items: page.items.map((ch) => NotificationChannelSchema.parse(publicChannel(ch))), next_cursor: page.next_cursor });
  });

  mountRoute(app, deps, registry, {
    ...base, method: 'post', path: '/api/notifications/channels', summary: 'Add a channel: a Slack-compatible incoming webhook or a signed JSON webhook, with the run outcomes that send to it', body: NotificationChannelCreateInput,
    responses: { 201: { description: 'created; a webhook channel\'s signing secret is shown only now', schema: NotificationChannelCreated }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, body, access }) => {
    const channel = await notifications.create(access.organizationId, body);
    c.set('audit', { action: 'notification_channel.create', resource: `notification_channel:${channel.id}`, metadata: { kind: channel.kind, url_hint: channel.url_hint, project_id: channel.project_id, events: channel.events } });
    return c.json(NotificationChannelCreated.parse(channel), 201);
  });

  mountRoute(app, deps, registry, {
    ...base, method: 'get', path: '/api/notifications/channels/:id', summary: 'Get a notification channel', params: IdParams,
    responses: { 200: { description: 'channel', schema: NotificationChannelSchema }, ...notFoundHere },
  }, async ({ c, params, access }) => c.json(NotificationChannelSchema.parse(publicChannel(await notifications.get(access.organizationId, params.id)))));

  mountRoute(app, deps, registry, {
    ...base, method: 'patch', path: '/api/notifications/channels/:id', summary: 'Change a channel: name, URL, project, events, enabled', params: IdParams, body: NotificationChannelUpdateInput,
    responses: { 200: { description: 'the channel as changed', schema: NotificationChannelSchema }, 404: { description: 'no such channel or project in this organization' } },
  }, async ({ c, params, body, access }) => {
    const channel = await notifications.update(access.organizationId, params.id, body);
    c.set('audit', { action: 'notification_channel.update', resource: `notification_channel:${channel.id}`, metadata: { fields: Object.keys(body).sort() } });
    return c.json(NotificationChannelSchema.parse(channel));
  });

  mountRoute(app, deps, registry, {
    ...base, method: 'delete', path: '/api/notifications/channels/:id', summary: 'Remove a channel', params: IdParams,
    responses: { 204: { description: 'deleted' }, ...notFoundHere },
  }, async ({ c, params, access }) => {
    const channel = await notifications.delete(access.organizationId, params.id);
    c.set('audit', { action: 'notification_channel.delete', resource: `notification_channel:${channel.id}`, metadata: { kind: channel.kind, url_hint: channel.url_hint } });
    return c.body(null, 204);
  });

  mountRoute(app, deps, registry, {
    ...base, method: 'post', path: '/api/notifications/channels/:id/test', summary: 'Send a test message now; answers with what the endpoint said', params: IdParams,
    responses: { 200: { description: 'the delivery (status delivered or failed, with the HTTP status or the error)', schema: TestOutcome }, ...notFoundHere },
  }, async ({ c, params, access }) => c.json(await notifications.test(access.organizationId, params.id)));

  mountRoute(app, deps, registry, {
    ...base, method: 'get', path: '/api/notifications/channels/:id/logs', summary: 'Deliveries of a channel, newest first (kept 90 days)', params: IdParams, query: NotificationLogQuery,
    responses: { 200: { description: 'deliveries', schema: listResponse(NotificationLogSchema) }, ...notFoundHere },
  }, async ({ c, params, query, access }) => {
    await notifications.get(access.organizationId, params.id);
    const page = await deps.store.notifications.logs(access.organizationId, params.id, query.limit, query.cursor);
    return c.json({ items: page.items.map((l) => NotificationLogSchema.parse(l)), next_cursor: page.next_cursor });
  });
}
