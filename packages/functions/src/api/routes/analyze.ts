import type { Hono } from 'hono';
import { z } from 'zod';
import { Analysis, AnalyzeRequest, AnalyzeResponse } from '@svc/core/intelligence/analysis/types';
import { CodebaseIngestionSchema, IngestionListQuery, type CodebaseIngestion } from '@svc/core/contracts/codebase-ingestions';
import { listResponse } from '@svc/core/contracts/common';
import { analyzedPayload, codebaseAnalyzed, codebaseIngested, eventSources } from '@svc/core/events/producers';
import { ingestionBlobKeys } from '@svc/core/knowledge/blob-keys';
import { keptAnalysis } from '@svc/core/knowledge/latest-knowledge';
import type { FolderRead } from '@svc/core/knowledge/knowledge-worker';
import { analyzeFiles } from '@svc/core/intelligence/analysis/index';
import { AppError, notFound, validationFailed } from '@svc/core/errors';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { allowedFolder, readAllowedFolder, type FolderRefusal } from '../../intelligence/read-allowed-folder.ts';
import { actorOf } from '../actor.ts';

const IdParams = z.strictObject({ id: z.uuid().describe('Codebase ingestion id') });
const IngestionDetail = CodebaseIngestionSchema.extend({ analysis: Analysis.nullable().describe('The analysis (redacted), once analysed') });
const NO_FOLDERS = 'this server reads no folders: set SVC_ANALYZE_ROOTS to the folders it may analyse, or upload the files inline with "files"';

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
      202: { description: 'with async: the ingestion, queued for the knowledge worker (Location: /api/analyze/{id})', schema: CodebaseIngestionSchema },
      404: { description: 'no such project in this organization' },
      501: { description: 'path given but this server reads no folders (SVC_ANALYZE_ROOTS unset), or none for this organization' },
    },
  }, async ({ c, body, access, principal }) => {
    if (!(await deps.store.projects.get(access.organizationId, body.project_id))) throw notFound('project');
    if (body.async) {
      const ingestion = await startIngestion(deps, { body, organizationId: access.organizationId, createdBy: actorOf(principal), requestId: c.get('requestId') });
      c.header('Location', `/api/analyze/${ingestion.id}`);
      return c.json(ingestion, 202);
    }
    let analysis;
    let source: { kind: 'path' | 'inline'; path?: string; partial: boolean };
    if (body.path !== undefined) {
      const read = refuseFolder<FolderRead>(await readAllowedFolder(body.path, deps.analyzeRoots ?? [], access.organizationId));
      analysis = await analyzeFiles(read.files, { skipped: read.skipped, includeContent: body.include_content });
      source = { kind: 'path', path: body.path, partial: read.partial };
    } else {
      analysis = await analyzeFiles(body.files!, { includeContent: body.include_content });
      source = { kind: 'inline', partial: false };
    }
    await deps.publisher.publish(codebaseAnalyzed(
      { source: eventSources.api, tenant_id: access.organizationId, correlation_id: c.get('requestId') },
      analyzedPayload(analysis, { project_id: body.project_id, codebase_path: source.path ?? 'inline upload' }),
    ));
    return c.json({ ...analysis, source });
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/analyze', summary: "A project's codebase ingestions, newest first", tags: ['intelligence'], auth: 'viewer', query: IngestionListQuery,
    responses: { 200: { description: 'ingestions', schema: listResponse(CodebaseIngestionSchema) }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, query, access }) => {
    if (!(await deps.store.projects.get(access.organizationId, query.project_id))) throw notFound('project');
    return c.json(await deps.store.codebaseIngestions.listForProject(query.project_id, query.limit, query.cursor));
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/analyze/:id', summary: 'A codebase ingestion: its status, and the analysis once the knowledge worker has made it', tags: ['intelligence'], auth: 'viewer', params: IdParams,
    responses: { 200: { description: 'the ingestion; `analysis` when analysed', schema: IngestionDetail }, 404: { description: 'no such ingestion in this organization' } },
  }, async ({ c, params, access }) => {
    const ingestion = await deps.store.codebaseIngestions.get(access.organizationId, params.id);
    if (!ingestion) throw notFound('codebase ingestion');
    if (ingestion.status !== 'analyzed') return c.json({ ...ingestion, analysis: null });
    const analysis = deps.blobs ? await keptAnalysis(deps.blobs, access.organizationId, ingestion.id) : undefined;
    return c.json({ ...ingestion, analysis: analysis ?? null });
  });
}

/** A folder this server may not read is a 501 (it reads none, or none for this organization) or a 400 naming `path`. */
function refuseFolder<T extends object>(outcome: T | FolderRefusal): T {
  if (!('why' in outcome)) return outcome;
  if (outcome.why === 'not_configured') throw new AppError('NOT_CONFIGURED', NO_FOLDERS);
  if (outcome.why === 'not_open') throw new AppError('NOT_CONFIGURED', `${outcome.reason}, or upload the files inline with "files"`);
  throw validationFailed([{ path: 'path', message: outcome.reason }]);
}

/**
 * Queues a codebase for the knowledge worker: the record first (so the event never names a
 * missing one), uploaded files as a blob the worker deletes once analysed, then
 * codebase.ingested. A folder is checked against this server's roots now, so a wrong path
 * is a 400 naming the field rather than a failed ingestion later.
 */
async function startIngestion(deps: AppDeps, o: { body: AnalyzeRequest; organizationId: string; createdBy: string; requestId: string }): Promise<CodebaseIngestion> {
  const { body, organizationId } = o;
  const id = deps.store.codebaseIngestions.newId();
  let source: CodebaseIngestion['source'];
  if (body.path !== undefined) {
    refuseFolder<{ path: string }>(await allowedFolder(body.path, deps.analyzeRoots ?? [], organizationId));
    source = { kind: 'path', path: body.path };
  } else {
    if (!deps.blobs) throw new AppError('NOT_CONFIGURED', 'this server has no artifact store to keep uploaded files for the knowledge worker; analyse them synchronously (without "async")');
    await deps.blobs.put(ingestionBlobKeys.files(organizationId, id), JSON.stringify(body.files), 'application/json');
    source = { kind: 'inline', file_count: body.files!.length };
  }
  const ingestion: CodebaseIngestion = {
    id,
    project_id: body.project_id,
    status: 'queued',
    source,
    codebase_path: body.path ?? 'inline upload',
    commit_sha: body.commit_sha ?? null,
    include_content: body.include_content,
    created_at: deps.clock.now().toISOString(),
    created_by: o.createdBy,
    finished_at: null,
    error: null,
    summary: null,
    surface_count: null,
    partial: null,
  };
  await deps.store.codebaseIngestions.create(organizationId, ingestion);
  try {
    await deps.publisher.publish(codebaseIngested(
      { source: eventSources.api, tenant_id: organizationId, correlation_id: o.requestId },
      { project_id: body.project_id, codebase_path: ingestion.codebase_path, ingestion_id: id, ...(body.commit_sha ? { commit_sha: body.commit_sha } : {}) },
    ));
  } catch (err) {
    // Nobody will analyse it: say so on the record rather than leave it queued for ever.
    await deps.store.codebaseIngestions.decide(organizationId, id, { status: 'failed', finished_at: deps.clock.now().toISOString(), error: `it could not be queued: ${(err as Error).message}`, summary: null, surface_count: null, partial: null });
    if (source.kind === 'inline') await deps.blobs?.delete(ingestionBlobKeys.files(organizationId, id));
    throw err;
  }
  return ingestion;
}
