import { z } from 'zod';
import { atLeastOneField, atLeastOneFieldParams, IsoDateTime, ListQuery, Uuid } from './common.ts';
import { HttpUrl } from './project.ts';
import { cronProblem, isTimeZone } from '../schedules/cron.ts';

/**
 * Scheduled runs (test_schedules; spec: trigger "schedule", test_schedules and
 * schedule_runs named without columns). A schedule runs a project's tests when its cron
 * expression says, in its time zone. docs/schedules.md.
 */

/** Runs a schedule remembers (its schedule_runs). */
export const SCHEDULE_RECENT_RUNS = 20;

const Cron = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .superRefine((v, ctx) => {
    const problem = cronProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: `not a cron expression: ${problem}` });
  })
  .describe('When to run: five cron fields, minute hour day-of-month month day-of-week (e.g. "30 2 * * 1-5": 02:30 on weekdays), or @hourly, @daily, @weekly, @monthly');

const TimeZone = z
  .string()
  .min(1)
  .max(64)
  .refine(isTimeZone, { message: 'not an IANA time zone (e.g. UTC, Europe/Berlin, America/New_York)' })
  .describe('IANA time zone the cron expression is read in (default UTC)');

const Tag = z.string().trim().min(1).max(100);

export const ScheduleRecentRun = z.object({
  run_id: Uuid,
  /** The cron time this run was for (a late start says when it should have been). */
  slot: IsoDateTime.describe('The time the cron expression named for this run'),
  started_at: IsoDateTime,
});

export const ScheduleSchema = z.object({
  id: Uuid,
  project_id: Uuid,
  name: z.string(),
  cron: z.string(),
  timezone: z.string(),
  test_ids: z.array(Uuid).nullable().describe('Tests to run; null: every test of the project (filtered by tags when given)'),
  tags: z.array(z.string()).describe('Run only tests with at least one of these tags (with test_ids null); empty: no filter'),
  app_url: z.string().nullable().describe("Application URL for the runs; null: the project's"),
  enabled: z.boolean(),
  next_run_at: IsoDateTime.nullable().describe('When it runs next, or null when disabled (or the expression names no future date)'),
  last_run_at: IsoDateTime.nullable(),
  last_run_id: Uuid.nullable(),
  last_error: z.string().nullable().describe('Why the last due run could not start, or null'),
  recent_runs: z.array(ScheduleRecentRun).describe(`The latest ${SCHEDULE_RECENT_RUNS} runs it started, newest first`),
  created_by: z.string().nullable(),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
});
export type Schedule = z.output<typeof ScheduleSchema>;

export const ScheduleCreateInput = z.strictObject({
  project_id: Uuid.describe('Project whose tests to run'),
  name: z.string().trim().min(1).max(255).describe('Schedule name, e.g. "nightly smoke"'),
  cron: Cron,
  timezone: TimeZone.default('UTC'),
  test_ids: z.array(Uuid).min(1).max(1000).optional().describe('Tests to run (default: every test of the project)'),
  tags: z.array(Tag).max(50).default([]).describe('Run only tests with one of these tags (without test_ids)'),
  app_url: HttpUrl.optional().describe("Application URL for the runs (default: the project's)"),
  enabled: z.boolean().default(true),
});
export type ScheduleCreateInput = z.output<typeof ScheduleCreateInput>;

export const ScheduleUpdateInput = z
  .strictObject({
    name: z.string().trim().min(1).max(255).optional(),
    cron: Cron.optional(),
    timezone: TimeZone.optional(),
    test_ids: z.array(Uuid).min(1).max(1000).nullable().optional().describe('Tests to run; null: every test of the project'),
    tags: z.array(Tag).max(50).optional(),
    app_url: HttpUrl.nullable().optional().describe("Application URL; null: the project's"),
    enabled: z.boolean().optional(),
  })
  .refine(atLeastOneField, atLeastOneFieldParams);
export type ScheduleUpdateInput = z.output<typeof ScheduleUpdateInput>;

export const ScheduleListQuery = ListQuery.extend({
  project_id: Uuid.optional().describe('Only the schedules of this project'),
});
export type ScheduleListQuery = z.output<typeof ScheduleListQuery>;
