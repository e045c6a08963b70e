import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { AppError } from '@svc/core/errors';
import type { ApiEnv } from '../env.ts';
import { REFRESH_COOKIE, SESSION_COOKIE } from '../cookies.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery: a browser attaches svc's cookies to requests other pages
 * make (SameSite=Lax stops cross-site POSTs, not ones from a sibling subdomain; and a
 * body-less POST needs no CORS preflight). So a state-changing request that a cookie
 * would authenticate — no Authorization or X-API-Key header, and a session or refresh
 * cookie — must come from svc's own pages:
 *
 * - an Origin svc trusts (its own, SVC_PUBLIC_URL's, or one listed in SVC_CORS_ORIGINS,
 *   which may call with credentials) passes;
 * - else Sec-Fetch-Site, when the browser sends it, decides: same-origin (or none, the
 *   person's own navigation) passes, same-site and cross-site are refused;
 * - else an Origin (an older browser) that is not trusted is refused;
 * - a request with neither header is no browser's cross-site request (every browser
 *   sends Origin on a cross-site POST), and passes: scripts holding a cookie are theirs.
 *
 * API keys and bearer tokens are never sent by a browser on its own, so those requests
 * are not checked.
 */
export function sameOriginForCookies(trustedOrigins: (c: Context<ApiEnv>) => string[]): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method) || c.req.header('authorization') || c.req.header('x-api-key')) return next();
    if (!getCookie(c, SESSION_COOKIE) && !getCookie(c, REFRESH_COOKIE)) return next();
    const origin = c.req.header('origin');
    const trusted = trustedOrigins(c);
    if (origin && trusted.includes(origin.toLowerCase())) return next();
    const site = c.req.header('sec-fetch-site')?.toLowerCase();
    if (site === 'same-origin' || site === 'none') return next();
    if (!site && !origin) return next();
    throw new AppError(
      'FORBIDDEN',
      `cross-site request refused: a ${c.req.method} signed in by the session cookie must come from svc's own pages (${site ? `Sec-Fetch-Site: ${site}` : `Origin: ${origin}`}); other clients send an API key or a bearer token`,
      { reason: 'CROSS_SITE_REQUEST' },
    );
  };
}

/** The origins a cookie-authenticated request may come from: this server's, the public URL's, and the CORS list's. */
export function ownOrigins(c: Context<ApiEnv>, publicUrl: string | undefined, corsOrigins: readonly string[]): string[] {
  return [c.req.url, ...(publicUrl ? [publicUrl] : []), ...corsOrigins].map(originOf).filter((o): o is string => !!o);
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin.toLowerCase();
  } catch {
    return undefined;
  }
}
