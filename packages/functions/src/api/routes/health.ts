import { z } from 'zod';
import type { Hono } from 'hono';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';

const ComponentHealth = z.object({
  status: z.enum(['ok', 'degraded', 'down', 'not_configured']),
  version: z.string().optional(),
  nodes: z.number().int().optional(),
  detail: z.string().optional(),
});

/** Health: liveness, readiness (the store answers) and per-component data-layer status. */
export function healthRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  mountRoute(app, deps, registry, {
    method: 'get', path: '/health', summary: 'Liveness', tags: ['health'], auth: 'public',
    responses: { 200: { description: 'alive', schema: z.object({ status: z.string(), version: z.string() }) } },
  }, async ({ c }) => c.json({ status: 'ok', version: deps.config.version }));

  mountRoute(app, deps, registry, {
    method: 'get', path: '/health/ready', summary: 'Readiness: the store answers', tags: ['health'], auth: 'public',
    responses: { 200: { description: 'ready', schema: z.object({ ready: z.boolean() }) }, 503: { description: 'not ready' } },
  }, async ({ c }) => {
    const db = await deps.store.table.health().catch(() => ({ status: 'down' as const }));
    const ready = db.status === 'ok';
    return c.json({ ready }, ready ? 200 : 503);
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/v1/health/data-layer', summary: 'Infrastructure health by component', tags: ['health'], auth: 'viewer',
    responses: { 200: { description: 'component status', schema: z.object({ status: z.string(), components: z.record(z.string(), ComponentHealth) }) } },
  }, async ({ c }) => {
    const entries = await Promise.all(
      Object.entries(deps.healthChecks).map(async ([name, check]) => {
        try {
          return [name, await check()] as const;
        } catch (err) {
          return [name, { status: 'down' as const, detail: (err as Error).message }] as const;
        }
      }),
    );
    const components = Object.fromEntries(entries);
    const statuses = entries.map(([, h]) => h.status);
    const status = statuses.includes('down') ? 'down' : statuses.includes('degraded') ? 'degraded' : 'ok';
    return c.json({ status, components });
  });
}
