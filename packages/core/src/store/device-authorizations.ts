import { ConditionFailedError } from '../ports/table.ts';
import { keys, stripLayout } from './keys.ts';
import type { StoreContext } from './context.ts';

/** An agent's sign-in through the OAuth device flow, from the agent's request to its token. */
export interface DeviceAuthorization {
  device_code_hash: string;
  user_code: string;
  /** What the agent calls itself (self-asserted: shown to the person, never trusted). */
  client_id: string;
  scope: string | null;
  status: 'pending' | 'approved' | 'denied';
  /** The person who approved or denied it. */
  user_id: string | null;
  created_at: string;
  /** When the codes stop working. */
  expires_at: string;
  /** Seconds the agent must wait between polls; grows by 5 with every slow_down. */
  interval: number;
  /** Epoch ms of the agent's last poll, for slow_down. */
  last_polled_at: number | null;
}

/**
 * Items outlive their codes by an hour, so a late poll hears expired_token (RFC 8628
 * §3.5) rather than "never heard of it"; after that the table's TTL removes them.
 */
const KEEP_AFTER_EXPIRY_SECONDS = 3600;

/** Device authorizations by device-code hash, with a second item per user code. */
export function deviceAuthorizationsRepo(ctx: StoreContext) {
  const { table } = ctx;
  const read = async (hash: string) => {
    const item = await table.get(keys.deviceAuthorization(hash));
    return item ? stripLayout<DeviceAuthorization>(item) : undefined;
  };
  return {
    /** Stores a new one; false when its user code is taken (the caller draws another). */
    async create(authorization: DeviceAuthorization): Promise<boolean> {
      const expiresAt = Math.floor(Date.parse(authorization.expires_at) / 1000) + KEEP_AFTER_EXPIRY_SECONDS;
      try {
        await table.transact([
          { type: 'put', item: { ...keys.deviceUserCode(authorization.user_code), device_code_hash: authorization.device_code_hash, expiresAt }, condition: { kind: 'notExists' } },
          { type: 'put', item: { ...keys.deviceAuthorization(authorization.device_code_hash), entity: 'device_authorization', ...authorization, expiresAt }, condition: { kind: 'notExists' } },
        ]);
        return true;
      } catch (err) {
        if (err instanceof ConditionFailedError) return false;
        throw err;
      }
    },

    get: read,

    async findByUserCode(userCode: string): Promise<DeviceAuthorization | undefined> {
      const pointer = await table.get(keys.deviceUserCode(userCode));
      return pointer ? read(String(pointer.device_code_hash)) : undefined;
    },

    /** Approves or denies a pending one; undefined when it was no longer pending (or is gone). */
    async decide(hash: string, status: 'approved' | 'denied', userId: string): Promise<DeviceAuthorization | undefined> {
      try {
        const item = await table.update({ key: keys.deviceAuthorization(hash), set: { status, user_id: userId }, condition: { kind: 'equals', attr: 'status', value: 'pending' } });
        return stripLayout<DeviceAuthorization>(item);
      } catch (err) {
        if (err instanceof ConditionFailedError) return undefined;
        throw err;
      }
    },

    async recordPoll(hash: string, polledAtMs: number, interval: number): Promise<void> {
      try {
        await table.update({ key: keys.deviceAuthorization(hash), set: { last_polled_at: polledAtMs, interval } });
      } catch (err) {
        if (!(err instanceof ConditionFailedError)) throw err; // consumed meanwhile: nothing to record
      }
    },

    /** Takes an approved one for its token, once: false when another poll already did. */
    async consume(authorization: DeviceAuthorization): Promise<boolean> {
      try {
        await table.transact([
          { type: 'delete', key: keys.deviceAuthorization(authorization.device_code_hash), condition: { kind: 'equals', attr: 'status', value: 'approved' } },
          { type: 'delete', key: keys.deviceUserCode(authorization.user_code) },
        ]);
        return true;
      } catch (err) {
        if (err instanceof ConditionFailedError) return false;
        throw err;
      }
    },
  };
}
