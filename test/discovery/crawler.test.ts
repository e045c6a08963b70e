import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../packages/functions/src/execution/browser/playwright-driver.ts';
import { crawl } from '../../packages/functions/src/discovery/crawler.ts';
import { startFixtureApp, DEMO_USER } from '../fixtures/app/server.ts';
import { realAppsInstalled, startRealApp } from '../support/real-apps.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateFromFlow } from '../../packages/core/src/intelligence/generation/suite.ts';
import { TestDefinition } from '../../packages/core/src/contracts/steps.ts';
import { runTest } from '../../packages/core/src/execution/run-test.ts';
import { httpExchange } from '../../packages/core/src/execution/api/http-exchange.ts';
import { FsArtifacts } from '../../packages/functions/src/execution/fs-artifacts.ts';

let driver: PlaywrightDriver;
beforeAll(async () => {
  driver = await createPlaywrightDriver();
});
afterAll(async () => {
  await driver?.close();
});

/** A hostile little site: a page that never answers, an infinite calendar, logout/delete/download links. */
async function startTrapSite(): Promise<{ url: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    hits.push(url.pathname + url.search);
    const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Trap ${url.pathname}</title><body>${body}</body>`);
    if (url.pathname === '/hang') return; // never answers
    if (url.pathname === '/calendar') {
      const month = Number(url.searchParams.get('month') ?? 0);
      return html(`<h1>Month ${month}</h1><a href="/calendar?month=${month + 1}">Next month</a><a href="/calendar?month=${month - 1}">Previous month</a>`);
    }
    if (url.pathname === '/logout' || url.pathname.startsWith('/items/')) {
      return html('<h1>You should not be here</h1>');
    }
    if (url.pathname === '/report.pdf') return res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4');
    if (url.pathname === '/export') return res.writeHead(200, { 'content-type': 'text/csv', 'content-disposition': 'attachment; filename="data.csv"' }).end('a,b\n1,2\n');
    return html(`<h1>Home</h1><nav><a href="/hang">Slow page</a> <a href="/calendar">Calendar</a> <a href="/about">About</a> <a href="/export">Export data</a></nav>
      <a href="/logout">Log out</a> <a href="/items/7/destroy">Remove item</a> <a href="/report.pdf">Report</a> <a href="/files/data" download>Export</a>
      <form method="post" action="/items/delete"><input name="id" aria-label="Item id"><button>Delete everything</button></form>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`,
    hits,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

describe('crawler on hostile pages', () => {
  it('records a never-loading page as partial, caps the infinite calendar and never follows logout, destructive, download links or POST forms', async () => {
    const site = await startTrapSite();
    try {
      const result = await crawl(driver, { startUrl: site.url, maxPages: 50, pageTimeoutMs: 1_500, maxPerPattern: 4 });
      const hang = result.pages.find((p) => p.url.endsWith('/hang'));
      expect(hang?.partial).toMatch(/did not finish loading within 1500 ms/);
      // /calendar itself, then at most 4 pages of the /calendar?month=* family.
      const months = result.pages.filter((p) => p.url.includes('/calendar?month='));
      expect(months.length).toBe(4);
      expect(result.skipped.some((s) => /more than 4 pages like .*\/calendar\?month=\*/.test(s.reason))).toBe(true);
      expect(result.pages.some((p) => p.url.endsWith('/about'))).toBe(true);
      // A link that only reveals itself as a file when answered is cancelled and recorded as such.
      expect(result.pages.some((p) => p.url.endsWith('/export'))).toBe(false);
      expect(result.skipped).toContainEqual({ url: `${site.url}export`, reason: 'download (answered as a file)' });
      // The server saw none of the forbidden requests.
      expect(site.hits.filter((h) => h === '/logout' || h.startsWith('/items') || h === '/report.pdf' || h === '/files/data')).toEqual([]);
      expect(result.skipped).toEqual(expect.arrayContaining([
        { url: `${site.url}logout`, reason: 'logout or destructive link not followed' },
        { url: `${site.url}items/7/destroy`, reason: 'logout or destructive link not followed' },
        { url: `${site.url}report.pdf`, reason: 'download link' },
      ]));
      expect(result.quality.insights.partial_pages).toEqual([{ url: `${site.url}hang`, reason: 'did not finish loading within 1500 ms' }]);
    } finally {
      await site.close();
    }
  });

  it('does not read a page that redirects outside the allowed hosts', async () => {
    const other = await startTrapSite();
    const redirector = createServer((req, res) => {
      if (req.url === '/away') return res.writeHead(302, { location: other.url }).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>R</title><a href="/away">Away</a>');
    });
    await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(redirector.address() as { port: number }).port}/`;
    try {
      const result = await crawl(driver, { startUrl: url, maxPages: 10, pageTimeoutMs: 2_000 });
      const away = result.pages.find((p) => p.url === `${url}away`);
      expect(away?.partial).toBe(`redirected outside the allowed hosts to ${new URL(other.url).origin}`);
      expect(away?.links).toEqual([]);
      // Only the redirect's own landing request reached the other site; none of its links were followed.
      expect(other.hits).toEqual(['/']);
    } finally {
      redirector.closeAllConnections();
      await new Promise<void>((r) => redirector.close(() => r()));
      await other.close();
    }
  });

  it('stays inside the start origin', async () => {
    const other = await startTrapSite();
    const site = await startTrapSite();
    try {
      const result = await crawl(driver, { startUrl: site.url, maxPages: 3, maxDepth: 1, pageTimeoutMs: 1_000 });
      expect(result.pages.every((p) => p.url.startsWith(site.url))).toBe(true);
      expect(other.hits).toEqual([]);
    } finally {
      await site.close();
      await other.close();
    }
  });
});

