import { z } from 'zod';
import type { Context, Hono } from 'hono';
import { AppError } from '@svc/core/errors';
import { findTooDeep } from '@svc/core/contracts/json-body';
import { createDeviceFlow } from '@svc/core/services/device-flow';
import { DEVICE_CODE_GRANT } from '@svc/core/auth/index';
import { DeviceRequestSchema as DeviceRequest } from '@svc/core/contracts/auth';
import type { Session } from '@svc/core/services/identity';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';

const OAUTH_MAX_BODY_BYTES = 16 * 1024;
/** OAuth's parameters are strings: a JSON body is one flat object. */
const OAUTH_MAX_JSON_DEPTH = 2;

const DeviceCodeForm = z.object({
  client_id: z.string().describe('What the agent calls itself, shown to the person who approves it (1–100 printable characters)'),
  scope: z.string().optional().describe('Accepted and shown; the token acts with the person\'s own role whatever it says'),
});
const DeviceCodeAnswer = z.object({
  device_code: z.string(), user_code: z.string(), verification_uri: z.string(), verification_uri_complete: z.string(),
  expires_in: z.number().int(), interval: z.number().int(),
});
const TokenForm = z.object({
  grant_type: z.string().describe(`${DEVICE_CODE_GRANT} or refresh_token`),
  device_code: z.string().optional(),
  client_id: z.string().optional(),
  refresh_token: z.string().optional(),
});
const TokenAnswer = z.object({
  access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int(), refresh_token: z.string(),
});
const OAuthError = z.object({ error: z.string(), error_description: z.string() });
const UserCodeParams = z.object({ user_code: z.string().max(32) });
const AgentGrantSchema = z.object({
  id: z.string(), client_id: z.string().describe('The name the agent gave'), created_at: z.string().describe('When the person approved it'),
  last_refreshed_at: z.string().nullable().describe('When the agent last renewed its token'),
});

/** Codes and tokens are never cached (RFC 6749 §5.1, RFC 8628 §3.2). */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** RFC 6749 §5.2's error body (not svc's own): OAuth clients read `error`. */
function oauthError(c: Context<ApiEnv>, error: string, description: string, status: 400 | 401 = 400) {
  return c.json({ error, error_description: description }, status, NO_STORE);
}

class OAuthRequestError extends Error {
  constructor(readonly error: string, message: string) {
    super(message);
  }
}

