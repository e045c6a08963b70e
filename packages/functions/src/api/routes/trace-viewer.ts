import type { Hono } from 'hono';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { TRACE_VIEWER_PATH } from '../middleware/security-headers.ts';

/**
 * Playwright's trace viewer, served by svc itself at /trace-viewer/ (docs/trace-viewer.md):
 * the dashboard opens a failed test's trace in it without the trace leaving the
 * deployment (trace.playwright.dev would need the file handed to another site). It is
 * Playwright's static app, holding no data: the dashboard fetches the trace with its
 * session and posts the file to the viewer's window, whose service worker reads it in the
 * browser. So these files are public like the dashboard's own scripts.
 */
export function traceViewerRoutes(app: Hono<ApiEnv>, deps: AppDeps) {
  const load = deps.traceViewerAssets;
  if (!load) return;

  app.get(TRACE_VIEWER_PATH, (c) => c.redirect(`${TRACE_VIEWER_PATH}/`, 301));
  app.get(`${TRACE_VIEWER_PATH}/*`, async (c) => {
    const asset = await load(c.req.path.slice(TRACE_VIEWER_PATH.length));
    if (!asset) return c.notFound();
    const html = asset.contentType.startsWith('text/html');
    return new Response(asset.body as Uint8Array<ArrayBuffer>, {
      headers: {
        'content-type': asset.contentType,
        // Pages and the service worker are checked on every load, so an upgrade of
        // playwright-core is picked up at once; the hashed scripts may be kept a while.
        'cache-control': html || c.req.path.endsWith('/sw.bundle.js') ? 'no-cache' : 'public, max-age=300',
      },
    });
  });
}
