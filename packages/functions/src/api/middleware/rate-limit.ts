import type { MiddlewareHandler } from 'hono';
import { createHash } from 'node:crypto';
import { AppError } from '@svc/core/errors';
import { errorResponse } from '../errors.ts';
import type { ApiEnv } from '../env.ts';

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/**
 * Token buckets per caller (a hash of the presented credential, else the client IP),
 * refilled continuously. Sign-up, login and refresh get a much smaller budget per IP
 * to slow password guessing. State is per process: on Lambda each instance limits on
 * its own, which bounds abuse without a shared store (recorded in docs/decisions.md).
 */
export function rateLimit(opts: { perMinute: number; authPerMinute: number; now?: () => number }): MiddlewareHandler<ApiEnv> {
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
    const ip = clientIp(c.req.raw.headers, c.env);
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

function clientIp(headers: Headers, env: unknown): string {
  // Behind API Gateway / Lambda URLs the platform sets x-forwarded-for; locally, the socket address.
  const fwd = headers.get('x-forwarded-for');
  if (fwd) return fwd.split(',')[0].trim();
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'unknown';
}
