import type { NotificationChannel, NotificationLog } from '../contracts/notification.ts';
import { ConditionFailedError, type Item } from '../ports/table.ts';
import { keys, stripLayout } from './keys.ts';
import { queryAll, queryPage, type StoreContext } from './context.ts';

/** A channel as stored: the contract's fields plus the URL and the signing secret, which are never returned. */
export type StoredChannel = NotificationChannel & { url: string; signing_secret: string | null };
export type ChannelPatch = Partial<Pick<StoredChannel, 'name' | 'url' | 'url_hint' | 'project_id' | 'events' | 'enabled'>>;

const LOG_TTL_SECONDS = 90 * 24 * 3600;

const channelOf = (item: Item): StoredChannel => {
  const { organization_id: _o, ...c } = stripLayout<StoredChannel & { organization_id: string }>(item);
  return c;
};

/**
 * notification_channels (a channel carries its rule: project and events) and
 * notification_logs. A delivery is claimed by writing its log item first, conditional on
 * it not existing (one per channel, run and event), so a report node that runs twice (a
 * resumed run) notifies once; logs expire after 90 days.
 */
export function notificationsRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    async create(orgId: string, input: Omit<StoredChannel, 'id' | 'created_at' | 'updated_at'>): Promise<StoredChannel> {
      const now = ctx.clock.now().toISOString();
      const channel: StoredChannel = { ...input, id: ctx.newId(), created_at: now, updated_at: now };
      await table.put({ ...keys.notificationChannel(orgId, channel.id), entity: 'notification_channel', organization_id: orgId, ...channel }, { kind: 'notExists' });
      return channel;
    },

    async get(orgId: string, id: string): Promise<StoredChannel | undefined> {
      const item = await table.get(keys.notificationChannel(orgId, id));
      return item ? channelOf(item) : undefined;
    },

    list(orgId: string, limit: number, cursor?: string) {
      return queryPage<StoredChannel & { organization_id?: string }>(table, { pk: `ORG#${orgId}`, skPrefix: 'NOTIFYCH#', limit, cursor, descending: true });
    },

    /** Every channel of the organization (a run's notification reads them all; an organization has a handful). */
    async all(orgId: string): Promise<StoredChannel[]> {
      return (await queryAll(table, { pk: `ORG#${orgId}`, skPrefix: 'NOTIFYCH#' })).map(channelOf);
    },

    async update(orgId: string, id: string, patch: ChannelPatch): Promise<StoredChannel | undefined> {
      const set: Record<string, unknown> = { ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)), updated_at: ctx.clock.now().toISOString() };
      try {
        return channelOf(await table.update({ key: keys.notificationChannel(orgId, id), set }));
      } catch (err) {
        if (err instanceof ConditionFailedError) return undefined;
        throw err;
      }
    },

    async delete(orgId: string, id: string): Promise<StoredChannel | undefined> {
      const current = await this.get(orgId, id);
      if (!current) return undefined;
      await table.delete(keys.notificationChannel(orgId, id));
      return current;
    },

    /** Claims a delivery (false: it was claimed before) and returns its log id. */
    /** `subject` orders the log (a run id, or a fresh id for a test message): ids are time-ordered. */
    async claimDelivery(orgId: string, channelId: string, subject: string, event: string, runId: string | null): Promise<string | undefined> {
      const id = ctx.newId();
      const log = { id, channel_id: channelId, run_id: runId, event, status: 'failed', attempts: 0, http_status: null, error: 'not sent yet', created_at: ctx.clock.now().toISOString() };
      try {
        await table.put(
          { pk: keys.notificationLogs(orgId, channelId), sk: `${subject}#${event}`, entity: 'notification_log', expiresAt: Math.floor(ctx.clock.now().getTime() / 1000) + LOG_TTL_SECONDS, ...log },
          { kind: 'notExists' },
        );
        return id;
      } catch (err) {
        if (err instanceof ConditionFailedError) return undefined;
        throw err;
      }
    },

    async recordDelivery(orgId: string, channelId: string, subject: string, event: string, outcome: Pick<NotificationLog, 'status' | 'attempts' | 'http_status' | 'error'>): Promise<void> {
      await table.update({ key: { pk: keys.notificationLogs(orgId, channelId), sk: `${subject}#${event}` }, set: outcome });
    },

    /** A channel's deliveries, newest first. */
    logs(orgId: string, channelId: string, limit: number, cursor?: string) {
      return queryPage<NotificationLog>(table, { pk: keys.notificationLogs(orgId, channelId), limit, cursor, descending: true });
    },
  };
}
