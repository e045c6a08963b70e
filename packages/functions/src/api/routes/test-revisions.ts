import { z } from 'zod';
import type { Hono } from 'hono';
import { TestSchema } from '@svc/core/contracts/test';
import { NamedRevision, NamedRevisionSummary, TestRevisionListQuery, TestRevisionParams } from '@svc/core/contracts/test-revision';
import { authorNames } from '@svc/core/store/author-name';
import { listResponse } from '@svc/core/contracts/common';
import { AppError, conflict, notFound, type FieldIssue } from '@svc/core/errors';
import { flowService } from '@svc/core/services/flows';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { actorOf } from '../actor.ts';
import { ETAG_HEADER, IF_MATCH_HEADER, expectedRevision, revisionEtag } from '../if-match.ts';

const IdParams = z.strictObject({ id: z.uuid().describe('Test id') });
const missing = { description: 'no such test in this organization, or no such revision of it (the newest 100 are kept)' };

/** A test's history: the revisions every definition change writes (docs/test-revisions.md). */
export function testRevisionRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const { store } = deps;

  /**
   * An old revision's `use` steps are checked against the project's flows as they are now,
   * as a PATCH's would be: one naming a flow deleted or changed since would only fail at
   * run time. A conflict with the present (409), not a malformed request.
   */
  async function checkFlowsStillFit(orgId: string, testId: string, revisionNumber: number) {
    const [test, revision] = await Promise.all([store.tests.get(orgId, testId), store.tests.revisions.get(orgId, testId, revisionNumber)]);
    if (!test || !revision) return; // the restore answers 404
    try {
      await flowService({ store }).checkUses(orgId, test.project_id, revision.definition.steps);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_FAILED') throw err;
      const issues = (err.details as { issues: FieldIssue[] }).issues;
      throw conflict(`revision ${revisionNumber} cannot be restored: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues });
    }
  }

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/tests/:id/revisions', summary: 'Revisions, newest first', tags: ['tests'], auth: 'viewer', params: IdParams, query: TestRevisionListQuery,
    responses: { 200: { description: 'revisions', schema: listResponse(NamedRevisionSummary) }, 404: { description: 'no such test in this organization' } },
  }, async ({ c, params, query, access }) => {
    if (!(await store.tests.get(access.organizationId, params.id))) throw notFound('test');
    const page = await store.tests.revisions.list(access.organizationId, params.id, { limit: query.limit, cursor: query.cursor });
    const names = await authorNames(store.table, access.organizationId, page.items.map((r) => r.changed_by));
    return c.json({ ...page, items: page.items.map((r) => ({ ...r, changed_by_name: names.get(r.changed_by)! })) });
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/tests/:id/revisions/:revision', summary: 'Get one revision of a test with the definition it kept', tags: ['tests'], auth: 'viewer', params: TestRevisionParams,
    responses: { 200: { description: 'the revision', schema: NamedRevision }, 404: missing },
  }, async ({ c, params, access }) => {
    if (!(await store.tests.get(access.organizationId, params.id))) throw notFound('test');
    const revision = await store.tests.revisions.get(access.organizationId, params.id, params.revision);
    if (!revision) throw notFound(`revision ${params.revision} of the test`);
    const names = await authorNames(store.table, access.organizationId, [revision.changed_by]);
    return c.json({ ...revision, changed_by_name: names.get(revision.changed_by)! });
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/tests/:id/revisions/:revision/restore', summary: 'Restore a revision', tags: ['tests'], auth: 'member', params: TestRevisionParams, headers: [IF_MATCH_HEADER],
    responses: {
      200: { description: 'the test as restored (ETag: its new revision); unchanged when it already had that definition', schema: TestSchema, headers: ETAG_HEADER },
      404: missing,
      409: { description: 'the revision uses a flow that no longer exists or no longer takes the parameters it gives (details.issues name steps.N.flow / steps.N.with.<param>)' },
      412: { description: 'the test is no longer at the revision in If-Match' },
    },
  }, async ({ c, params, access, principal }) => {
    // If-Match only: a restore has no body (kept out of the MCP tool's schema, whose list has a size budget).
    const expected = expectedRevision(c, undefined);
    await checkFlowsStillFit(access.organizationId, params.id, params.revision);
    const test = await store.tests.restore(access.organizationId, params.id, params.revision, { changed_by: actorOf(principal) }, expected);
    if (!test) throw notFound('test');
    c.set('audit', { action: 'test.restore', resource: `test:${test.id}`, metadata: { restored_from: params.revision, revision: test.revision, project_id: test.project_id } });
    c.header('ETag', revisionEtag(test.revision));
    return c.json(test);
  });
}
