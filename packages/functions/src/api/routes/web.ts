import type { Context, Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { SESSION_COOKIE } from '../cookies.ts';

/**
 * The dashboard's pages. Protected pages need a session whose token verifies; anything
 * else is redirected to the sign-in page (spec: Authentication rule 6).
 */
export function webRoutes(app: Hono<ApiEnv>, deps: AppDeps) {
  const load = deps.webAssets;
  if (!load) return;

  const serve = async (path: string) => {
    const asset = await load(path);
    if (!asset) return undefined;
    return new Response(asset.body as Uint8Array<ArrayBuffer>, { headers: { 'content-type': asset.contentType, 'cache-control': path.endsWith('.html') ? 'no-store' : 'public, max-age=300' } });
  };

  app.get('/sign-in', async (c) => (await serve('sign-in.html')) ?? c.notFound());
  app.get('/assets/*', async (c) => (await serve(c.req.path.slice(1))) ?? c.notFound());
  app.get('/favicon.ico', async (c) => (await serve('favicon.ico')) ?? c.body(null, 204));

  /** A page for signed-in people only; anyone else goes to sign in and comes back. */
  const protectedPage = (page: string) => async (c: Context<ApiEnv>) => {
    const token = getCookie(c, SESSION_COOKIE);
    const signedIn = token ? await deps.issuer.verify(token).then(() => true, () => false) : false;
    if (!signedIn) {
      const next = encodeURIComponent(c.req.path + (new URL(c.req.url).search || ''));
      return c.redirect(`/sign-in?next=${next}`, 302);
    }
    return (await serve(page)) ?? c.notFound();
  };
  const shell = protectedPage('index.html');
  app.get('/', shell);
  app.get('/app', shell);
  app.get('/app/*', shell);
  // Where a person approves an agent's sign-in (OAuth device flow: the verification_uri).
  app.get('/device', protectedPage('device.html'));
}
