import type { Context } from 'hono';
import { setCookie, deleteCookie } from 'hono/cookie';
import type { Session } from '@svc/core/services/identity';

export const SESSION_COOKIE = 'svc_session';
export const REFRESH_COOKIE = 'svc_refresh';

/**
 * The access token rides in an HttpOnly cookie for browsers; SameSite=Lax keeps it off
 * cross-site POSTs, and a change it would sign in must come from svc's own pages
 * (middleware/same-origin.ts: Sec-Fetch-Site, else Origin), which also covers sibling
 * subdomains (same-site) and body-less POSTs that need no CORS preflight.
 */
export function setSessionCookies(c: Context, session: Session, secure: boolean, refreshTtlSeconds: number) {
  const accessMaxAge = Math.max(1, Math.floor((Date.parse(session.expires_at) - Date.now()) / 1000));
  setCookie(c, SESSION_COOKIE, session.access_token, { httpOnly: true, sameSite: 'Lax', path: '/', secure, maxAge: accessMaxAge });
  setCookie(c, REFRESH_COOKIE, session.refresh_token, { httpOnly: true, sameSite: 'Strict', path: '/api/auth', secure, maxAge: refreshTtlSeconds });
}

export function clearSessionCookies(c: Context) {
  deleteCookie(c, SESSION_COOKIE, { path: '/' });
  deleteCookie(c, REFRESH_COOKIE, { path: '/api/auth' });
}
