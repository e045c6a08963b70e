import { Hono } from 'hono';
import { AppError } from '@svc/core/errors';
import type { AppDeps } from './deps.ts';
import type { ApiEnv } from './env.ts';
import type { RouteDef } from './route.ts';
import { handleError, errorResponse } from './errors.ts';
import { corsPolicy } from './middleware/cors.ts';
import { securityHeaders } from './middleware/security-headers.ts';
import { audit } from './middleware/audit.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { sameOriginForCookies, ownOrigins } from './middleware/same-origin.ts';
import { healthRoutes } from './routes/health.ts';
import { authRoutes } from './routes/auth.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { organizationRoutes } from './routes/organizations.ts';
import { userRoutes } from './routes/users.ts';
import { teamRoutes } from './routes/teams.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { auditLogRoutes } from './routes/audit-logs.ts';
import { projectRoutes } from './routes/projects.ts';
import { environmentRoutes } from './routes/environment.ts';
import { testRoutes } from './routes/tests.ts';
import { healingRoutes } from './routes/healing.ts';
import { openApiRoutes } from './routes/openapi.ts';
import { runGraphRoutes } from './routes/runs.ts';
import { reportRoutes } from './routes/reports.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { activityRoutes } from './routes/activity.ts';
import { webRoutes } from './routes/web.ts';
import { traceViewerRoutes } from './routes/trace-viewer.ts';
import { generationRoutes } from './routes/generation.ts';
import { discoveryRoutes } from './routes/discovery.ts';
import { planningRoutes } from './routes/planning.ts';
import { analyzeRoutes } from './routes/analyze.ts';
import { chatRoutes } from './routes/chat.ts';
import { agentRoutes } from './routes/agent.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { visualRoutes } from './routes/visual.ts';
import { insightsRoutes } from './routes/insights.ts';
import { semanticSearchRoutes } from './routes/semantic-search.ts';
import { qualityAuditRoutes } from './routes/quality-audit.ts';
import { actRoutes } from './routes/act.ts';
import { extractRoutes } from './routes/extract.ts';
import { autonomousLoopRoutes } from './routes/autonomous-loop.ts';
import { scheduleRoutes } from './routes/schedules.ts';
import { flowRoutes } from './routes/flows.ts';
import { testTemplateRoutes } from './routes/test-templates.ts';
import { reviewCommentRoutes } from './routes/review-comments.ts';
import { notificationRoutes } from './routes/notifications.ts';
import { vcsIntegrationRoutes } from './routes/vcs-integrations.ts';
import { vcsWebhookRoutes } from './routes/vcs-webhook.ts';
import { chatIntegrationRoutes } from './routes/chat-integrations.ts';
import { chatWebhookRoutes } from './routes/chat-webhook.ts';
import { automationIntegrationRoutes } from './routes/automation-integrations.ts';
import { automationWebhookRoutes } from './routes/automation-webhook.ts';

/**
 * The one Hono app, wrapped by the Lambda handler on AWS and served by the local runtime.
 * Middleware order (spec: Authentication rule 8): CORS, security headers, audit, rate
 * limit, the same-origin check of changes a cookie signs in (middleware/same-origin.ts);
 * then per route: authentication, request size, handler (see route.ts).
 */
/** The methods the registered routes answer on a path (`:param` segments match any one segment). */
function methodsOf(registry: readonly RouteDef[], path: string): string[] {
  const matches = (pattern: string) => new RegExp(`^${pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\?:[A-Za-z_]+/g, '[^/]+')}$`).test(path);
  return [...new Set(registry.filter((r) => matches(r.path)).map((r) => r.method.toUpperCase()))].sort();
}

export function createApp(deps: AppDeps) {
  const app = new Hono<ApiEnv>();
  const registry: RouteDef[] = [];

  app.use('*', async (c, next) => {
    c.set('requestId', c.req.header('x-request-id')?.slice(0, 100) || crypto.randomUUID());
    await next();
    c.header('X-Request-ID', c.get('requestId'));
  });
  app.use('*', corsPolicy(deps.config.corsOrigins));
  app.use('*', securityHeaders());
  app.use('*', audit(deps.store, deps.logger));
  app.use('*', rateLimit({ perMinute: deps.config.rateLimitPerMinute, authPerMinute: deps.config.authRateLimitPerMinute, trustedProxyHops: deps.config.trustedProxyHops }));
  app.use('*', sameOriginForCookies((c) => ownOrigins(c, deps.publicUrl, deps.config.corsOrigins)));

  healthRoutes(app, deps, registry);
  metricsRoutes(app, deps, registry);
  authRoutes(app, deps, registry);
  oauthRoutes(app, deps, registry);
  organizationRoutes(app, deps, registry);
  userRoutes(app, deps, registry);
  teamRoutes(app, deps, registry);
  apiKeyRoutes(app, deps, registry);
  auditLogRoutes(app, deps, registry);
  projectRoutes(app, deps, registry);
  environmentRoutes(app, deps, registry);
  testRoutes(app, deps, registry);
  healingRoutes(app, deps, registry);
  visualRoutes(app, deps, registry);
  insightsRoutes(app, deps, registry);
  activityRoutes(app, deps, registry);
  semanticSearchRoutes(app, deps, registry);
  qualityAuditRoutes(app, deps, registry);
  actRoutes(app, deps, registry);
  extractRoutes(app, deps, registry);
  autonomousLoopRoutes(app, deps, registry);
  scheduleRoutes(app, deps, registry);
  flowRoutes(app, deps, registry);
  testTemplateRoutes(app, deps, registry);
  reviewCommentRoutes(app, deps, registry);
  notificationRoutes(app, deps, registry);
  vcsIntegrationRoutes(app, deps, registry);
  vcsWebhookRoutes(app, deps, registry);
  chatIntegrationRoutes(app, deps, registry);
  chatWebhookRoutes(app, deps, registry);
  automationIntegrationRoutes(app, deps, registry);
  automationWebhookRoutes(app, deps, registry);
  runGraphRoutes(app, deps, registry);
  reportRoutes(app, deps, registry);
  generationRoutes(app, deps, registry);
  chatRoutes(app, deps, registry);
  agentRoutes(app, deps, registry);
  analyzeRoutes(app, deps, registry);
  discoveryRoutes(app, deps, registry);
  planningRoutes(app, deps, registry);
  openApiRoutes(app, deps, registry);
  mcpRoutes(app, deps, registry);
  webRoutes(app, deps);
  traceViewerRoutes(app, deps);

  app.notFound((c) => {
    // A path that exists under other methods is a 405 with Allow, not a 404: the client's mistake is the method.
    const allowed = methodsOf(registry, c.req.path);
    if (allowed.length) return errorResponse(c, new AppError('METHOD_NOT_ALLOWED', `${c.req.method} is not allowed on ${c.req.path}; allowed: ${allowed.join(', ')}`, { allowed }), { Allow: allowed.join(', ') });
    // Routes have no trailing slash; say so rather than leave the client guessing at a 404.
    const withoutSlash = c.req.path.replace(/\/+$/, '');
    if (withoutSlash && withoutSlash !== c.req.path && methodsOf(registry, withoutSlash).length) {
      return errorResponse(c, new AppError('NOT_FOUND', `no route for ${c.req.method} ${c.req.path}: svc's paths have no trailing slash (${withoutSlash})`));
    }
    return errorResponse(c, new AppError('NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`));
  });
  app.onError(handleError(deps.logger));
  // Named routeDefs: Hono keeps its own `routes` list on the app.
  return Object.assign(app, { routeDefs: registry });
}

export type SvcApp = ReturnType<typeof createApp>;
