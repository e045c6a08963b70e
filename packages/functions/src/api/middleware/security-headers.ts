import { secureHeaders } from 'hono/secure-headers';

/** CSP, HSTS and X-Frame-Options on every response (spec: middleware step 2). */
export const securityHeaders = () =>
  secureHeaders({
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
    strictTransportSecurity: 'max-age=63072000; includeSubDomains',
    xFrameOptions: 'DENY',
    referrerPolicy: 'same-origin',
  });
