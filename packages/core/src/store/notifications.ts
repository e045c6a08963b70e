import type { NotificationChannel, NotificationLog } from '../contracts/notification.ts';
import { ConditionFailedError, type Item } from '../ports/table.ts';
import { keys, stripLayout } from './keys.ts';
import { queryAll, queryPage, type StoreContext } from './context.ts';
import type { StoredSecret } from './secret-fields.ts';
import { updateSealed } from './sealed-update.ts';

/**
 * A channel as stored: the contract's fields plus the URL (a Slack incoming-webhook URL is
 * itself the credential) and the signing secret, both sealed and never returned. Open
 * them with `secrets` when a message is sent.
 */
export type StoredChannel = NotificationChannel & { url: StoredSecret; signing_secret: StoredSecret | null };
/** A channel's secrets, opened. */
export interface ChannelSecrets {
  url: string;
  signing_secret: string | null;
}
export type NewChannel = Omit<NotificationChannel, 'id' | 'created_at' | 'updated_at'> & ChannelSecrets;
export type ChannelPatch = Partial<Pick<NotificationChannel, 'name' | 'url_hint' | 'project_id' | 'events' | 'enabled'> & { url: string }>;

/** The attributes sealed at rest. */
const SECRET_FIELDS = ['url', 'signing_secret'] as const satisfies readonly (keyof ChannelSecrets)[];

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
    async create(orgId: string, input: NewChannel): Promise<StoredChannel> {
      const now = ctx.clock.now().toISOString();
      const id = ctx.newId();
      const key = keys.notificationChannel(orgId, id);
      const channel: StoredChannel = { ...input, ...(await ctx.secrets.seal(orgId, key, { url: input.url, signing_secret: input.signing_secret })), id, created_at: now, updated_at: now };
      await table.put({ ...key, entity: 'notification_channel', organization_id: orgId, ...channel }, { kind: 'notExists' });
      return channel;
    },

    /** A channel's URL and signing secret, opened (SECRET_UNREADABLE when one does not open). */
    secrets(orgId: string, channel: Pick<StoredChannel, 'id' | 'url' | 'signing_secret'>): Promise<ChannelSecrets> {
      return ctx.secrets.open(orgId, keys.notificationChannel(orgId, channel.id), { url: channel.url, signing_secret: channel.signing_secret }) as Promise<ChannelSecrets>;
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

    /** A new URL is sealed; a URL or secret still in plaintext from before is sealed too. */
    async update(orgId: string, id: string, patch: ChannelPatch): Promise<StoredChannel | undefined> {
      const set: Record<string, unknown> = { ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)), updated_at: ctx.clock.now().toISOString() };
      const item = await updateSealed(ctx, orgId, keys.notificationChannel(orgId, id), SECRET_FIELDS, () => set);
      return item && channelOf(item);
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
