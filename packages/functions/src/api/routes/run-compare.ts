import type { Hono } from 'hono';
import { z } from 'zod';
import { RunCompareQuery, RunCompareSchema } from '@svc/core/contracts/run-compare';
import { runComparisonOf } from '@svc/core/reporting/run-compare-source';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { runGraphOf, type RunGraphAppDeps } from './runs.ts';

const IdParams = z.strictObject({ id: z.string().min(1).max(200).describe('Run id (or thread id)') });

/**
 * A run compared with a base run, case by case: the CI question of a red run — did this
 * change break it, or was it already broken? The base is named with `?base=` or follows
 * the run's source (a pull request's target branch, a branch's previous run), else is the
 * project's latest finished run before this one; `base_rule` says which (docs/run-compare.md).
 */
export function runCompareRoutes(app: Hono<ApiEnv>, deps: RunGraphAppDeps, registry: RouteDef[]) {
  for (const base of ['/api/runs', '/api/v1/runs']) {
    mountRoute(app, deps, registry, {
      method: 'get', path: `${base}/:id/compare`, summary: 'A run against a base run: new failures, fixed, still failing, new and removed tests, much slower cases', tags: ['runs'], auth: 'viewer', params: IdParams, query: RunCompareQuery,
      responses: {
        200: { description: 'the comparison (partial: true while either run goes)', schema: RunCompareSchema },
        400: { description: 'base is not a run id, or is a run of another project' },
        404: { description: 'no such run, or no such base run' },
      },
    }, async ({ c, params, query, access }) => {
      const { run } = await runGraphOf(deps).runs.resolve(access.organizationId, params.id);
      return c.json(await runComparisonOf(deps.store, access.organizationId, run, query.base));
    });
  }
}
