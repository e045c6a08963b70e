import { cors } from 'hono/cors';

/**
 * Same-origin by default (the dashboard is served by the API). Listed origins may call
 * with credentials; everything else gets no CORS headers and the browser blocks it.
 */
export const corsPolicy = (origins: string[]) =>
  cors({
    origin: (origin) => (origins.includes(origin) ? origin : null),
    credentials: true,
    // If-Match and ETag: a listed origin's editor can make conditional changes to tests (docs/test-revisions.md).
    allowHeaders: ['Authorization', 'Content-Type', 'X-Organization-ID', 'X-API-Key', 'Last-Event-ID', 'If-Match'],
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    exposeHeaders: ['Retry-After', 'X-Request-ID', 'ETag'],
    maxAge: 600,
  });
