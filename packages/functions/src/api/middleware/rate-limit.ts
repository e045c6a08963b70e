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

/**
 * Failed sign-ins per account (the email asked for, known or not, so it tells nothing),
 * on top of the per-IP budget: an attacker with many addresses still gets `failures`
 * guesses at one account per `windowSeconds`, refilled continuously. While it is spent
 * every sign-in to that email is refused, the right password too (else guessing would go
 * on); a successful sign-in clears it. Per process, as the buckets above.
 */
export function loginFailureLimit(opts: { failures: number; windowSeconds: number; now?: () => number }) {
  const buckets = new Map<string, Bucket>();
  const now = opts.now ?? Date.now;
  const perMs = opts.failures / (opts.windowSeconds * 1000);
  const MAX_BUCKETS = 100_000;
  const keyOf = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);
  const current = (key: string): Bucket | undefined => {
    const b = buckets.get(key);
    if (!b) return undefined;
    const t = now();
    b.tokens = Math.min(opts.failures, b.tokens + (t - b.updatedMs) * perMs);
    b.updatedMs = t;
    if (b.tokens >= opts.failures) buckets.delete(key); // full again: nothing to remember
    return b;
  };
  return {
    /** Refuses (429 RATE_LIMITED, with the seconds to wait) while the account's failures are spent. */
    check(email: string): void {
      const b = current(keyOf(email));
      if (b && b.tokens < 1) {
        const wait = Math.ceil((1 - b.tokens) / perMs / 1000);
        throw new AppError('RATE_LIMITED', `too many failed sign-ins for this email; retry in ${wait}s`, { retry_after: wait });
      }
    },
    failed(email: string): void {
      const key = keyOf(email);
      const b = current(key) ?? { tokens: opts.failures, updatedMs: now() };
      if (!buckets.has(key)) {
        if (buckets.size >= MAX_BUCKETS) buckets.clear();
        buckets.set(key, b);
      }
      b.tokens -= 1;
    },
    succeeded(email: string): void {
      buckets.delete(keyOf(email));
    },
  };
}
