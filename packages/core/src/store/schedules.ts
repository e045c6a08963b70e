import type { Schedule } from '../contracts/schedule.ts';
import { ConditionFailedError, type Item } from '../ports/table.ts';
import { keys, stripLayout } from './keys.ts';
import { queryPage, type StoreContext } from './context.ts';

export type NewSchedule = Omit<Schedule, 'id' | 'last_run_at' | 'last_run_id' | 'last_error' | 'recent_runs' | 'created_at' | 'updated_at'>;
export type SchedulePatch = Partial<Pick<Schedule, 'name' | 'cron' | 'timezone' | 'test_ids' | 'tags' | 'app_url' | 'enabled' | 'next_run_at' | 'last_run_at' | 'last_run_id' | 'last_error' | 'recent_runs'>>;

/** A schedule due now, as the due index lists it. */
export interface DueSchedule {
  organizationId: string;
  id: string;
  next_run_at: string;
}

/** The due-index attributes of a schedule: present only while it is enabled and has a next run. */
function dueIndex(orgId: string, s: Pick<Schedule, 'id' | 'enabled' | 'next_run_at'>): { set: Record<string, string>; remove: string[] } {
  return s.enabled && s.next_run_at
    ? { set: { gsi2pk: keys.dueSchedules, gsi2sk: `${s.next_run_at}#${orgId}#${s.id}` }, remove: [] }
    : { set: {}, remove: ['gsi2pk', 'gsi2sk'] };
}

const fromItem = (item: Item): Schedule => {
  const { organization_id: _o, ...s } = stripLayout<Schedule & { organization_id: string }>(item);
  return s;
};

/**
 * test_schedules. A schedule lives in its organization's partition, is listed by project
 * on gsi1, and sits on gsi2 under one "due" partition keyed by its next run time while it
 * is enabled, so the sweeper finds every schedule due across organizations with one query.
 * Moving a schedule to its next slot is conditional on the slot it was due at: of two
 * sweepers racing, one moves it.
 */
export function schedulesRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    async create(orgId: string, input: NewSchedule): Promise<Schedule> {
      const now = ctx.clock.now().toISOString();
      const schedule: Schedule = { ...input, id: ctx.newId(), last_run_at: null, last_run_id: null, last_error: null, recent_runs: [], created_at: now, updated_at: now };
      await table.put(
        { ...keys.schedule(orgId, schedule.id), entity: 'schedule', organization_id: orgId, gsi1pk: keys.schedulesOfProject(schedule.project_id), gsi1sk: schedule.id, ...dueIndex(orgId, schedule).set, ...schedule },
        { kind: 'notExists' },
      );
      return schedule;
    },

    async get(orgId: string, id: string): Promise<Schedule | undefined> {
      const item = await table.get(keys.schedule(orgId, id));
      return item ? fromItem(item) : undefined;
    },

    async list(orgId: string, opts: { projectId?: string; limit: number; cursor?: string }) {
      const page = opts.projectId
        ? await queryPage<Schedule & { organization_id?: string }>(table, { index: 'gsi1', pk: keys.schedulesOfProject(opts.projectId), limit: opts.limit, cursor: opts.cursor, descending: true })
        : await queryPage<Schedule & { organization_id?: string }>(table, { pk: `ORG#${orgId}`, skPrefix: 'SCHEDULE#', limit: opts.limit, cursor: opts.cursor, descending: true });
      return { ...page, items: page.items.map(({ organization_id: _o, ...s }) => s) };
    },

    /**
     * Changes a schedule; with `expectedNextRunAt`, only if it is still due at that slot
     * (the sweeper's claim). Undefined when there is no such schedule, or the slot moved.
     */
    async update(orgId: string, id: string, patch: SchedulePatch, expectedNextRunAt?: string | null): Promise<Schedule | undefined> {
      const current = await this.get(orgId, id);
      if (!current) return undefined;
      // Only a change of timing rewrites the due index: a name or history change that races
      // the sweeper must not put back the slot it read (the index would run it again early).
      const timing = patch.enabled !== undefined || patch.next_run_at !== undefined;
      const index = timing ? dueIndex(orgId, { ...current, ...patch }) : { set: {}, remove: [] };
      const set: Record<string, unknown> = { ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)), ...index.set, updated_at: ctx.clock.now().toISOString() };
      try {
        const item = await table.update({
          key: keys.schedule(orgId, id),
          set,
          remove: index.remove,
          condition: expectedNextRunAt !== undefined ? { kind: 'equals', attr: 'next_run_at', value: expectedNextRunAt } : { kind: 'exists' },
        });
        return fromItem(item);
      } catch (err) {
        if (err instanceof ConditionFailedError) return undefined;
        throw err;
      }
    },

    async delete(orgId: string, id: string): Promise<Schedule | undefined> {
      const current = await this.get(orgId, id);
      if (!current) return undefined;
      await table.delete(keys.schedule(orgId, id));
      return current;
    },

    /** Enabled schedules whose next run is at or before `now`, earliest first (every organization). */
    async due(now: Date, limit: number): Promise<DueSchedule[]> {
      const page = await table.query({ index: 'gsi2', pk: keys.dueSchedules, skTo: `${now.toISOString()}#\uffff`, limit });
      return page.items.map((i) => ({ organizationId: String(i.organization_id), id: String(i.id), next_run_at: String(i.next_run_at) }));
    },
  };
}
