import type { MiddlewareHandler } from 'hono';
import { createHash } from 'node:crypto';
import { AppError } from '@svc/core/errors';
import { errorResponse } from '../errors.ts';
import type { ApiEnv } from '../env.ts';
import { clientIp } from '../client-ip.ts';

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/**
 * Token buckets per caller (a hash of the presented credential, else the client IP),
 * refilled continuously. Sign-up, login and refresh get a much smaller budget per IP
 * to slow password guessing. State is per process: on Lambda each instance limits on
 * its own, which bounds abuse without a shared store (recorded in docs/decisions.md).
 * The client IP is the peer's unless proxies are trusted (client-ip.ts): a client's own
 * X-Forwarded-For never picks its bucket.
 */
export function rateLimit(opts: { perMinute: number; authPerMinute: number; trustedProxyHops: number; now?: () => number }): MiddlewareHandler<ApiEnv> {
  const buckets = new Map<string, Bucket>();
  const now = opts.now ?? Date.now;
  const MAX_BUCKETS = 100_000;

  function take(key: string, perMinute: number): number {
    const t = now();
    let b = buckets.get(key);
    if (!b) {
      if (buckets.size >= MAX_BUCKETS) buckets.clear(); // bounded memory under a flood of keys
      b = { tokens: perMinute, updatedMs: t };
      buckets.set(key, b);
    }
    b.tokens = Math.min(perMinute, b.tokens + ((t - b.updatedMs) / 60_000) * perMinute);
    b.updatedMs = t;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - b.tokens) / perMinute) * 60); // seconds until one token
  }

  return async (c, next) => {
    const ip = clientIp(c.req.raw.headers, c.env, opts.trustedProxyHops);
    const isAuthFlow = /^\/api\/auth\/(sign-?up|login|refresh|device)/.test(c.req.path);
    const credential = c.req.header('authorization') ?? c.req.header('x-api-key') ?? '';
    const key = isAuthFlow ? `auth:${ip}` : credential ? `cred:${createHash('sha256').update(credential).digest('hex').slice(0, 32)}` : `ip:${ip}`;
    const wait = take(key, isAuthFlow ? opts.authPerMinute : opts.perMinute);
    if (wait > 0) {
      return errorResponse(c, new AppError('RATE_LIMITED', `too many requests; retry in ${wait}s`), { 'Retry-After': String(wait) });
    }
    await next();
  };
}
