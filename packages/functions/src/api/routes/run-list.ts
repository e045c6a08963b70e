import type { Hono } from 'hono';
import { notFound } from '@svc/core/errors';
import { listResponse } from '@svc/core/contracts/common';
import { TestRunListItemSchema, TestRunListQuery } from '@svc/core/contracts/test-run';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';

/**
 * A project's runs, newest first (GET /api/runs, and /api/v1/runs as the spec's versioned
 * family): what an agent or a script needs to find "the last run" or "the failed runs of
 * this week" without keeping run ids itself. An item is the run without its test plan.
 * `status` and `trigger` filter within a page (as the test list does): a page may be
 * shorter than `limit` while next_cursor says there is more.
 */
export function runListRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  for (const base of ['/api/runs', '/api/v1/runs']) {
    mountRoute(app, deps, registry, {
      method: 'get', path: base, summary: "A project's runs, newest first", tags: ['runs'], auth: 'viewer', query: TestRunListQuery,
      responses: { 200: { description: 'runs', schema: listResponse(TestRunListItemSchema) }, 404: { description: 'no such project in this organization' } },
    }, async ({ c, query, access }) => {
      if (!(await deps.store.projects.get(access.organizationId, query.project_id))) throw notFound('project');
      const page = await deps.store.testRuns.listForProject(query.project_id, query.limit, query.cursor);
      const items = page.items
        .filter((r) => (!query.status || r.status === query.status) && (!query.trigger || r.trigger === query.trigger))
        .map(({ test_plan: _plan, ...run }) => run);
      return c.json({ items, next_cursor: page.next_cursor });
    });
  }
}
