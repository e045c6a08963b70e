import type { MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

const common = {
  strictTransportSecurity: 'max-age=63072000; includeSubDomains',
  xFrameOptions: 'DENY',
  referrerPolicy: 'same-origin',
} as const;

const appHeaders = secureHeaders({
  ...common,
  contentSecurityPolicy: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    // blob: for images the dashboard fetched with its session headers (visual baselines):
    // an object URL made by our own script, never a remote source.
    imgSrc: ["'self'", 'data:', 'blob:'],
    connectSrc: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
  },
});

/**
 * Playwright's trace viewer (routes/trace-viewer.ts) is its own app with its own needs:
 * its service worker reads the trace from a blob: URL the viewer made of the file the
 * dashboard handed it (connect-src blob:), its snapshot frames start on a data: page and
 * its components set inline styles. Scripts
 * stay 'self' (its one inline script only explains that file:// cannot work), nothing
 * is loaded from another origin, and it may not be framed either.
 */
const traceViewerHeaders = secureHeaders({
  ...common,
  contentSecurityPolicy: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:', 'blob:'],
    fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'", 'blob:'],
    workerSrc: ["'self'"],
    // The snapshot frames show the viewer's own empty page (a data: URL) before a snapshot.
    frameSrc: ["'self'", 'data:'],
    frameAncestors: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
  },
});

export const TRACE_VIEWER_PATH = '/trace-viewer';

/** CSP, HSTS and X-Frame-Options on every response (spec: middleware step 2). */
export const securityHeaders = (): MiddlewareHandler => (c, next) =>
  (c.req.path.startsWith(`${TRACE_VIEWER_PATH}/`) ? traceViewerHeaders : appHeaders)(c, next);