describe('crawler on the fixture app', () => {
  it('logs in first, finds pages, forms, elements and flows, and does not follow Log out', async () => {
    const app = await startFixtureApp({ version: 'v1' });
    try {
      const result = await crawl(driver, {
        startUrl: `${app.url}/dashboard`,
        maxPages: 20,
        pageTimeoutMs: 5_000,
        login: { url: `${app.url}/login`, username: DEMO_USER.email, password: DEMO_USER.password },
      });
      expect(result.login).toEqual({ ok: true, url: `${app.url}/login`, landed_url: `${app.url}/dashboard` });
      const byPath = new Map(result.pages.map((p) => [new URL(p.url).pathname, p]));
      expect([...byPath.keys()]).toEqual(expect.arrayContaining(['/dashboard', '/', '/form', '/table']));
      expect(byPath.get('/dashboard')!.title).not.toBe('');
      expect(result.skipped).toContainEqual({ url: `${app.url}/logout`, reason: 'logout or destructive link not followed' });
      expect(byPath.get('/form')!.page_type).toBe('form');
      const form = byPath.get('/form')!;
      expect(form.elements.length).toBeGreaterThan(5);
      expect(form.elements.every((e) => e.selector && e.stability_score >= 0 && e.importance_score > 0)).toBe(true);
      expect(result.edges.some((e) => e.from === `${app.url}/dashboard`)).toBe(true);
      const formFlow = result.flows.find((f) => f.flow_type === 'form');
      expect(formFlow?.steps[0]).toEqual({ type: 'goto', url: `${app.url}/form` });
      expect(formFlow?.steps.some((s) => s.type === 'fill')).toBe(true);
      expect(result.flows.some((f) => f.flow_type === 'navigation')).toBe(true);
      expect(result.quality.score).toBeGreaterThan(0);
      // The password never leaks into the result.
      expect(JSON.stringify(result)).not.toContain(DEMO_USER.password);
    } finally {
      await app.close();
    }
  });

  it('a discovered sign-in flow, run as a test, passes with the right password and fails on its outcome check with a wrong one', async () => {
    const app = await startFixtureApp({ version: 'v1' });
    const dir = await mkdtemp(join(tmpdir(), 'svc-discovered-login-'));
    try {
      const result = await crawl(driver, { startUrl: `${app.url}/login`, maxPages: 1, pageTimeoutMs: 5_000 });
      const flow = result.flows.find((f) => f.flow_type === 'authentication');
      expect(flow?.steps.slice(-2)).toMatchObject([{ type: 'assert', assertion: { type: 'hidden' } }, { type: 'assert', assertion: { type: 'url' }, name: 'signed in: it left /login' }]);
      const { test } = generateFromFlow(flow!);
      const run = (password: string) =>
        runTest('login', TestDefinition.parse({ ...test, timeout_ms: 15_000 }), { ui: async () => driver, http: httpExchange, artifacts: new FsArtifacts(dir), baseUrl: app.url, environment: {}, secrets: { USERNAME: DEMO_USER.email, PASSWORD: password }, traceOnFailure: false });
      const good = await run(DEMO_USER.password);
      expect(good.status, good.error_message ?? '').toBe('passed');
      const bad = await run('wrong-password');
      expect(bad.status).toBe('failed');
      expect(bad.error_message).toMatch(/step 5 \(expect label="Password" hidden\): .*visible/); // the sign-in check, not an earlier step
    } finally {
      await rm(dir, { recursive: true, force: true });
      await app.close();
    }
  });

  it('fails clearly when the login does not work', async () => {
    const app = await startFixtureApp({ version: 'v1' });
    try {
      await expect(crawl(driver, { startUrl: app.url, maxPages: 2, pageTimeoutMs: 5_000, login: { url: `${app.url}/login`, username: DEMO_USER.email, password: 'wrong-password' } }))
        .rejects.toThrow(/login failed: still on the login form/);
    } finally {
      await app.close();
    }
  });
});

describe.skipIf(!realAppsInstalled())('crawler on real apps (npm run apps:install)', () => {
  it('treats TodoMVC hash routes as pages and infers the create-item flow', async () => {
    const app = await startRealApp('todomvc');
    try {
      const result = await crawl(driver, { startUrl: app.url, maxPages: 10, pageTimeoutMs: 5_000 });
      expect(result.pages.map((p) => p.url).sort()).toEqual([`${app.origin}/`, `${app.origin}/#/active`, `${app.origin}/#/completed`]);
      const crud = result.flows.find((f) => f.flow_type === 'crud');
      expect(crud?.steps).toContainEqual({ type: 'fill', selector: { placeholder: 'What needs to be done?', exact: true }, value: 'Discovered item' });
    } finally {
      await app.close();
    }
  });

  it('finds every resource page of json-server and marks them as api pages', async () => {
    const app = await startRealApp('json-server');
    try {
      const result = await crawl(driver, { startUrl: app.url, maxPages: 10, pageTimeoutMs: 5_000 });
      const paths = result.pages.map((p) => new URL(p.url).pathname).sort();
      expect(paths).toEqual(['/', '/comments', '/posts', '/profile', '/users']);
      expect(result.pages.filter((p) => p.page_type === 'api').length).toBe(4);
    } finally {
      await app.close();
    }
  });
});
