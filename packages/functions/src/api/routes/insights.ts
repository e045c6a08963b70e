import type { Hono } from 'hono';
import {
  CostBreakdownQuery,
  CostBreakdownResponse,
  CoverageGapsQuery,
  CoverageGapsResponse,
  CoverageMapResponse,
  CoverageQuery,
  FlakyRankingQuery,
  FlakyRankingResponse,
  HeatmapQuery,
  HeatmapResponse,
  InsightWindowQuery,
  QualityScoreResponse,
  TimelineResponse,
} from '@svc/core/contracts/insights';
import { insightsService } from '@svc/core/services/insights';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';

const noProject = { 404: { description: 'no such project in this organization' } };

/**
 * Analytics and quality insights (spec: analytics, coverage and quality paths), computed
 * from the project's stored runs over a window of its latest finished runs. Read-only;
 * viewers may look.
 */
export function insightsRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const insights = insightsService({ store: deps.store, clock: deps.clock, blobs: deps.blobs });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/quality/flaky-ranking', summary: 'Flaky tests of a project, most flaky first, with their pass/fail history', tags: ['insights'], auth: 'viewer', query: FlakyRankingQuery,
    responses: { 200: { description: 'ranking', schema: FlakyRankingResponse }, ...noProject },
  }, async ({ c, query, access }) => c.json(await insights.flakyRanking(access.organizationId, query)));

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/analytics/heatmap', summary: 'Failure heatmap: failures by test and by day or run', tags: ['insights'], auth: 'viewer', query: HeatmapQuery,
    responses: { 200: { description: 'heatmap', schema: HeatmapResponse }, ...noProject },
  }, async ({ c, query, access }) => c.json(await insights.heatmap(access.organizationId, query)));

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/analytics/timeline', summary: 'Execution timeline: the runs of a project with their counts and durations, and the same by day', tags: ['insights'], auth: 'viewer', query: InsightWindowQuery,
    responses: { 200: { description: 'timeline', schema: TimelineResponse }, ...noProject },
  }, async ({ c, query, access }) => c.json(await insights.timeline(access.organizationId, query)));

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/coverage/map', summary: 'Coverage map: the pages discovery found, each with the tests that go there and whether they pass; the endpoints API tests call', tags: ['insights'], auth: 'viewer', query: CoverageQuery,
    responses: { 200: { description: 'map', schema: CoverageMapResponse }, 404: { description: 'no such project, or discovery session of it, in this organization' } },
  }, async ({ c, query, access }) => c.json(await insights.coverageMap(access.organizationId, query)));

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/coverage/gaps', summary: 'Untested pages, riskiest first, with a suggested test for each', tags: ['insights'], auth: 'viewer', query: CoverageGapsQuery,
    responses: { 200: { description: 'gaps', schema: CoverageGapsResponse }, 404: { description: 'no such project, or discovery session of it, in this organization' } },
  }, async ({ c, query, access }) => c.json(await insights.coverageGaps(access.organizationId, query)));

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/quality/score', summary: 'Quality score of a project (0..100, grade A-F): pass rate, stability, coverage and maintenance, with what costs it most', tags: ['insights'], auth: 'viewer', query: CoverageQuery,
    responses: { 200: { description: 'score', schema: QualityScoreResponse }, 404: { description: 'no such project, or discovery session of it, in this organization' } },
  }, async ({ c, query, access }) => c.json(await insights.qualityScore(access.organizationId, query)));

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/cost/breakdown', summary: 'Model spend by day, model, task and run, of the organization or of one project', tags: ['insights'], auth: 'viewer', query: CostBreakdownQuery,
    responses: { 200: { description: 'breakdown', schema: CostBreakdownResponse }, ...noProject },
  }, async ({ c, query, access }) => c.json(await insights.costBreakdown(access.organizationId, query)));
}
