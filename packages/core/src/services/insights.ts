import { notFound } from '../errors.ts';
import type { Clock } from '../ports/clock.ts';
import type { Store } from '../store/index.ts';
import type { CostBreakdownQuery, CoverageGapsQuery, CoverageQuery, FlakyRankingQuery, HeatmapQuery, InsightWindowQuery } from '../contracts/insights.ts';
import { loadRunHistory, projectTests, withBaselineChanges } from '../insights/history.ts';
import { flakyRanking } from '../insights/flakiness.ts';
import { failureHeatmap } from '../insights/heatmap.ts';
import { executionTimeline } from '../insights/timeline.ts';
import { coverageGaps, coverageMap } from '../insights/coverage.ts';
import { codeCoverage } from '../insights/code-coverage.ts';
import { latestKnowledge } from '../knowledge/latest-knowledge.ts';
import type { Blobs } from '../ports/blobs.ts';
import { qualityScore } from '../insights/quality-score.ts';
import { costBreakdown } from '../insights/cost.ts';

export interface InsightsServiceDeps {
  store: Store;
  clock: Clock;
  /** Where the knowledge worker keeps analyses; absent → the coverage map has no code side. */
  blobs?: Blobs;
}

/** Every ranking reads all of a project's tests; a flaky list needs no limit of its own here. */
const ALL = Number.MAX_SAFE_INTEGER;

/**
 * Analytics and quality insights of a project, computed from its stored runs when asked
 * (docs/insights.md). Every call first checks that the project is the organization's: a
 * project of another organization is a 404 like one that does not exist.
 */
export function insightsService({ store, clock, blobs }: InsightsServiceDeps) {
  async function projectOf(orgId: string, projectId: string) {
    const project = await store.projects.get(orgId, projectId);
    if (!project) throw notFound('project');
    return project;
  }

  async function windowOf(orgId: string, q: InsightWindowQuery) {
    await projectOf(orgId, q.project_id);
    const [history, tests] = await Promise.all([loadRunHistory(store, orgId, q.project_id, q), projectTests(store, orgId, q.project_id)]);
    return { history, tests };
  }

  /** The pages of the session asked for (it must be this project's), or of the project's latest completed one. */
  async function discoveredPages(orgId: string, projectId: string, sessionId: string | undefined) {
    let session;
    if (sessionId) {
      session = await store.discovery.getSession(orgId, sessionId);
      if (!session || session.project_id !== projectId) throw notFound('discovery session');
    } else {
      let cursor: string | undefined;
      do {
        const page = await store.discovery.listForProject(projectId, 20, cursor);
        session = page.items.find((s) => s.status === 'completed');
        cursor = session ? undefined : (page.next_cursor ?? undefined);
      } while (cursor);
    }
    return { sessionId: session?.id ?? null, pages: session ? await store.discovery.allPages(orgId, session.id) : [] };
  }

  /** The coverage map, with the code's side when the project has an analysed codebase. */
  async function mapOf(orgId: string, q: CoverageQuery) {
    const project = await projectOf(orgId, q.project_id);
    const [history, tests, discovered, known] = await Promise.all([
      loadRunHistory(store, orgId, q.project_id, q), projectTests(store, orgId, q.project_id), discoveredPages(orgId, q.project_id, q.discovery_session_id),
      blobs ? latestKnowledge(store, blobs, orgId, q.project_id) : undefined,
    ]);
    const code = known ? codeCoverage({ ingestion: known.ingestion, surfaces: known.analysis.surfaces, tests, history, appUrl: project.app_url }) : null;
    const map = coverageMap({ projectId: q.project_id, appUrl: project.app_url, discoverySessionId: discovered.sessionId, pages: discovered.pages, tests, history, code });
    return { map, history, tests };
  }

  return {
    async flakyRanking(orgId: string, q: FlakyRankingQuery) {
      const { history, tests } = await windowOf(orgId, q);
      return flakyRanking(q.project_id, history, await withBaselineChanges(store, orgId, q.project_id, tests), q.limit);
    },

    async heatmap(orgId: string, q: HeatmapQuery) {
      const { history, tests } = await windowOf(orgId, q);
      return failureHeatmap(q.project_id, history, tests, q.bucket, q.limit);
    },

    async timeline(orgId: string, q: InsightWindowQuery) {
      await projectOf(orgId, q.project_id);
      return executionTimeline(q.project_id, await loadRunHistory(store, orgId, q.project_id, q));
    },

    async coverageMap(orgId: string, q: CoverageQuery) {
      return (await mapOf(orgId, q)).map;
    },

    async coverageGaps(orgId: string, q: CoverageGapsQuery) {
      return coverageGaps((await mapOf(orgId, q)).map, q.limit);
    },

    async qualityScore(orgId: string, q: CoverageQuery) {
      const { map, history, tests } = await mapOf(orgId, q);
      return qualityScore(q.project_id, history, flakyRanking(q.project_id, history, await withBaselineChanges(store, orgId, q.project_id, tests), ALL), map, clock.now());
    },

    async costBreakdown(orgId: string, q: CostBreakdownQuery) {
      if (q.project_id) await projectOf(orgId, q.project_id);
      return costBreakdown(store, orgId, { projectId: q.project_id, days: q.days, now: clock.now() });
    },
  };
}
