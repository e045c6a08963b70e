import { z } from 'zod';
import type { Hono } from 'hono';
import { listResponse } from '@svc/core/contracts/common';
import { ScheduleCreateInput, ScheduleListQuery, ScheduleSchema, ScheduleUpdateInput } from '@svc/core/contracts/schedule';
import { TestRunSchema } from '@svc/core/contracts/test-run';
import { notFound } from '@svc/core/errors';
import { scheduleService } from '@svc/core/services/schedules';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { runGraphOf, userOf } from './runs.ts';
import { scheduledRunStarter } from '../../run-graph/scheduled-runs.ts';

const IdParams = z.strictObject({ id: z.uuid().describe('Schedule id') });
const RunNowResponse = z.object({ run: TestRunSchema, schedule: ScheduleSchema });

/**
 * Scheduled runs (test_schedules): a project's tests run when a cron expression says.
 * The sweeper that starts due runs is not a route: the local runtime ticks it, and on AWS
 * a per-minute schedule calls it (docs/schedules.md).
 */
export function scheduleRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const schedules = scheduleService({ store: deps.store, clock: deps.clock });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/schedules', summary: 'List schedules, of the organization or one project, newest first', tags: ['schedules'], auth: 'viewer', query: ScheduleListQuery,
    responses: { 200: { description: 'schedules', schema: listResponse(ScheduleSchema) }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, query, access }) => {
    if (query.project_id && !(await deps.store.projects.get(access.organizationId, query.project_id))) throw notFound('project');
    const page = await deps.store.schedules.list(access.organizationId, { projectId: query.project_id, limit: query.limit, cursor: query.cursor });
    return c.json({ items: page.items, next_cursor: page.next_cursor });
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/schedules', summary: 'Schedule a project\'s tests: a cron expression in a time zone', tags: ['schedules'], auth: 'member', body: ScheduleCreateInput,
    responses: { 201: { description: 'created', schema: ScheduleSchema }, 400: { description: 'invalid body: a bad cron expression or time zone, a test of another project' }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, body, access, principal }) => {
    const schedule = await schedules.create(access.organizationId, body, userOf(principal));
    c.set('audit', { action: 'schedule.create', resource: `schedule:${schedule.id}`, metadata: { project_id: schedule.project_id, cron: schedule.cron, timezone: schedule.timezone } });
    return c.json(schedule, 201);
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/schedules/:id', summary: 'Get a schedule, with its next run and its latest runs', tags: ['schedules'], auth: 'viewer', params: IdParams,
    responses: { 200: { description: 'schedule', schema: ScheduleSchema }, 404: { description: 'no such schedule in this organization' } },
  }, async ({ c, params, access }) => c.json(await schedules.get(access.organizationId, params.id)));

  mountRoute(app, deps, registry, {
    method: 'patch', path: '/api/schedules/:id', summary: 'Change a schedule; a new cron, time zone or enabled moves its next run', tags: ['schedules'], auth: 'member', params: IdParams, body: ScheduleUpdateInput,
    responses: { 200: { description: 'the schedule as changed', schema: ScheduleSchema }, 404: { description: 'no such schedule in this organization' } },
  }, async ({ c, params, body, access }) => {
    const schedule = await schedules.update(access.organizationId, params.id, body);
    c.set('audit', { action: 'schedule.update', resource: `schedule:${schedule.id}`, metadata: { fields: Object.keys(body).sort() } });
    return c.json(schedule);
  });

  mountRoute(app, deps, registry, {
    method: 'delete', path: '/api/schedules/:id', summary: 'Delete a schedule (its runs stay)', tags: ['schedules'], auth: 'member', params: IdParams,
    responses: { 204: { description: 'deleted' }, 404: { description: 'no such schedule in this organization' } },
  }, async ({ c, params, access }) => {
    const schedule = await schedules.delete(access.organizationId, params.id);
    c.set('audit', { action: 'schedule.delete', resource: `schedule:${schedule.id}`, metadata: { name: schedule.name, project_id: schedule.project_id } });
    return c.body(null, 204);
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/schedules/:id/run', summary: 'Run a schedule now (its next run stays as it was)', tags: ['schedules'], auth: 'member', params: IdParams,
    responses: { 201: { description: 'the run started, and the schedule', schema: RunNowResponse }, 400: { description: 'nothing to run: the project has no tests (with its tags)' }, 404: { description: 'no such schedule in this organization' } },
  }, async ({ c, params, access }) => {
    const { run, schedule } = await schedules.runNow(access.organizationId, params.id, scheduledRunStarter(runGraphOf(deps)));
    c.set('audit', { action: 'schedule.run', resource: `schedule:${schedule.id}`, metadata: { run_id: run.id } });
    return c.json({ run: TestRunSchema.parse(run), schedule }, 201);
  });
}
