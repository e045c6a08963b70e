import type { Hono } from 'hono';
import { QualityAuditInput, QualityAuditReport } from '@svc/core/contracts/quality-audit';
import { AppError, notFound, validationFailed } from '@svc/core/errors';
import { runQualityAudit } from '@svc/core/quality/audit';
import { PageLoadError } from '@svc/core/quality/page-probe';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { checkHosts } from '../allowed-hosts.ts';
import { resolveAppUrl } from '../resolve-app-url.ts';

/**
 * POST /api/quality/audit (and /api/v1/quality/audit): one page of a project's app, opened
 * in the server's browser and audited (core quality/audit.ts). The URL is checked against
 * the project's allowed hosts before the browser goes there. Where the server runs no
 * browser (the AWS API function) it answers 501, as discovery does.
 */
export function qualityAuditRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  for (const path of ['/api/quality/audit', '/api/v1/quality/audit']) {
    mountRoute(app, deps, registry, {
      method: 'post', path, summary: 'Audit a page of a project\'s app in Chromium: accessibility (axe-core), security headers and cookies, performance, console errors', tags: ['quality'], auth: 'member', body: QualityAuditInput,
      responses: {
        200: { description: 'the audit report', schema: QualityAuditReport },
        400: { description: 'invalid input, a URL outside the allowed hosts, or a page that could not be loaded (the error names the field)' },
        404: { description: 'no such project in this organization' },
        501: { description: 'this deployment runs no browser for audits' },
      },
    }, async ({ c, body, access }) => {
      const project = await deps.store.projects.get(access.organizationId, body.project_id);
      if (!project) throw notFound('project');
      const auditor = deps.qualityAudit;
      if (!auditor) throw new AppError('NOT_CONFIGURED', 'quality audits need a browser: this deployment has no browser function (SVC_BROWSER_FUNCTION_NAME, infra/browser.ts); or use the local runtime or svc audit');
      const url = resolveAppUrl(body.url, project.app_url ?? undefined);
      checkHosts(project, auditor.allowedHosts, url, 'url');
      c.set('audit', { action: 'quality.audit', resource: `project:${project.id}`, metadata: { url, checks: body.checks ?? 'all' } });
      try {
        const report = await runQualityAudit(auditor.probe, { url, checks: body.checks, accessibility: body.accessibility, fail_on: body.fail_on });
        return c.json(report);
      } catch (err) {
        // A tag axe does not have, or a page that never loaded, is the request's problem.
        if (err instanceof Error && err.name === 'AxeOptionsError') throw validationFailed([{ path: 'accessibility.tags', message: `axe-core has no such rules: ${err.message}` }]);
        if (err instanceof PageLoadError) throw validationFailed([{ path: 'url', message: err.message }]);
        throw err;
      }
    });
  }
}
