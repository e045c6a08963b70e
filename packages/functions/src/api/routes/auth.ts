import { z } from 'zod';
import type { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { AppError } from '@svc/core/errors';
import { SignUpInput, LoginInput, RefreshInput, AuthSessionSchema } from '@svc/core/contracts/auth';
import { OrganizationSchema } from '@svc/core/contracts/organization';
import { passwordPolicyIssues } from '@svc/core/auth/index';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { setSessionCookies, clearSessionCookies, REFRESH_COOKIE } from '../cookies.ts';
import { errorResponse } from '../errors.ts';
import { loginFailureLimit } from '@svc/core/auth/login-failures';

/** The window SVC_LOGIN_FAILURE_LIMIT counts failed sign-ins per email over. */
export const LOGIN_FAILURE_WINDOW_SECONDS = 15 * 60;

/** The built-in issuer's sign-up / login / refresh / logout, and its public keys. */
export function authRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const secure = deps.config.secureCookies;
  const refreshTtl = deps.identity.refreshTtlSeconds;
  // Guesses at one account from many addresses: the per-IP budget alone does not stop them.
  const failures = loginFailureLimit({ table: deps.store.table, failures: deps.config.loginFailuresPerEmail, windowSeconds: LOGIN_FAILURE_WINDOW_SECONDS });

  for (const path of ['/api/auth/signup', '/api/auth/sign-up']) {
    mountRoute(app, deps, registry, {
      method: 'post', path, summary: 'Create an account and its organization', tags: ['auth'], auth: 'public', body: SignUpInput,
      responses: { 201: { description: 'signed up', schema: AuthSessionSchema.extend({ organization: OrganizationSchema }) }, 409: { description: 'email taken' } },
    }, async ({ c, body }) => {
      const issues = passwordPolicyIssues(body.password);
      if (issues.length) throw new AppError('VALIDATION_FAILED', `password: ${issues.join('; ')}`, { issues: issues.map((message) => ({ path: 'password', message })) });
      const { session, organization, membership } = await deps.identity.signUp(body);
      setSessionCookies(c, session, secure, refreshTtl);
      c.set('audit', { action: 'user.signup', resource: `organization:${organization.id}`, organizationId: organization.id, userId: membership.user_id });
      return c.json({ ...session, organization }, 201);
    });
  }

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/auth/login', summary: 'Sign in with email and password', tags: ['auth'], auth: 'public', body: LoginInput,
    responses: { 200: { description: 'signed in', schema: AuthSessionSchema }, 401: { description: 'wrong email or password' }, 429: { description: 'too many failed sign-ins for this email (or from this address); Retry-After says when to try again' } },
  }, async ({ c, body }) => {
    try {
      await failures.check(body.email);
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'RATE_LIMITED')) throw err;
      const wait = (err.details as { retry_after: number }).retry_after;
      return errorResponse(c, err, { 'Retry-After': String(wait) });
    }
    let session;
    try {
      session = await deps.identity.login(body);
    } catch (err) {
      if (err instanceof AppError && err.code === 'INVALID_CREDENTIALS') await failures.failed(body.email);
      throw err;
    }
    await failures.succeeded(body.email);
    setSessionCookies(c, session, secure, refreshTtl);
    return c.json(session);
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/auth/refresh', summary: 'Exchange a refresh token (body or cookie) for a new session', tags: ['auth'], auth: 'public', body: RefreshInput,
    responses: { 200: { description: 'refreshed', schema: AuthSessionSchema }, 401: { description: 'invalid refresh token' } },
  }, async ({ c, body }) => {
    const token = body.refresh_token ?? getCookie(c, REFRESH_COOKIE);
    if (!token) throw new AppError('UNAUTHENTICATED', 'no refresh token in body or cookie');
    const session = await deps.identity.refresh(token);
    setSessionCookies(c, session, secure, refreshTtl);
    return c.json(session);
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/auth/logout', summary: 'Sign out: revoke the refresh token and clear cookies', tags: ['auth'], auth: 'public', body: RefreshInput,
    responses: { 204: { description: 'signed out' } },
  }, async ({ c, body }) => {
    await deps.identity.logout(body.refresh_token ?? getCookie(c, REFRESH_COOKIE));
    clearSessionCookies(c);
    return c.body(null, 204);
  });

  for (const path of ['/api/auth/jwks', '/.well-known/jwks.json']) {
    mountRoute(app, deps, registry, {
      method: 'get', path, summary: 'Public keys of the built-in token issuer', tags: ['auth'], auth: 'public',
      responses: { 200: { description: 'JWKS', schema: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }) } },
    }, async ({ c }) => c.json(deps.issuer.publicJwks()));
  }
}
