import { z } from 'zod';
import type { Hono } from 'hono';
import { DiscoveredFlowSchema, DiscoveredPageSchema, DiscoveryStartInput, DiscoverySessionSchema } from '@svc/core/contracts/discovery';
import { HttpUrl } from '@svc/core/contracts/project';
import { ListQuery, listResponse } from '@svc/core/contracts/common';
import { AppError, notFound, validationFailed } from '@svc/core/errors';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { checkHosts } from '../allowed-hosts.ts';
import { markSessionFailed } from '../../discovery/persist.ts';

export const DiscoveryLogin = z.strictObject({
  url: HttpUrl.describe('Login page URL'),
  username: z.string().min(1).max(500).describe('User name or email'),
  password: z.string().min(1).max(500).describe('Password (never stored or echoed)'),
  username_selector: z.string().min(1).max(500).optional().describe('CSS selector of the username field (default: detected)'),
  password_selector: z.string().min(1).max(500).optional().describe('CSS selector of the password field (default: input[type=password])'),
  submit_selector: z.string().min(1).max(500).optional().describe('CSS selector of the submit button (default: detected)'),
});

const CrawlControls = {
  allowed_hosts: z.array(z.string().min(1).max(255)).max(20).optional().describe('Extra hosts the crawl may visit (each must also be allowed by the project or server)'),
  max_depth: z.number().int().min(0).max(20).default(5).describe('Link depth from the start URL, 0..20 (default 5)'),
  page_timeout_ms: z.number().int().min(500).max(60_000).default(15_000).describe('Per-page load timeout; slower pages are recorded as partial (default 15000)'),
  max_per_pattern: z.number().int().min(1).max(100).default(5).describe('Pages visited per URL family such as /calendar?month=* (default 5)'),
  login: DiscoveryLogin.optional().describe('Sign in before crawling'),
};

const StartBody = DiscoveryStartInput.extend(CrawlControls);
const IdParams = z.strictObject({ id: z.uuid().describe('Discovery session id') });
const SyncBody = z.strictObject({
  project_id: z.uuid().describe('Project whose app is crawled'),
  start_url: HttpUrl.optional().describe("URL to start from; defaults to the project's app_url"),
  url: HttpUrl.optional().describe('Alias of start_url'),
  max_pages: z.number().int().min(1).max(20).default(5).describe('Page budget, 1..20 (default 5): this endpoint answers synchronously'),
  ...CrawlControls,
  max_depth: z.number().int().min(0).max(5).default(2).describe('Link depth, 0..5 (default 2)'),
  page_timeout_ms: z.number().int().min(500).max(15_000).default(10_000).describe('Per-page load timeout (default 10000)'),
});

const DetailResponse = z.object({ session: DiscoverySessionSchema, status: z.string(), pages: z.array(DiscoveredPageSchema), flows: z.array(DiscoveredFlowSchema) });