/** OAuth clients send forms (RFC 6749 §4.1.3, RFC 8628 §3.1); JSON is accepted too. */
async function oauthParams(c: Context<ApiEnv>): Promise<Record<string, string>> {
  const type = c.req.header('content-type') ?? '';
  const text = await c.req.text();
  if (/^application\/x-www-form-urlencoded\b/i.test(type)) return Object.fromEntries(new URLSearchParams(text));
  if (/^application\/([\w.+-]*\+)?json\b/i.test(type)) {
    // Nothing an OAuth client sends nests: a deep body is refused before it is parsed.
    if (findTooDeep(text, OAUTH_MAX_JSON_DEPTH)) throw new OAuthRequestError('invalid_request', `the body nests deeper than ${OAUTH_MAX_JSON_DEPTH} levels: send flat string parameters`);
    let parsed: unknown;
    try {
      parsed = text.trim() ? JSON.parse(text) : {};
    } catch {
      throw new OAuthRequestError('invalid_request', 'the body is not valid JSON');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new OAuthRequestError('invalid_request', 'the body must be a JSON object');
    return Object.fromEntries(Object.entries(parsed).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
  }
  throw new OAuthRequestError('invalid_request', `send application/x-www-form-urlencoded (or JSON), not ${type || 'no Content-Type'}`);
}

function clientIdOf(params: Record<string, string>): string {
  const clientId = params.client_id?.trim();
  if (!clientId) throw new OAuthRequestError('invalid_request', 'client_id is required: name the agent, e.g. client_id=claude-code');
  if (clientId.length > 100 || /[\u0000-\u001f\u007f]/.test(clientId)) throw new OAuthRequestError('invalid_request', 'client_id must be 1–100 printable characters');
  return clientId;
}

const tokenAnswer = (session: Session, now: Date) => ({
  access_token: session.access_token,
  token_type: 'Bearer' as const,
  expires_in: Math.max(0, Math.round((Date.parse(session.expires_at) - now.getTime()) / 1000)),
  refresh_token: session.refresh_token,
});

/**
 * Sign-in for agents: the OAuth 2.0 device authorization grant (RFC 8628) and its
 * server metadata (RFC 8414). The agent's two endpoints speak OAuth's wire format; the
 * person's (look up and decide a user code) are svc API routes for dashboard users.
 */
export function oauthRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const flow = createDeviceFlow({ store: deps.store, identity: deps.identity, clock: deps.clock });
  const originOf = (c: Context<ApiEnv>) => (deps.publicUrl ?? new URL(c.req.url).origin).replace(/\/+$/, '');
  const guarded = (handler: (c: Context<ApiEnv>) => Promise<Response>) => async ({ c }: { c: Context<ApiEnv> }) => {
    try {
      return await handler(c);
    } catch (err) {
      if (err instanceof OAuthRequestError) return oauthError(c, err.error, err.message);
      throw err;
    }
  };

  mountRoute(app, deps, registry, {
    method: 'get', path: '/.well-known/oauth-authorization-server', summary: 'OAuth 2.0 authorization server metadata (RFC 8414): where agents sign in with the device flow', tags: ['auth'], auth: 'public',
    responses: { 200: { description: 'metadata', schema: z.record(z.string(), z.unknown()) } },
  }, async ({ c }) => {
    const origin = originOf(c);
    return c.json({
      issuer: origin,
      device_authorization_endpoint: `${origin}/oauth/device/code`,
      token_endpoint: `${origin}/oauth/token`,
      jwks_uri: `${origin}/.well-known/jwks.json`,
      grant_types_supported: [DEVICE_CODE_GRANT, 'refresh_token'],
      response_types_supported: [],
      token_endpoint_auth_methods_supported: ['none'],
    });
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/oauth/device/code', summary: 'An agent starts signing in (RFC 8628 §3.1): a device code to poll with and a user code for the person to approve at verification_uri', tags: ['auth'], auth: 'public',
    readsOwnBody: true, bodyMediaType: 'application/x-www-form-urlencoded', body: DeviceCodeForm, maxBodyBytes: OAUTH_MAX_BODY_BYTES,
    responses: {
      200: { description: `the codes; the user code works for ${flow.codeTtlSeconds} seconds`, schema: DeviceCodeAnswer },
      400: { description: 'invalid_request (RFC 6749 error body): no client_id, or not a form or JSON', schema: OAuthError },
    },
  }, guarded(async (c) => {
    const params = await oauthParams(c);
    const scope = params.scope?.trim().slice(0, 200) || undefined;
    const codes = await flow.start({ clientId: clientIdOf(params), scope });
    const verification = `${originOf(c)}/device`;
    return c.json({
      device_code: codes.device_code,
      user_code: codes.user_code,
      verification_uri: verification,
      verification_uri_complete: `${verification}?user_code=${encodeURIComponent(codes.user_code)}`,
      expires_in: codes.expires_in,
      interval: codes.interval,
    }, 200, NO_STORE);
  }));

  mountRoute(app, deps, registry, {
    method: 'post', path: '/oauth/token', summary: `An agent's token: by device code once the person approved (grant_type ${DEVICE_CODE_GRANT}), or by refresh token`, tags: ['auth'], auth: 'public',
    readsOwnBody: true, bodyMediaType: 'application/x-www-form-urlencoded', body: TokenForm, maxBodyBytes: OAUTH_MAX_BODY_BYTES,
    responses: {
      200: { description: 'an access token that acts as the person who approved (marked as the agent\'s), and a refresh token (single use, rotated)', schema: TokenAnswer },
      400: { description: 'RFC 6749/8628 error body: authorization_pending, slow_down, access_denied, expired_token, invalid_grant, invalid_request or unsupported_grant_type', schema: OAuthError },
    },
  }, guarded(async (c) => {
    const params = await oauthParams(c);
    if (params.grant_type === DEVICE_CODE_GRANT) {
      if (!params.device_code) throw new OAuthRequestError('invalid_request', 'device_code is required');
      const polled = await flow.poll(params.device_code, params.client_id?.trim() || undefined);
      if (polled.kind === 'error') return oauthError(c, polled.error, polled.description);
      return c.json(tokenAnswer(polled.session, deps.clock.now()), 200, NO_STORE);
    }
    if (params.grant_type === 'refresh_token') {
      if (!params.refresh_token) throw new OAuthRequestError('invalid_request', 'refresh_token is required');
      try {
        const session = await deps.identity.refresh(params.refresh_token);
        return c.json(tokenAnswer(session, deps.clock.now()), 200, NO_STORE);
      } catch (err) {
        if (err instanceof AppError && err.code === 'INVALID_TOKEN') return oauthError(c, 'invalid_grant', err.message);
        throw err;
      }
    }
    if (!params.grant_type) throw new OAuthRequestError('invalid_request', 'grant_type is required');
    return oauthError(c, 'unsupported_grant_type', `grant_type must be ${DEVICE_CODE_GRANT} or refresh_token`);
  }));

  // The person's side: dashboard users only (an agent must never approve its own sign-in).
  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/auth/device/:user_code', summary: 'What is asking to sign in with a user code: the agent\'s name, scope and expiry', tags: ['auth'], auth: 'user', apiKeys: false, params: UserCodeParams,
    responses: {
      200: { description: 'the pending (or decided) sign-in', schema: DeviceRequest },
      400: { description: 'user_code is not 8 letters of the code alphabet' },
      404: { description: 'no such user code, or it expired' },
    },
  }, async ({ c, params }) => c.json(await flow.lookup(params.user_code)));

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/auth/agents', summary: 'The agents signed in as you (approved device sign-ins that can still renew their token)', tags: ['auth'], auth: 'user', apiKeys: false,
    responses: { 200: { description: 'newest first', schema: z.object({ items: z.array(AgentGrantSchema) }) } },
  }, async ({ c, principal }) => {
    const grants = await deps.identity.agentsOf(principal.userId);
    return c.json({ items: grants.map(({ id, client_id, created_at, last_refreshed_at }) => ({ id, client_id, created_at, last_refreshed_at })) });
  });

  mountRoute(app, deps, registry, {
    method: 'delete', path: '/api/auth/agents/:id', summary: 'Sign an agent out: its access and refresh tokens stop working at once', tags: ['auth'], auth: 'user', apiKeys: false, params: z.object({ id: z.string().max(64) }),
    responses: { 204: { description: 'signed out' }, 404: { description: 'no such agent sign-in of yours' } },
  }, async ({ c, params, principal }) => {
    await deps.identity.revokeAgent(principal.userId, params.id);
    deps.logger.info('agent sign-in revoked', { grant_id: params.id, user_id: principal.userId });
    c.set('audit', { action: 'agent.sign_out', resource: `agent_grant:${params.id}`, organizationIds: await organizationsOf(deps, principal.userId) });
    return c.body(null, 204);
  });

  for (const [verb, approve] of [['approve', true], ['deny', false]] as const) {
    mountRoute(app, deps, registry, {
      method: 'post', path: `/api/auth/device/:user_code/${verb}`, summary: approve ? 'Let the agent act as you: its next poll gets a token with your role in your organizations' : 'Refuse the agent: its next poll hears access_denied', tags: ['auth'], auth: 'user', apiKeys: false, params: UserCodeParams,
      responses: {
        200: { description: 'decided', schema: DeviceRequest },
        400: { description: 'user_code is not 8 letters of the code alphabet' },
        404: { description: 'no such user code, or it expired' },
        409: { description: 'already approved or denied' },
      },
    }, async ({ c, params, principal }) => {
      const decided = await flow.decide(params.user_code, principal.userId, approve);
      deps.logger.info(`device sign-in ${decided.status}`, { client_id: decided.client_id, user_id: principal.userId });
      // The agent will act with the person's role in each of their organizations: each one's admins see it.
      c.set('audit', { action: `agent.sign_in.${verb}`, resource: `agent:${decided.client_id}`, metadata: { client_id: decided.client_id, scope: decided.scope }, organizationIds: await organizationsOf(deps, principal.userId) });
      return c.json(decided);
    });
  }
}

/** The organizations a person is an active member of: where an agent signed in as them acts. */
async function organizationsOf(deps: AppDeps, userId: string): Promise<string[]> {
  return (await deps.store.members.listForUser(userId)).map((m) => m.organization_id);
}
