/**
 * The device flow's rules over the real store (the local file table), with a clock the
 * test moves: pending → slow_down → approved → one token; denial; expiry; a code is
 * decided once and exchanged once; the token is the approver's, marked as the agent's.
 */
import { describe, expect, it } from 'vitest';
import { createStore } from '@svc/core/store/index';
import { createDeviceFlow } from '@svc/core/services/device-flow';
import { createIdentityService } from '@svc/core/services/identity';
import { createJwtVerifier, createLocalIssuer, generateSigningKey } from '@svc/core/auth/index';
import { AppError } from '@svc/core/errors';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';

async function world() {
  // From the real now: the table's TTL reads the real clock.
  let now = Date.now();
  const clock = { now: () => new Date(now) };
  const store = createStore(new FileTable(), clock);
  const issuer = createLocalIssuer({ privateJwk: await generateSigningKey(), issuer: 'http://svc.test', audience: 'svc', clock });
  const identity = createIdentityService({ store, issuer, verifier: createJwtVerifier({ localIssuer: issuer, clock }) });
  const { session } = await identity.signUp({ email: 'person@example.com', password: 'correct horse battery' });
  const flow = createDeviceFlow({ store, identity, clock });
  return { flow, identity, userId: session.user.id, advance: (seconds: number) => (now += seconds * 1000) };
}

const codeOf = async (p: Promise<unknown>) => p.then(() => 'ok', (err) => (err instanceof AppError ? err.code : String(err)));

describe('device flow', () => {
  it('pending, too fast (slow_down adds 5 s), approved: one token, the approver\'s, marked as the agent\'s', async () => {
    const { flow, identity, userId, advance } = await world();
    const codes = await flow.start({ clientId: 'claude-code', scope: 'tests' });
    expect(codes).toMatchObject({ expires_in: 600, interval: 5, user_code: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/) });

    expect(await flow.poll(codes.device_code)).toMatchObject({ kind: 'error', error: 'authorization_pending' });
    advance(2);
    expect(await flow.poll(codes.device_code)).toMatchObject({ kind: 'error', error: 'slow_down', description: expect.stringContaining('10 seconds') });
    advance(6); // 6 s < the new 10 s interval
    expect(await flow.poll(codes.device_code)).toMatchObject({ error: 'slow_down' });
    advance(16);
    expect(await flow.poll(codes.device_code)).toMatchObject({ error: 'authorization_pending' });

    const seen = await flow.lookup(codes.user_code.toLowerCase().replace('-', ' '));
    expect(seen).toMatchObject({ client_id: 'claude-code', scope: 'tests', status: 'pending', user_code: codes.user_code });
    expect((await flow.decide(codes.user_code, userId, true)).status).toBe('approved');
    expect(await codeOf(flow.decide(codes.user_code, userId, false))).toBe('CONFLICT');

    expect(await flow.poll(codes.device_code, 'another-client')).toMatchObject({ error: 'invalid_grant' });
    const polled = await flow.poll(codes.device_code, 'claude-code');
    if (polled.kind !== 'token') throw new Error(`expected a token, got ${polled.error}`);
    const principal = await identity.authenticate(polled.session.access_token);
    expect(principal).toMatchObject({ kind: 'user', userId, agent: 'claude-code' });
    // Exchanged once; the user code is gone with it.
    expect(await flow.poll(codes.device_code)).toMatchObject({ error: 'invalid_grant' });
    expect(await codeOf(flow.lookup(codes.user_code))).toBe('NOT_FOUND');
    // A refreshed session stays the agent's.
    const refreshed = await identity.refresh(polled.session.refresh_token);
    expect(await identity.authenticate(refreshed.access_token)).toMatchObject({ agent: 'claude-code' });
  });

  it('an approved agent is listed to the person; revoking it ends its access token and its refresh token at once; its logout ends the grant', async () => {
    const { flow, identity, userId } = await world();
    const signIn = async (clientId: string) => {
      const codes = await flow.start({ clientId });
      await flow.decide(codes.user_code, userId, true);
      const polled = await flow.poll(codes.device_code);
      if (polled.kind !== 'token') throw new Error(polled.error);
      return polled.session;
    };
    const first = await signIn('claude-code');
    const second = await signIn('cursor');
    const agents = await identity.agentsOf(userId);
    expect(agents.map((a) => a.client_id)).toEqual(['cursor', 'claude-code']);
    expect(agents[1]).toMatchObject({ user_id: userId, last_refreshed_at: null });

    const renewed = await identity.refresh(first.refresh_token);
    expect((await identity.agentsOf(userId)).find((a) => a.client_id === 'claude-code')?.last_refreshed_at).toEqual(expect.any(String));
    await identity.revokeAgent(userId, agents[1].id);
    expect(await codeOf(identity.authenticate(renewed.access_token))).toBe('INVALID_TOKEN');
    expect(await codeOf(identity.refresh(renewed.refresh_token))).toBe('INVALID_TOKEN');
    expect(await codeOf(identity.revokeAgent(userId, agents[1].id))).toBe('NOT_FOUND');
    expect(await identity.authenticate(second.access_token)).toMatchObject({ agent: 'cursor' });

    await identity.logout(second.refresh_token);
    expect(await identity.agentsOf(userId)).toEqual([]);
    expect(await codeOf(identity.authenticate(second.access_token))).toBe('INVALID_TOKEN');
  });

  it('a denied sign-in answers access_denied; an unapproved one expires after 10 minutes', async () => {
    const { flow, userId, advance } = await world();
    const denied = await flow.start({ clientId: 'cursor' });
    await flow.decide(denied.user_code, userId, false);
    expect(await flow.poll(denied.device_code)).toMatchObject({ error: 'access_denied' });

    const late = await flow.start({ clientId: 'cursor' });
    advance(601);
    expect(await flow.poll(late.device_code)).toMatchObject({ error: 'expired_token' });
    expect(await codeOf(flow.lookup(late.user_code))).toBe('NOT_FOUND');
    expect(await codeOf(flow.decide(late.user_code, userId, true))).toBe('NOT_FOUND');
  });

  it('a malformed user code names the field; an unknown device code is invalid_grant', async () => {
    const { flow } = await world();
    const err = await flow.lookup('hello').catch((e: AppError) => e);
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('user_code') });
    expect(await codeOf(flow.lookup('BCDF-GHJK'))).toBe('NOT_FOUND');
    expect(await flow.poll('no-such-code')).toMatchObject({ kind: 'error', error: 'invalid_grant' });
  });
});
