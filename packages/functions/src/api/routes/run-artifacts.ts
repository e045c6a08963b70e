import type { Hono } from 'hono';
import { z } from 'zod';
import { AppError } from '@svc/core/errors';
import { RunArtifactListSchema, RunArtifactParams } from '@svc/core/contracts/run-artifact';
import { artifactContentType, runArtifactsOf } from '@svc/core/reporting/run-artifacts';
import { runSummaryOf } from '@svc/core/run-graph/run-summary';
import type { Blobs } from '@svc/core/ports/blobs';
import type { OrganizationAccess } from '@svc/core/services/identity';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { runArtifactPrefix } from '../../run-graph/blob-artifacts.ts';
import { runGraphOf, type RunGraphAppDeps } from './runs.ts';

/** A name the download route can address: two safe segments, as the runner writes them. */
const servable = (name: string) => {
  const parts = name.split('/');
  return parts.length === 2 && RunArtifactParams.pick({ folder: true, file: true }).safeParse({ folder: parts[0], file: parts[1] }).success;
};

const IdParams = z.strictObject({ id: z.string().min(1).max(200).describe('Run id (or thread id)') });

/**
 * A run's artifacts over HTTP: the list its results name, and each one's bytes — above all
 * the Playwright trace of a failed UI test, which otherwise only its key pointed at. Only
 * keys under the run's own folder are served (results recorded from outside may name
 * URLs or paths of their own: those are not ours to serve).
 */
export function runArtifactRoutes(app: Hono<ApiEnv>, deps: RunGraphAppDeps, registry: RouteDef[]) {
  const blobsOf = (): Blobs => {
    if (!deps.blobs) throw new AppError('NOT_CONFIGURED', 'this server has no blob store, so it keeps no run artifacts');
    return deps.blobs;
  };

  /** The run's artifacts that live under its folder, with their names within it. */
  async function artifactsOf(access: OrganizationAccess, id: string) {
    const { run, threadId } = await runGraphOf(deps).runs.resolve(access.organizationId, id);
    const prefix = runArtifactPrefix(threadId);
    const summary = await runSummaryOf(deps.store, access.organizationId, run);
    const refs = runArtifactsOf(summary)
      .filter((a) => a.key.startsWith(prefix))
      .map((a) => ({ ...a, name: a.key.slice(prefix.length) }))
      .filter((a) => servable(a.name));
    return { run, prefix, refs };
  }

  for (const base of ['/api/runs', '/api/v1/runs']) {
    mountRoute(app, deps, registry, {
      method: 'get', path: `${base}/:id/artifacts`, summary: "A run's artifacts: traces, screenshots and visual images its results name, each with a download URL", tags: ['runs'], auth: 'viewer', params: IdParams,
      responses: { 200: { description: 'the artifacts', schema: RunArtifactListSchema }, 404: { description: 'no such run' }, 501: { description: 'no blob store on this server' } },
    }, async ({ c, params, access }) => {
      const blobs = blobsOf();
      const { run, prefix, refs } = await artifactsOf(access, params.id);
      // One listing of the run's folder says which are still stored (retention deletes them).
      const stored = refs.length ? new Set((await blobs.listModified(prefix)).map((e) => e.key)) : new Set<string>();
      const items = refs.map((a) => ({
        name: a.name, kind: a.kind, test_id: a.test_id, test_name: a.test_name,
        content_type: artifactContentType(a.name),
        available: stored.has(a.key),
        url: `${base}/${encodeURIComponent(run.id)}/artifacts/${a.name}`,
      }));
      return c.json({ run_id: run.id, items });
    });

    mountRoute(app, deps, registry, {
      method: 'get', path: `${base}/:id/artifacts/:folder/:file`, summary: "Download one of a run's artifacts (a trace zip opens in Playwright's trace viewer)", tags: ['runs'], auth: 'viewer', params: RunArtifactParams,
      responses: {
        200: { description: 'the bytes: application/zip for a trace (attachment), image/png for an image' },
        404: { description: 'no such run, the run names no such artifact, or it is no longer stored' },
        501: { description: 'no blob store on this server' },
      },
    }, async ({ c, params, access }) => {
      const blobs = blobsOf();
      const { run, refs } = await artifactsOf(access, params.id);
      const name = `${params.folder}/${params.file}`;
      const ref = refs.find((a) => a.name === name);
      if (!ref) throw new AppError('NOT_FOUND', `run ${run.id} has no artifact ${name} (GET ${base}/${run.id}/artifacts lists them)`);
      const blob = await blobs.get(ref.key);
      if (!blob) throw new AppError('NOT_FOUND', `artifact ${name} of run ${run.id} is no longer stored (deleted by the artifact retention, SVC_RUN_ARTIFACT_RETENTION_DAYS)`);
      const type = artifactContentType(name);
      const filename = `${params.folder}-${params.file}`;
      return c.body(blob.body as Uint8Array<ArrayBuffer>, 200, {
        'content-type': type,
        'content-disposition': `${type.startsWith('image/') ? 'inline' : 'attachment'}; filename="${filename}"`,
        'cache-control': 'private, max-age=3600',
      });
    });
  }
}
