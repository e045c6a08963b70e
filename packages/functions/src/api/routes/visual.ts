import { z } from 'zod';
import type { Context, Hono } from 'hono';
import { listResponse } from '@svc/core/contracts/common';
import { ScreenshotHash, VisualBaselineAcceptInput, VisualBaselineQuery, VisualBaselineRecordSchema } from '@svc/core/contracts/visual-baseline';
import { VisualCompareInput, VisualCompareResponse } from '@svc/core/contracts/visual-compare';
import { notFound } from '@svc/core/errors';
import { visualBaselineService } from '@svc/core/services/visual-baselines';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { actorOf } from '../actor.ts';
import { mountRoute, type RouteDef } from '../route.ts';

const IdParams = z.strictObject({ id: z.uuid().describe('Visual baseline id') });
const HashParams = z.strictObject({ hash: ScreenshotHash });
const noBlobs = { 501: { description: 'no blob store is configured on this server' } };

/**
 * Visual baselines of server runs (visual_baselines; images in Blobs) and image
 * comparison. A run records a missing baseline itself and keeps a differing screenshot as
 * a proposal; these routes list and remove baselines, accept a proposal (or an upload) and
 * serve the images. Everything is scoped to the caller's organization.
 */
export function visualRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const { store } = deps;
  const visual = visualBaselineService({ store, clock: deps.clock, blobs: deps.blobs });
  const png = (c: Context<ApiEnv>, bytes: Uint8Array, cache: string) => c.body(bytes as Uint8Array<ArrayBuffer>, 200, { 'content-type': 'image/png', 'cache-control': cache });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/visual/baselines', summary: 'List visual baselines, of a test or a project', tags: ['visual'], auth: 'viewer', query: VisualBaselineQuery,
    responses: { 200: { description: 'baselines', schema: listResponse(VisualBaselineRecordSchema) }, 404: { description: 'no such test or project in this organization' } },
  }, async ({ c, query, access }) => {
    if (query.test_id && !(await store.tests.get(access.organizationId, query.test_id))) throw notFound('test');
    if (query.project_id && !(await store.projects.get(access.organizationId, query.project_id))) throw notFound('project');
    const page = await store.visualBaselines.list(access.organizationId, query);
    return c.json({ items: page.items.map((b) => VisualBaselineRecordSchema.parse(b)), next_cursor: page.next_cursor });
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/visual/baselines/:id', summary: 'Get a visual baseline', tags: ['visual'], auth: 'viewer', params: IdParams,
    responses: { 200: { description: 'baseline', schema: VisualBaselineRecordSchema }, 404: { description: 'no such baseline in this organization' } },
  }, async ({ c, params, access }) => {
    const record = await store.visualBaselines.get(access.organizationId, params.id);
    if (!record) throw notFound('visual baseline');
    return c.json(VisualBaselineRecordSchema.parse(record));
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/visual/baselines/:id/image', summary: 'The image of a visual baseline (image/png)', tags: ['visual'], auth: 'viewer', params: IdParams,
    responses: { 200: { description: 'the PNG image' }, 404: { description: 'no such baseline in this organization, or its image is gone' }, ...noBlobs },
  }, async ({ c, params, access }) => {
    const { png: bytes } = await visual.baselineImage(access.organizationId, params.id);
    // The image behind an id changes when the baseline is replaced.
    return png(c, bytes, 'private, no-cache');
  });

  mountRoute(app, deps, registry, {
    method: 'delete', path: '/api/visual/baselines/:id', summary: 'Delete a visual baseline: the next run records a new one', tags: ['visual'], auth: 'member', params: IdParams,
    responses: { 204: { description: 'deleted' }, 404: { description: 'no such baseline in this organization' } },
  }, async ({ c, params, access }) => {
    const record = await store.visualBaselines.delete(access.organizationId, params.id);
    if (!record) throw notFound('visual baseline');
    c.set('audit', { action: 'visual.baseline_deleted', resource: `visual_baseline:${record.id}`, metadata: { test_id: record.test_id, name: record.name, screenshot_hash: record.screenshot_hash } });
    return c.body(null, 204);
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/visual/baselines', summary: 'Accept a screenshot as a test\'s visual baseline: a run\'s proposed_hash, or an uploaded PNG', tags: ['visual'], auth: 'member', body: VisualBaselineAcceptInput,
    responses: {
      201: { description: 'the baseline as now recorded (created, or its image replaced)', schema: VisualBaselineRecordSchema },
      400: { description: 'the body is invalid or image is not a PNG' },
      404: { description: 'no such test, or no screenshot with that hash, in this organization' },
      ...noBlobs,
    },
  }, async ({ c, body, access, principal }) => {
    const { record, source } = await visual.accept(access.organizationId, body, actorOf(principal));
    c.set('audit', { action: 'visual.baseline_accepted', resource: `visual_baseline:${record.id}`, metadata: { test_id: record.test_id, name: record.name, screenshot_hash: record.screenshot_hash, source } });
    return c.json(VisualBaselineRecordSchema.parse(record), 201);
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/visual/images/:hash', summary: 'A screenshot by hash (image/png): an accepted baseline, or one a run proposed', tags: ['visual'], auth: 'viewer', params: HashParams,
    responses: { 200: { description: 'the PNG image' }, 404: { description: 'no image with this hash in this organization' }, ...noBlobs },
  }, async ({ c, params, access }) => {
    const found = await visual.image(access.organizationId, params.hash);
    if (!found) throw notFound('image');
    // Content-addressed: the bytes behind a hash never change.
    return png(c, found.png, 'private, max-age=31536000, immutable');
  });

  // The spec names both paths; one handler.
  for (const path of ['/api/visual/compare', '/api/v1/visual/compare']) {
    mountRoute(app, deps, registry, {
      method: 'post', path, summary: 'Compare two screenshots pixel by pixel (as a visual assertion does)', tags: ['visual'], auth: 'viewer', body: VisualCompareInput,
      responses: {
        200: { description: 'the comparison', schema: VisualCompareResponse },
        400: { description: 'an image is not valid base64 or not a PNG (the error names baseline or actual)' },
        404: { description: 'no such baseline or screenshot in this organization' },
        ...noBlobs,
      },
    }, async ({ c, body, access }) => c.json(await visual.compare(access.organizationId, body)));
  }
}