/** Auto-discovery: background crawls persisted as discovery sessions, and a small synchronous crawl. */
export function discoveryRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const { store } = deps;
  const runner = () => {
    if (!deps.discovery) throw new AppError('NOT_CONFIGURED', 'auto-discovery needs a browser: this deployment has no browser function (SVC_BROWSER_FUNCTION_NAME, infra/browser.ts); or use the local runtime');
    return deps.discovery;
  };

  const start = async ({ c, body, access }: { c: any; body: z.output<typeof StartBody>; access: { organizationId: string } }) => {
    const project = await store.projects.get(access.organizationId, body.project_id);
    if (!project) throw notFound('project');
    const startUrl = body.start_url ?? project.app_url;
    if (!startUrl) throw validationFailed([{ path: 'start_url', message: 'required when the project has no app_url' }]);
    const r = runner();
    checkHosts(project, r.allowedHosts, startUrl, 'start_url', body.allowed_hosts);
    if (body.login) checkHosts(project, r.allowedHosts, body.login.url, 'login.url');
    const session = await store.discovery.createSession(access.organizationId, {
      project_id: project.id, name: body.name ?? `Discovery of ${new URL(startUrl).host}`, start_url: startUrl, mode: body.mode, strategy: body.strategy, max_pages: body.max_pages,
    });
    try {
      await r.start(access.organizationId, session, {
        startUrl, allowedHosts: body.allowed_hosts, maxPages: body.max_pages, maxDepth: body.max_depth, pageTimeoutMs: body.page_timeout_ms, maxPerPattern: body.max_per_pattern, strategy: body.strategy, login: body.login,
      });
    } catch (err) {
      // The crawl was never handed over (the browser function refused it): the session must not wait forever.
      await markSessionFailed(store, access.organizationId, session.id, err);
      throw err;
    }
    c.set('audit', { action: 'discovery.start', resource: `discovery:${session.id}`, metadata: { project_id: project.id, start_url: startUrl } });
    return c.json(session, 202);
  };

  for (const path of ['/api/v1/discovery/start', '/api/discovery/run']) {
    mountRoute(app, deps, registry, {
      method: 'post', path, summary: 'Start an auto-discovery crawl (runs in the background)', tags: ['discovery'], auth: 'member', body: StartBody,
      responses: { 202: { description: 'session created, crawl running', schema: DiscoverySessionSchema }, 400: { description: 'invalid input or start URL outside the allowed hosts' }, 404: { description: 'no such project' } },
    }, start as any);
  }

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/discovery/:id', summary: 'A discovery session with its pages, flows and status', tags: ['discovery'], auth: 'viewer', params: IdParams,
    responses: { 200: { description: 'session', schema: DetailResponse }, 404: { description: 'no such session in this organization' } },
  }, async ({ c, params, access }) => {
    const session = await store.discovery.getSession(access.organizationId, params.id);
    if (!session) throw notFound('discovery session');
    const [pages, flows] = await Promise.all([store.discovery.allPages(access.organizationId, session.id), store.discovery.listFlows(access.organizationId, session.id)]);
    return c.json({ session, status: session.status, pages, flows });
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/v1/discovery/:id/pages', summary: 'Pages found by a discovery session', tags: ['discovery'], auth: 'viewer', params: IdParams, query: ListQuery,
    responses: { 200: { description: 'pages in crawl order', schema: listResponse(DiscoveredPageSchema) }, 404: { description: 'no such session in this organization' } },
  }, async ({ c, params, query, access }) => {
    const session = await store.discovery.getSession(access.organizationId, params.id);
    if (!session) throw notFound('discovery session');
    return c.json(await store.discovery.listPages(access.organizationId, session.id, query.limit, query.cursor));
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/discover', summary: 'Crawl a few pages synchronously (for agents); nothing is stored', tags: ['discovery'], auth: 'member', body: SyncBody,
    responses: { 200: { description: 'pages, flows, quality and what was skipped' }, 400: { description: 'invalid input or URL outside the allowed hosts' }, 404: { description: 'no such project' } },
  }, async ({ c, body, access }) => {
    const project = await store.projects.get(access.organizationId, body.project_id);
    if (!project) throw notFound('project');
    const field = body.start_url ? 'start_url' : 'url';
    const startUrl = body.start_url ?? body.url ?? project.app_url;
    if (!startUrl) throw validationFailed([{ path: 'start_url', message: 'required when the project has no app_url' }]);
    const r = runner();
    checkHosts(project, r.allowedHosts, startUrl, field, body.allowed_hosts);
    if (body.login) checkHosts(project, r.allowedHosts, body.login.url, 'login.url');
    const result = await r.crawlNow({
      startUrl, allowedHosts: body.allowed_hosts, maxPages: body.max_pages, maxDepth: body.max_depth, pageTimeoutMs: body.page_timeout_ms, maxPerPattern: body.max_per_pattern, login: body.login,
      deadlineMs: 60_000,
    });
    return c.json({
      start_url: result.startUrl,
      pages: result.pages.map((p) => ({ url: p.url, title: p.title, page_type: p.page_type, depth: p.depth, status: p.status ?? null, partial: p.partial ?? null, element_count: p.elements.length, importance_score: p.importance_score, risk_score: p.risk_score, elements: p.elements.slice(0, 100).map((e) => ({ selector: e.selector, category: e.category, label: e.label, importance_score: e.importance_score, stability_score: e.stability_score })) })),
      edges: result.edges,
      flows: result.flows,
      quality_score: result.quality.score,
      insights: result.quality.insights,
      skipped: result.skipped,
      duration_ms: result.durationMs,
    });
  });
}
