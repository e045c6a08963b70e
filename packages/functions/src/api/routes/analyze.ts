import type { Hono } from 'hono';
import { AnalyzeRequest, AnalyzeResponse } from '@svc/core/intelligence/analysis/types';
import { analyzeFiles } from '@svc/core/intelligence/analysis/index';
import { createEvent } from '@svc/core/contracts/events';
import { AppError, notFound, validationFailed } from '@svc/core/errors';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { readRepository, resolveAllowedPath } from '../../intelligence/read-repository.ts';

/** Surfaces carried in the codebase.analyzed event; the full list is in the response. */
const MAX_EVENT_SURFACES = 500;

/**
 * Code analysis (issue #6 item 1): a folder on the server inside SVC_ANALYZE_ROOTS, or files
 * uploaded inline. Secrets are redacted and blocked files never read before anything is
 * returned or published (spec rule 7).
 */
export function analyzeRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/analyze', summary: 'Analyse a codebase for testable surfaces; publishes codebase.analyzed', tags: ['intelligence'], auth: 'member', body: AnalyzeRequest,
    responses: {
      200: { description: 'analysis (redacted)', schema: AnalyzeResponse },
      404: { description: 'no such project in this organization' },
      501: { description: 'path given but this server reads no folders (SVC_ANALYZE_ROOTS unset)' },
    },
  }, async ({ c, body, access }) => {
    if (!(await deps.store.projects.get(access.organizationId, body.project_id))) throw notFound('project');
    let analysis;
    let source: { kind: 'path' | 'inline'; path?: string; partial: boolean };
    if (body.path !== undefined) {
      const roots = deps.analyzeRoots ?? [];
      if (roots.length === 0) {
        throw new AppError('NOT_CONFIGURED', 'this server reads no folders: set SVC_ANALYZE_ROOTS to the folders it may analyse, or upload the files inline with "files"');
      }
      const allowed = await resolveAllowedPath(body.path, roots);
      if ('error' in allowed) throw validationFailed([{ path: 'path', message: allowed.error }]);
      const read = await readRepository(allowed.path);
      const skipped = read.skipped_unlisted ? [...read.skipped, { path: '…', reason: `${read.skipped_unlisted} more entries skipped` }] : read.skipped;
      analysis = await analyzeFiles(read.files, { skipped, includeContent: body.include_content });
      source = { kind: 'path', path: body.path, partial: read.partial };
    } else {
      analysis = await analyzeFiles(body.files!, { includeContent: body.include_content });
      source = { kind: 'inline', partial: false };
    }
    await deps.publisher.publish(createEvent({
      type: 'codebase.analyzed',
      source: 'svc.api',
      tenant_id: access.organizationId,
      correlation_id: c.get('requestId'),
      payload: {
        project_id: body.project_id,
        codebase_path: source.path ?? 'inline upload',
        summary: analysis.summary.text,
        testable_surfaces: analysis.surfaces.slice(0, MAX_EVENT_SURFACES).map((s) => ({ ...s })),
        surface_count: analysis.surfaces.length,
        counts: analysis.summary.counts,
        frameworks: analysis.summary.frameworks,
        highest_classification: analysis.summary.highest_classification,
      },
    }));
    return c.json({ ...analysis, source });
  });
}
