import type { z } from 'zod';
import type { Role } from '../auth/roles.ts';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call a route: anyone ('public'), any signed-in caller with no organization
 * scope ('user'), or a member of the organization named by X-Organization-ID with at
 * least the given role.
 */
export type RouteAuth = 'public' | 'user' | Role;

export interface RouteResponse {
  description: string;
  /** JSON body schema; omit for empty bodies (204) or to use the standard error body (status ≥ 400). */
  schema?: z.ZodType;
  /** Response headers a client acts on (ETag, Retry-After …): name → what it carries. */
  headers?: Record<string, string>;
}

/** A request header a route reads (beyond authentication and X-Organization-ID). */
export interface RouteHeader {
  name: string;
  description: string;
  required?: boolean;
}

/** One HTTP route as data: enough to validate requests and to document it. */
export interface RouteSpec {
  /** Lower-case HTTP method (upper case is accepted too). */
  method: HttpMethod | Uppercase<HttpMethod>;
  /** Hono style (`/api/v1/projects/:id`) or OpenAPI style (`/api/v1/projects/{id}`). */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: RouteAuth;
  /** false: dashboard-only — API keys are refused (spec Authentication rule 7). Default true. */
  apiKeys?: boolean;
  /** Defaults to one derived from method and path. */
  operationId?: string;
  deprecated?: boolean;
  body?: z.ZodType;
  /** The handler reads the body itself (e.g. it also takes multipart); `body` documents the JSON form. */
  readsOwnBody?: boolean;
  /** The body's media type, when it is not JSON (a Slack slash command is form-encoded); `body` documents its fields. */
  bodyMediaType?: string;
  query?: z.ZodType;
  params?: z.ZodType;
  /** Request headers the route reads, documented as header parameters. */
  headers?: RouteHeader[];
  responses: Record<number, RouteResponse>;
}

const HONO_PARAM = /:([A-Za-z_][A-Za-z0-9_]*)(?:\{[^}]*\})?\??/g;

/** `/a/:id/b/{x}` → `/a/{id}/b/{x}` (Hono regex constraints and optional markers are dropped). */
export function toOpenApiPath(path: string): string {
  return path.replace(HONO_PARAM, (_m, name: string) => `{${name}}`);
}

/**
 * A Hono-style path with each parameter replaced by its value (URL-encoded); a parameter
 * whose value is undefined or empty is left empty and reported to `missing`.
 */
export function fillPathParams(path: string, valueOf: (name: string) => string | undefined, missing?: (name: string) => void): string {
  return path.replace(HONO_PARAM, (_m, name: string) => {
    const value = valueOf(name);
    if (value === undefined || value === '') {
      missing?.(name);
      return '';
    }
    return encodeURIComponent(value);
  });
}

/** Names of the path parameters of a Hono- or OpenAPI-style path, in order. */
export function pathParamNames(path: string): string[] {
  return [...toOpenApiPath(path).matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
}

/**
 * Declare a route. Returns it unchanged (routes are data); throws at definition time
 * when the params schema names a key the path does not have, or vice versa.
 */
export function defineRoute<const R extends RouteSpec>(route: R): R {
  const inPath = pathParamNames(route.path);
  const shape = route.params ? objectKeys(route.params) : undefined;
  if (shape) {
    const missing = inPath.filter((p) => !shape.includes(p));
    const extra = shape.filter((k) => !inPath.includes(k));
    if (missing.length || extra.length) {
      throw new Error(
        `route ${route.method.toUpperCase()} ${route.path}: params schema and path disagree` +
          (missing.length ? `; not in params: ${missing.join(', ')}` : '') +
          (extra.length ? `; not in path: ${extra.join(', ')}` : ''),
      );
    }
  }
  if (Object.keys(route.responses).length === 0) throw new Error(`route ${route.method.toUpperCase()} ${route.path}: no responses`);
  return route;
}

/** Keys of an object schema (looking through a preprocess/pipe), or undefined. */
export function objectKeys(schema: z.ZodType): string[] | undefined {
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> } })._zod.def;
  if (def.type === 'object') return Object.keys(def.shape as object);
  if (def.type === 'pipe') return objectKeys(def.out as z.ZodType) ?? objectKeys(def.in as z.ZodType);
  return undefined;
}
