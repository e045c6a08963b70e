import { z } from 'zod';
import type { Hono } from 'hono';
import { AppError, conflict, notFound, validationFailed } from '@svc/core/errors';
import { keptAnalysis, latestKnowledge } from '@svc/core/knowledge/latest-knowledge';
import { buildPlan, riskScore, type PlanInput } from '@svc/core/intelligence/planning/index';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';

const Surface = z.object({
  kind: z.string().min(1).max(50).describe('http_route, api_route, page, client_route or openapi_operation'),
  method: z.string().min(1).max(10).describe('HTTP method (GET for pages)'),
  path: z.string().min(1).max(2000).describe('Route path'),
  file: z.string().max(2000).optional().describe('Source file that declares it'),
  name: z.string().max(500).optional(),
});

const PlanBody = z.strictObject({
  surfaces: z.array(Surface).max(5000).optional().describe('Testable surfaces, e.g. from /api/analyze'),
  discovery_session_id: z.uuid().optional().describe('Use the pages and flows of this discovery session'),
  ingestion_id: z.uuid().optional().describe('Use the surfaces of this analysed codebase ingestion (POST /api/analyze with async)'),
  project_id: z.uuid().optional().describe("Use the surfaces of the project's latest analysed codebase (the knowledge worker's)"),
  diff: z.string().max(5_000_000).optional().describe("A unified diff (a PR's changes)"),
  changed_files: z.array(z.string().min(1).max(2000)).max(5000).optional().describe('Changed paths, when no diff is at hand'),
});
const RiskBody = PlanBody.extend({ target: z.string().min(1).max(2000).optional().describe('Score only targets containing this text (a path, URL or flow name)') });

const PlanItem = z.object({ target: z.string(), kind: z.string(), priority: z.enum(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW']), risk_score: z.number(), reasons: z.array(z.string()), suggested_test: z.string() });
const PlanResponse = z.object({ items: z.array(PlanItem), changed_files: z.array(z.string()), summary: z.record(z.string(), z.number()) });

/** Test planning: a prioritised plan and risk scores with reasons. */
export function planningRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const { store } = deps;

  async function inputOf(orgId: string, body: z.output<typeof PlanBody>): Promise<PlanInput> {
    if (!body.surfaces?.length && !body.discovery_session_id && !body.ingestion_id && !body.project_id && !body.diff && !body.changed_files?.length) {
      throw validationFailed([{ path: 'surfaces', message: 'give surfaces, discovery_session_id, ingestion_id, project_id, diff or changed_files' }]);
    }
    const known = await knownSurfaces(orgId, body);
    const input: PlanInput = { surfaces: body.surfaces || known ? [...(body.surfaces ?? []), ...(known ?? [])] : undefined, diff: body.diff, changed_files: body.changed_files };
    if (body.discovery_session_id) {
      const session = await store.discovery.getSession(orgId, body.discovery_session_id);
      if (!session) throw notFound('discovery session');
      input.pages = await store.discovery.allPages(orgId, session.id);
      input.flows = await store.discovery.listFlows(orgId, session.id);
    }
    return input;
  }

  /** The surfaces the knowledge worker found: of the ingestion named, or of the project's latest analysed one. */
  async function knownSurfaces(orgId: string, body: z.output<typeof PlanBody>) {
    if (!body.ingestion_id && !body.project_id) return undefined;
    if (!deps.blobs) throw new AppError('NOT_CONFIGURED', 'this server keeps no analyses (no artifact store)');
    let ingestion;
    if (body.ingestion_id) {
      ingestion = await store.codebaseIngestions.get(orgId, body.ingestion_id);
      if (!ingestion || (body.project_id && ingestion.project_id !== body.project_id)) throw notFound('codebase ingestion');
      if (ingestion.status !== 'analyzed') throw conflict(`codebase ingestion ${ingestion.id} is ${ingestion.status}${ingestion.error ? `: ${ingestion.error}` : ''}; plan with an analysed one`);
    } else {
      if (!(await store.projects.get(orgId, body.project_id!))) throw notFound('project');
    }
    const known = ingestion ? await keptAnalysis(deps.blobs, orgId, ingestion.id) : (await latestKnowledge(store, deps.blobs, orgId, body.project_id!))?.analysis;
    if (!known) throw validationFailed([{ path: body.ingestion_id ? 'ingestion_id' : 'project_id', message: body.ingestion_id ? 'its analysis is no longer kept' : 'the project has no analysed codebase: send one with POST /api/analyze and "async": true' }]);
    return known.surfaces;
  }

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/suggest', summary: 'A prioritised test plan (CRITICAL/HIGH/MEDIUM/LOW) with reasons', tags: ['planning'], auth: 'viewer', body: PlanBody,
    responses: { 200: { description: 'plan', schema: PlanResponse }, 404: { description: 'no such discovery session, ingestion or project' }, 409: { description: 'the ingestion named is not analysed (queued or failed)' } },
  }, async ({ c, body, access }) => c.json(buildPlan(await inputOf(access.organizationId, body))));

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/risk/score', summary: 'Risk score of the changes or of one target, with the reasons', tags: ['planning'], auth: 'viewer', body: RiskBody,
    responses: { 200: { description: 'score', schema: z.object({ score: z.number(), priority: z.string(), reasons: z.array(z.string()), items: z.array(PlanItem) }) }, 400: { description: 'nothing to score from, or a target that no surface, page or flow contains (the issue names target)' }, 404: { description: 'no such discovery session, ingestion or project' }, 409: { description: 'the ingestion named is not analysed' } },
  }, async ({ c, body, access }) => {
    const input = await inputOf(access.organizationId, body);
    const score = riskScore({ ...input, target: body.target });
    // A target that matches nothing has no score: answering the floor score (LOW, "nothing to score") read as "low risk" (found by QA).
    if (body.target !== undefined && score.items.length === 0) {
      const targets = buildPlan(input).items.map((i) => i.target);
      const known = targets.length ? `; the ${targets.length} target(s) scored include ${targets.slice(0, 5).map((t) => JSON.stringify(t)).join(', ')}` : '; there is nothing to match it against: give surfaces, discovery_session_id, ingestion_id or project_id';
      throw validationFailed([{ path: 'target', message: `no surface, page or flow contains ${JSON.stringify(body.target)}${known}` }]);
    }
    return c.json(score);
  });
}
