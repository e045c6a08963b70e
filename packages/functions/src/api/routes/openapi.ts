import type { Hono } from 'hono';
import { buildOpenApiDocument } from '@svc/core/openapi/build';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import type { RouteDef } from '../route.ts';

/** OpenAPI 3.1, generated from the same zod contracts that validate requests. */
export function openApiRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  let cached: unknown;
  app.get('/api/openapi.json', (c) => {
    cached ??= buildOpenApiDocument(registry, { title: 'svc API', version: deps.config.version });
    return c.json(cached);
  });
}
