import { timingSafeEqual } from 'node:crypto';
import type { Hono } from 'hono';
import { AppError } from '@svc/core/errors';
import { PROMETHEUS_CONTENT_TYPE } from '@svc/core/telemetry/metrics';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';

/**
 * GET /metrics in the Prometheus text format (spec "Operational telemetry", scraped
 * every 30 s). Outside the versioned API and organization scopes: a scraper is
 * infrastructure, not a user. Optionally guarded by a static bearer token.
 */
export function metricsRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  mountRoute(app, deps, registry, {
    method: 'get', path: '/metrics', summary: 'Prometheus metrics (text exposition format 0.0.4)', tags: ['health'], auth: 'public',
    responses: { 200: { description: 'metrics in Prometheus text format' }, 401: { description: 'metrics token required' } },
  }, async ({ c }) => {
    if (deps.metricsToken && !tokenMatches(c.req.header('authorization'), deps.metricsToken)) {
      throw new AppError('UNAUTHENTICATED', 'metrics require the configured bearer token');
    }
    const body = await deps.metrics.render();
    return c.body(body, 200, { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' });
  });
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const presented = /^Bearer\s+(.+)$/i.exec(header?.trim() ?? '')?.[1] ?? '';
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
