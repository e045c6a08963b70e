import { AppError, notFound, validationFailed } from '../errors.ts';
import type { Clock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';
import type { Store } from '../store/index.ts';
import { SCHEDULE_RECENT_RUNS, type Schedule, type ScheduleCreateInput, type ScheduleUpdateInput } from '../contracts/schedule.ts';
import { nextFire } from '../schedules/cron.ts';
import { projectTestsToRun } from './project-tests.ts';

/** What a schedule asks the run graph for. */
export interface ScheduledRunRequest {
  project_id: string;
  test_ids: string[];
  app_url?: string;
  /** `schedule-<id>-<slot ms>` for a due run: the run graph claims thread ids once, so a slot starts one run however many sweepers race. */
  thread_id?: string;
}

/** Starts a run (the run graph's start, with trigger "schedule"); returns its id. */
export type StartScheduledRun = (orgId: string, request: ScheduledRunRequest) => Promise<{ id: string }>;

export interface ScheduleServiceDeps {
  store: Store;
  clock: Clock;
}

/** Schedules swept per pass; the rest wait for the next pass (a minute at most). */
const SWEEP_LIMIT = 100;

/**
 * Scheduled runs: create, change, list and delete schedules, run one now, and the
 * sweeper that starts the runs that are due (docs/schedules.md).
 */
export function scheduleService({ store, clock }: ScheduleServiceDeps) {
  const nextOf = (s: Pick<Schedule, 'enabled' | 'cron' | 'timezone'>, after: Date) => (s.enabled ? (nextFire(s.cron, s.timezone, after)?.toISOString() ?? null) : null);

  /** The named tests must be this project's: another project's (or organization's) test is named by its position. */
  async function checkTests(orgId: string, projectId: string, testIds: string[] | undefined | null) {
    if (!testIds) return;
    const found = await Promise.all(testIds.map((id) => store.tests.get(orgId, id)));
    const bad = found.findIndex((t) => !t || t.project_id !== projectId);
    if (bad >= 0) throw validationFailed([{ path: `test_ids.${bad}`, message: `no test ${testIds[bad]} in this project` }]);
  }

  const remember = (s: Schedule, runId: string, slot: string, now: Date) => [{ run_id: runId, slot, started_at: now.toISOString() }, ...s.recent_runs].slice(0, SCHEDULE_RECENT_RUNS);

  async function start(orgId: string, s: Schedule, startRun: StartScheduledRun, threadId?: string): Promise<{ id: string }> {
    const testIds = s.test_ids ?? (await projectTestsToRun(store, orgId, s.project_id, s.tags));
    return startRun(orgId, { project_id: s.project_id, test_ids: testIds, ...(s.app_url ? { app_url: s.app_url } : {}), ...(threadId ? { thread_id: threadId } : {}) });
  }

  return {
    async create(orgId: string, input: ScheduleCreateInput, createdBy: string | null): Promise<Schedule> {
      if (!(await store.projects.get(orgId, input.project_id))) throw notFound('project');
      await checkTests(orgId, input.project_id, input.test_ids);
      return store.schedules.create(orgId, {
        project_id: input.project_id,
        name: input.name,
        cron: input.cron,
        timezone: input.timezone,
        test_ids: input.test_ids ?? null,
        tags: input.tags,
        app_url: input.app_url ?? null,
        enabled: input.enabled,
        next_run_at: nextOf(input, clock.now()),
        created_by: createdBy,
      });
    },

    async get(orgId: string, id: string): Promise<Schedule> {
      const s = await store.schedules.get(orgId, id);
      if (!s) throw notFound('schedule');
      return s;
    },

    /** A change of cron, time zone or enabled moves the next run; the rest keep it. */
    async update(orgId: string, id: string, patch: ScheduleUpdateInput): Promise<Schedule> {
      const current = await this.get(orgId, id);
      await checkTests(orgId, current.project_id, patch.test_ids);
      const merged = { ...current, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) } as Schedule;
      const timing = patch.cron !== undefined || patch.timezone !== undefined || patch.enabled !== undefined;
      const updated = await store.schedules.update(orgId, id, { ...patch, ...(timing ? { next_run_at: nextOf(merged, clock.now()) } : {}) });
      if (!updated) throw notFound('schedule');
      return updated;
    },

    async delete(orgId: string, id: string): Promise<Schedule> {
      const s = await store.schedules.delete(orgId, id);
      if (!s) throw notFound('schedule');
      return s;
    },

    /** Runs a schedule now, outside its cron; its next run stays as it was. */
    async runNow(orgId: string, id: string, startRun: StartScheduledRun): Promise<{ run: { id: string }; schedule: Schedule }> {
      const s = await this.get(orgId, id);
      const now = clock.now();
      const run = await start(orgId, s, startRun);
      const schedule = (await store.schedules.update(orgId, id, { last_run_at: now.toISOString(), last_run_id: run.id, last_error: null, recent_runs: remember(s, run.id, now.toISOString(), now) })) ?? s;
      return { run, schedule };
    },

    /**
     * Starts every run that is due, once. For each due schedule: start its run under the
     * slot's thread id (a second sweeper's start of the same slot is refused by the run
     * graph), then move the schedule to its next slot after now, conditional on the slot
     * it was due at. A server that was down for hours starts one run for the slots it
     * missed, not one per slot. A run that cannot start (no tests, a project without an
     * app URL) is recorded as the schedule's last_error and the schedule moves on.
     */
    async sweep(startRun: StartScheduledRun, logger?: Logger): Promise<{ started: number; failed: number }> {
      const now = clock.now();
      let started = 0;
      let failed = 0;
      for (const due of await store.schedules.due(now, SWEEP_LIMIT)) {
        const s = await store.schedules.get(due.organizationId, due.id);
        if (!s || !s.enabled || s.next_run_at !== due.next_run_at) continue; // changed since the index was read
        if (!s.next_run_at || Date.parse(s.next_run_at) > now.getTime()) continue; // an index entry behind its record: not due yet
        const slot = s.next_run_at;
        const patch = { next_run_at: nextOf(s, now), last_run_at: now.toISOString() };
        const threadId = `schedule-${s.id}-${Date.parse(slot)}`;
        const moveOn = (runId: string) => store.schedules.update(due.organizationId, s.id, { ...patch, last_run_id: runId, last_error: null, recent_runs: remember(s, runId, slot, now) }, slot);
        try {
          const run = await start(due.organizationId, s, startRun, threadId);
          // This sweeper started the slot's run, so it counts it even when a racing sweeper,
          // refused the same thread, moved the schedule on (with this run) first.
          started++;
          await moveOn(run.id);
        } catch (err) {
          if (err instanceof AppError && err.code === 'CONFLICT') {
            // The slot's run exists: another sweeper is moving the schedule on, or a sweeper
            // stopped between starting the run and moving on. Either way, move on (once).
            const runId = await store.testRuns.runOfThread(threadId);
            if (runId) await moveOn(runId);
            continue;
          }
          failed++;
          const message = (err as Error).message;
          logger?.warn('a scheduled run could not start', { schedule_id: s.id, organization_id: due.organizationId, error: message });
          await store.schedules.update(due.organizationId, s.id, { ...patch, last_error: message }, slot);
        }
      }
      return { started, failed };
    },
  };
}
