import type { Hono } from 'hono';
import { notFound } from '@svc/core/errors';
import { ActivityQuery, ActivityResponse, FailureClustersQuery, FailureClustersResponse } from '@svc/core/contracts/failure-clusters';
import { activityPage, listActivity } from '@svc/core/events/api-consumer';
import { forEachLimited } from '@svc/core/concurrency';
import { listFailureClusters } from '@svc/core/events/failure-clusters';
import { DEFAULT_CLUSTER_THRESHOLD, DEFAULT_CLUSTER_WINDOW_MS } from '@svc/core/events/stream-analytics';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';

/** Organization entries read to find a project's older ones (recorded before projects had their own feed). */
const LEGACY_SCAN = 1000;

/** Test names looked up at a time: a cluster names up to 100 tests. */
const NAME_LOOKUPS_AT_ONCE = 8;

/**
 * What the event consumers keep, for people (docs/events.md "What people can read"): the
 * organization's activity (the API consumer's feed) and a project's failure clusters
 * (stream analytics: tests failing the same way in one 15-minute window). Read-only; viewers may
 * look. Both are kept 30 days.
 */
export function activityRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const projectOf = async (orgId: string, projectId: string) => {
    if (!(await deps.store.projects.get(orgId, projectId))) throw notFound('project');
  };

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/analytics/failure-clusters', summary: 'Failure clusters of a project: tests that failed the same way (one error signature) in one 15-minute window (:00, :15, :30, :45), newest first', tags: ['insights'], auth: 'viewer', query: FailureClustersQuery,
    responses: { 200: { description: 'clusters', schema: FailureClustersResponse }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, query, access }) => {
    const orgId = access.organizationId;
    await projectOf(orgId, query.project_id);
    const nameOf = async (ids: string[]) => {
      const names = new Map<string, string>();
      await forEachLimited(ids, NAME_LOOKUPS_AT_ONCE, async (id) => {
        const test = await deps.store.tests.get(orgId, id);
        if (test) names.set(id, test.name);
      });
      return names;
    };
    const items = await listFailureClusters(deps.store.table, orgId, query.project_id, query.limit, nameOf);
    return c.json({ project_id: query.project_id, threshold: DEFAULT_CLUSTER_THRESHOLD, window_minutes: DEFAULT_CLUSTER_WINDOW_MS / 60_000, items });
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/activity', summary: "The organization's activity, newest first: tests created and failed, heals, failure clusters, codebases analysed", tags: ['insights'], auth: 'viewer', query: ActivityQuery,
    responses: { 200: { description: 'activity, a page at a time (next_cursor)', schema: ActivityResponse }, 400: { description: 'a bad limit or cursor (named)' }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, query, access }) => {
    const orgId = access.organizationId;
    const table = { table: deps.store.table };
    if (query.project_id) await projectOf(orgId, query.project_id);
    const page = await activityPage(table, orgId, { limit: query.limit, projectId: query.project_id, cursor: query.cursor });
    if (!query.project_id || query.cursor !== undefined || page.next_cursor !== null || page.items.length === query.limit) return c.json(page);
    // The project's own feed ended within its first page. Entries recorded before projects had
    // their own feed are only in the organization's: its newest part fills in (they expire
    // within 30 days, and with them this fallback's use), and that first page is the last.
    const seen = new Set(page.items.map((a) => a.event_id));
    const older = (await listActivity(table, orgId, LEGACY_SCAN)).filter((a) => (a.refs as Record<string, string> | undefined)?.project_id === query.project_id && !seen.has(a.event_id));
    const items = [...page.items, ...older].sort((a, b) => String(b.occurred_at).localeCompare(String(a.occurred_at)));
    return c.json({ items: items.slice(0, query.limit), next_cursor: null });
  });
}
