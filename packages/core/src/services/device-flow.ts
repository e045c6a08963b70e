/**
 * The OAuth 2.0 device authorization grant (RFC 8628), the spec's sign-in for agents:
 * an agent asks for a pair of codes, shows the person the user code and where to enter
 * it, and polls for its token; the person signs in to the dashboard, checks what is
 * asking and approves or denies. The token the agent gets is the person's, marked as an
 * agent's (`svc_agent`), so it acts with their role in their organizations but never
 * reaches what the agent interface must not (API keys, notification rules, webhook
 * configuration, environment variables; see route.ts).
 */
import { conflict, notFound, validationFailed } from '../errors.ts';
import type { Clock } from '../ports/clock.ts';
import type { DeviceAuthorization, Store } from '../store/index.ts';
import { generateDeviceCode, generateUserCode, hashDeviceCode, normalizeUserCode } from '../auth/index.ts';
import type { DeviceRequestView } from '../contracts/auth.ts';
import type { IdentityService, Session } from './identity.ts';

export const deviceCodeTtlSeconds = 600;
export const devicePollIntervalSeconds = 5;
/** RFC 8628 §3.5: every slow_down adds 5 seconds to the interval. */
const SLOW_DOWN_STEP_SECONDS = 5;
/** A user-code collision is a one-in-billions event; a few more draws settle it. */
const USER_CODE_ATTEMPTS = 5;

/** The token endpoint's answer to a poll: a session, or an RFC 8628 §3.5 error code. */
export type DevicePoll =
  | { kind: 'token'; session: Session }
  | { kind: 'error'; error: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant'; description: string };

export interface DeviceFlowOptions {
  store: Store;
  identity: IdentityService;
  clock: Clock;
  codeTtlSeconds?: number;
  intervalSeconds?: number;
}

const viewOf = (a: DeviceAuthorization): DeviceRequestView => ({
  user_code: a.user_code,
  client_id: a.client_id,
  scope: a.scope,
  status: a.status,
  created_at: a.created_at,
  expires_at: a.expires_at,
});

export function createDeviceFlow(opts: DeviceFlowOptions) {
  const { store, identity, clock } = opts;
  const ttl = opts.codeTtlSeconds ?? deviceCodeTtlSeconds;
  const interval = opts.intervalSeconds ?? devicePollIntervalSeconds;
  const expired = (a: DeviceAuthorization) => clock.now().getTime() >= Date.parse(a.expires_at);

  /** The live authorization a typed user code names; a malformed code names a field, an unknown or expired one is 404. */
  async function live(typedUserCode: string): Promise<DeviceAuthorization> {
    const userCode = normalizeUserCode(typedUserCode);
    if (!userCode) throw validationFailed([{ path: 'user_code', message: 'must be the 8 letters the agent shows, like BCDF-GHJK' }]);
    const found = await store.deviceAuthorizations.findByUserCode(userCode);
    if (!found || expired(found)) throw notFound('device code (it may have expired: ask the agent to start again)');
    return found;
  }

  return {
    codeTtlSeconds: ttl,

    /** Step 1 (the agent): a new pair of codes. */
    async start(input: { clientId: string; scope?: string }) {
      const device = generateDeviceCode();
      const now = clock.now();
      for (let attempt = 0; attempt < USER_CODE_ATTEMPTS; attempt++) {
        const userCode = generateUserCode();
        const created = await store.deviceAuthorizations.create({
          device_code_hash: device.hash,
          user_code: userCode,
          client_id: input.clientId,
          scope: input.scope ?? null,
          status: 'pending',
          user_id: null,
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + ttl * 1000).toISOString(),
          interval,
          last_polled_at: null,
        });
        if (created) return { device_code: device.code, user_code: userCode, expires_in: ttl, interval };
      }
      throw conflict('could not draw an unused user code; try again');
    },

    /** Step 2 (the person, signed in): what is asking. */
    async lookup(typedUserCode: string): Promise<DeviceRequestView> {
      return viewOf(await live(typedUserCode));
    },

    /** Step 2 (the person, signed in): approve or deny, once. */
    async decide(typedUserCode: string, userId: string, approve: boolean): Promise<DeviceRequestView> {
      const found = await live(typedUserCode);
      const decided = await store.deviceAuthorizations.decide(found.device_code_hash, approve ? 'approved' : 'denied', userId);
      if (!decided) throw conflict(`this sign-in was already ${found.status === 'pending' ? 'decided' : found.status}`, { status: found.status });
      return viewOf(decided);
    },

    /** Step 3 (the agent, every `interval` seconds): the token once approved. A client_id, when sent, must be the one that started. */
    async poll(deviceCode: string, clientId?: string): Promise<DevicePoll> {
      const found = await store.deviceAuthorizations.get(hashDeviceCode(deviceCode));
      if (!found) return { kind: 'error', error: 'invalid_grant', description: 'device_code is unknown or was already exchanged for a token' };
      if (clientId !== undefined && clientId !== found.client_id) return { kind: 'error', error: 'invalid_grant', description: 'device_code was issued to another client_id' };
      if (expired(found)) return { kind: 'error', error: 'expired_token', description: 'the device code expired before it was approved: start again' };
      if (found.status === 'denied') return { kind: 'error', error: 'access_denied', description: 'the person denied this sign-in' };
      if (found.status === 'approved') {
        if (!(await store.deviceAuthorizations.consume(found))) return { kind: 'error', error: 'invalid_grant', description: 'device_code was already exchanged for a token' };
        return { kind: 'token', session: await identity.agentSession(found.user_id!, found.client_id) };
      }
      const now = clock.now().getTime();
      if (found.last_polled_at !== null && now - found.last_polled_at < found.interval * 1000) {
        const slower = found.interval + SLOW_DOWN_STEP_SECONDS;
        await store.deviceAuthorizations.recordPoll(found.device_code_hash, now, slower);
        return { kind: 'error', error: 'slow_down', description: `polling too often: wait ${slower} seconds between polls` };
      }
      await store.deviceAuthorizations.recordPoll(found.device_code_hash, now, found.interval);
      return { kind: 'error', error: 'authorization_pending', description: 'waiting for the person to approve this sign-in' };
    },
  };
}

export type DeviceFlow = ReturnType<typeof createDeviceFlow>;
