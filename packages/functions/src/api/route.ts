import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import { bodyLimit } from 'hono/body-limit';
import { getCookie } from 'hono/cookie';
import { AppError } from '@svc/core/errors';
import { parseInput } from '@svc/core/contracts/parse';
import { parseJsonBody } from '@svc/core/contracts/json-body';
import { roleAtLeast, type Role } from '@svc/core/auth/index';
import type { Principal, OrganizationAccess } from '@svc/core/services/identity';
import type { RouteHeader, RouteResponse } from '@svc/core/openapi/route';
import type { AppDeps } from './deps.ts';
import type { ApiEnv } from './env.ts';
import { SESSION_COOKIE } from './cookies.ts';

/**
 * Who may call a route: anyone ('public'), any signed-in caller with no organization
 * scope ('user'), or a member of the organization named by X-Organization-ID with at
 * least the given role.
 */
export type RouteAccess = 'public' | 'user' | Role;

export interface RouteDef {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Hono-style path, e.g. /api/v1/projects/:id */
  path: string;
  summary: string;
  tags: string[];
  auth: RouteAccess;
  /** false: dashboard-only (spec rule 7) — API keys and agents' device-flow tokens are refused with 403. */
  apiKeys?: boolean;
  body?: z.ZodType;
  /** The handler reads the body itself (it also takes multipart); `body` documents the JSON form. */
  readsOwnBody?: boolean;
  /** The body's media type in the OpenAPI document when it is not JSON (with readsOwnBody). */
  bodyMediaType?: string;
  /** A smaller body limit than the server's for this route (the server's still applies when lower). */
  maxBodyBytes?: number;
  query?: z.ZodType;
  params?: z.ZodType;
  /** Request headers the route reads, documented in OpenAPI (If-Match …). */
  headers?: RouteHeader[];
  responses: Record<number, RouteResponse>;
}

export interface RouteInput<D extends RouteDef> {
  c: Context<ApiEnv>;
  body: D['body'] extends z.ZodType ? z.output<D['body']> : undefined;
  query: D['query'] extends z.ZodType ? z.output<D['query']> : undefined;
  params: D['params'] extends z.ZodType ? z.output<D['params']> : Record<string, string>;
  principal: D['auth'] extends 'public' ? Principal | undefined : Principal;
  access: D['auth'] extends 'public' | 'user' ? undefined : OrganizationAccess;
}

/** Mounts one route with the per-route part of the middleware chain. */
export function mountRoute<D extends RouteDef>(
  app: Hono<ApiEnv>,
  deps: AppDeps,
  registry: RouteDef[],
  def: D,
  handler: (input: RouteInput<D>) => Promise<Response>,
) {
  registry.push(def);
  const maxSize = Math.min(deps.config.maxBodyBytes, def.maxBodyBytes ?? Infinity);
  const limit = bodyLimit({
    maxSize,
    onError: () => {
      throw new AppError('PAYLOAD_TOO_LARGE', `request body exceeds ${maxSize} bytes`);
    },
  });
  app[def.method](def.path, authenticate(deps, def), limit, async (c) => {
    const params = def.params ? parseInput(def.params, lowerCaseIds(c.req.param()), 'params') : c.req.param();
    const query = def.query ? parseInput(def.query, lowerCaseIds(c.req.query()), 'query') : undefined;
    const body = def.body && !def.readsOwnBody ? parseInput(def.body, lowerCaseIdFields(await readJson(c)), 'body') : undefined;
    return handler({ c, body, query, params, principal: c.get('principal'), access: c.get('access') } as RouteInput<D>);
  });
}

/** Authentication, then role, then organization scope (spec: Authentication rules 1–3). */
function authenticate(deps: AppDeps, def: RouteDef) {
  return async (c: Context<ApiEnv>, next: () => Promise<void>) => {
    if (def.auth === 'public') {
      await next();
      return;
    }
    const credential = presentedCredential(c);
    if (!credential) throw new AppError('UNAUTHENTICATED', 'authentication required: send a bearer token, an API key or a session cookie');
    const principal = await deps.identity.authenticate(credential);
    c.set('principal', principal);
    // Agents (an API key, or a person's token an agent got through the device flow) never reach these (spec rule 7).
    if (def.apiKeys === false && (principal.kind === 'apiKey' || principal.agent)) {
      throw new AppError('FORBIDDEN', `this endpoint is available to dashboard users only, not to ${principal.kind === 'apiKey' ? 'API keys' : 'agent tokens'}`);
    }
    if (def.auth !== 'user') {
      const access = await deps.identity.access(principal, c.req.header('x-organization-id')?.trim() || undefined);
      if (!roleAtLeast(access.role, def.auth)) {
        throw new AppError('INSUFFICIENT_ROLE', `requires role ${def.auth}; you have ${access.role}`, { required: def.auth, actual: access.role });
      }
      c.set('access', access);
    }
    await next();
  };
}

export function presentedCredential(c: Context<ApiEnv>): string | undefined {
  const auth = c.req.header('authorization');
  if (auth) {
    const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (!m) throw new AppError('UNAUTHENTICATED', 'Authorization header must be "Bearer <token>"');
    return m[1].trim();
  }
  return c.req.header('x-api-key')?.trim() || getCookie(c, SESSION_COOKIE) || undefined;
}

async function readJson(c: Context<ApiEnv>): Promise<unknown> {
  const text = await c.req.text();
  const type = c.req.header('content-type') ?? '';
  // No body and no type is {}; a body of another type is refused, empty or not (a form post is never a JSON call).
  if (text.trim() === '' && !type) return {};
  if (!/^application\/([\w.+-]*\+)?json\b/i.test(type)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `expected Content-Type application/json, got ${type || 'none'}`);
  }
  return text.trim() === '' ? {} : parseJsonBody(text);
}

const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const lowerIfUuid = (v: unknown) => (typeof v === 'string' && UUID_TEXT.test(v) ? v.toLowerCase() : v);

/**
 * svc's ids are UUIDs, stored lower-case; a UUID is case-insensitive, so an id written in
 * upper case (a client that formats them so) names the same thing, not a 404. Path and
 * query values that are UUIDs are lower-cased; in a body only the top-level id fields
 * (`project_id`, `test_ids`, …), never a test's content, where a value is the app's own.
 */
function lowerCaseIds(values: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, lowerIfUuid(v)]));
}

function lowerCaseIdFields(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, k === 'id' || k.endsWith('_id') ? lowerIfUuid(v) : k.endsWith('_ids') && Array.isArray(v) ? v.map(lowerIfUuid) : v]));
}
