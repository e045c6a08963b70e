import { z } from 'zod';
import { atLeastOneField, atLeastOneFieldParams, IsoDateTime, ListQuery, Uuid } from './common.ts';
import { HttpUrl } from './project.ts';

/**
 * Notification channels (spec: notification_channels, notification_rules,
 * notification_logs; "outbound notifications go to chat channels"). A channel is where a
 * message goes (a Slack-compatible incoming webhook, or any HTTPS endpoint that takes
 * svc's signed JSON) and, as its rule, which run outcomes of which project send one.
 * docs/notifications.md.
 */

export const notificationKinds = ['slack', 'webhook'] as const;
export const NotificationKind = z.enum(notificationKinds).describe('slack: a Slack-compatible incoming webhook (Slack, Mattermost, Rocket.Chat) gets a chat message; webhook: any endpoint gets signed JSON');

export const notificationEvents = ['run_failed', 'run_recovered', 'run_passed'] as const;
export const NotificationEvent = z
  .enum(notificationEvents)
  .describe('run_failed: a run ended with a failed test or an error; run_recovered: a run passed after the project\'s previous run failed; run_passed: every run that passed');
export type NotificationEvent = z.output<typeof NotificationEvent>;

export const NotificationChannelSchema = z.object({
  id: Uuid,
  name: z.string(),
  kind: NotificationKind,
  url_hint: z.string().describe('Where messages go, without path or query (the URL itself is a credential and is never returned)'),
  project_id: Uuid.nullable().describe('Only runs of this project; null: every project of the organization'),
  events: z.array(NotificationEvent),
  enabled: z.boolean(),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
});
export type NotificationChannel = z.output<typeof NotificationChannelSchema>;

/** A channel as created: with its signing secret, shown this once (webhook channels). */
export const NotificationChannelCreated = NotificationChannelSchema.extend({
  signing_secret: z.string().nullable().describe('webhook channels: the secret that signs every delivery (X-Svc-Signature); shown only now'),
});

const Events = z.array(NotificationEvent).min(1).max(notificationEvents.length).refine((e) => new Set(e).size === e.length, { message: 'an event is listed twice' });

export const NotificationChannelCreateInput = z.strictObject({
  name: z.string().trim().min(1).max(100).describe('Channel name, e.g. "#qa-alerts"'),
  kind: NotificationKind,
  url: HttpUrl.describe('The incoming webhook URL (slack) or the endpoint (webhook)'),
  project_id: Uuid.optional().describe('Only runs of this project (default: every project)'),
  events: Events.default(['run_failed', 'run_recovered']).describe('Run outcomes that send a message (default run_failed, run_recovered)'),
  enabled: z.boolean().default(true),
});
export type NotificationChannelCreateInput = z.output<typeof NotificationChannelCreateInput>;

export const NotificationChannelUpdateInput = z
  .strictObject({
    name: z.string().trim().min(1).max(100).optional(),
    url: HttpUrl.optional(),
    project_id: Uuid.nullable().optional().describe('null: every project'),
    events: Events.optional(),
    enabled: z.boolean().optional(),
  })
  .refine(atLeastOneField, atLeastOneFieldParams);
export type NotificationChannelUpdateInput = z.output<typeof NotificationChannelUpdateInput>;

export const NotificationLogSchema = z.object({
  id: Uuid,
  channel_id: Uuid,
  run_id: Uuid.nullable().describe('The run it was about (null for a test message)'),
  event: z.string().describe('run_failed, run_recovered, run_passed or test'),
  status: z.enum(['delivered', 'failed']),
  attempts: z.number().int(),
  http_status: z.number().int().nullable(),
  error: z.string().nullable(),
  created_at: IsoDateTime,
});
export type NotificationLog = z.output<typeof NotificationLogSchema>;

export const NotificationLogQuery = ListQuery;
