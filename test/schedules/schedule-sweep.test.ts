/**
 * Schedules and their sweeper on both Table adapters (the local file table and DynamoDB
 * Local). The run starter here is the store's own run creation, which claims the run's
 * thread id in a transaction: the same claim that makes the run graph start one run per
 * thread, so two sweepers racing over one due slot start one run. The runs themselves are
 * executed end to end in test/api/schedules.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createStore, type Store } from '@svc/core/store/index';
import { scheduleService, type StartScheduledRun, type ScheduledRunRequest } from '@svc/core/services/schedules';
import { ScheduleCreateInput } from '@svc/core/contracts/schedule';
import { uuidv7 } from '@svc/core/ids';
import type { Clock } from '@svc/core/ports/clock';
import type { Table } from '@svc/core/ports/table';
import { keys } from '@svc/core/store/keys';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { useDynamoDbLocal } from '../support/dynamodb-local.ts';

const ddb = useDynamoDbLocal('schedules');
// The tables read TTLs against the test's clock, so the fixed dates below never age out.
const adapters: Array<[string, (clock: Clock) => Promise<Table>]> = [
  ['FileTable', async (clock) => new FileTable(undefined, { clock })],
  ['DynamoDbTable', (clock) => ddb.freshTable({ clock })],
];

for (const [adapter, makeTable] of adapters) {
  describe(`schedules on ${adapter}`, () => {
    let time = Date.parse('2026-11-22T08:00:30.000Z');
    const clock: Clock = { now: () => new Date(time) };
    let store: Store;
    let schedules: ReturnType<typeof scheduleService>;
    const org = uuidv7();
    const other = uuidv7();
    let project: string;
    let otherProject: string;
    const tests: Record<string, string> = {};
    const requests: Array<{ orgId: string; request: ScheduledRunRequest }> = [];

    /** Creates the run record as the run graph's start does: thread claimed once, or CONFLICT. */
    const startRun: StartScheduledRun = async (orgId, request) => {
      const run = await store.testRuns.create(orgId, { project_id: request.project_id, thread_id: request.thread_id, trigger: 'schedule', test_plan: request.test_ids.map((id) => ({ id })) });
      requests.push({ orgId, request });
      return run;
    };
    const create = (fields: Record<string, unknown>) => schedules.create(org, ScheduleCreateInput.parse({ project_id: project, name: 'nightly', cron: '0 2 * * *', ...fields }), 'user-1');

    afterAll(async () => {
      await store?.table.close?.();
    });

    it('creates schedules with their next run, in their time zone', async () => {
      store = createStore(await makeTable(clock), clock);
      schedules = scheduleService({ store, clock });
      project = (await store.projects.create(org, { name: 'shop', app_url: 'http://127.0.0.1:3000' })).id;
      otherProject = (await store.projects.create(org, { name: 'other' })).id;
      for (const [name, tags] of [['login', ['smoke']], ['checkout', ['smoke', 'pay']], ['search', []]] as const) {
        tests[name] = (await store.tests.create(org, { project_id: project, name, description: null, type: 'ui', steps: [], assertions: [], priority: 'medium', tags: [...tags] })).id;
      }
      tests.elsewhere = (await store.tests.create(org, { project_id: otherProject, name: 'elsewhere', description: null, type: 'api', steps: [], assertions: [], priority: 'medium', tags: [] })).id;

      const nightly = await create({});
      expect(nightly).toMatchObject({ enabled: true, timezone: 'UTC', next_run_at: '2026-11-23T02:00:00.000Z', test_ids: null, tags: [], last_run_id: null, recent_runs: [], created_by: 'user-1' });
      const berlin = await create({ name: 'berlin', cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' });
      expect(berlin.next_run_at).toBe('2026-11-23T08:00:00.000Z'); // Monday 09:00 CET
      const paused = await create({ name: 'paused', enabled: false });
      expect(paused.next_run_at).toBeNull();
      expect((await store.schedules.list(org, { projectId: project, limit: 10 })).items.map((s) => s.name)).toEqual(['paused', 'berlin', 'nightly']);
    });

    it('refuses a test of another project, naming it by position', async () => {
      await expect(create({ test_ids: [tests.login, tests.elsewhere] })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: { issues: [{ path: 'test_ids.1' }] } });
      await expect(schedules.create(other, ScheduleCreateInput.parse({ project_id: project, name: 'x', cron: '@daily' }), null)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('nothing is due before its time', async () => {
      expect(await schedules.sweep(startRun)).toEqual({ started: 0, failed: 0 });
      expect(requests).toEqual([]);
    });

    it('starts a due run once, with every test of the project, and moves to the next slot', async () => {
      time = Date.parse('2026-11-23T02:00:20.000Z');
      const result = await schedules.sweep(startRun);
      expect(result).toEqual({ started: 1, failed: 0 });
      expect(requests).toHaveLength(1);
      const [{ request }] = requests;
      expect(request.test_ids).toEqual([tests.login, tests.checkout, tests.search]);
      expect(request.thread_id).toBe(`schedule-${(await store.schedules.list(org, { projectId: project, limit: 10 })).items[2].id}-${Date.parse('2026-11-23T02:00:00.000Z')}`);
      const nightly = (await store.schedules.list(org, { projectId: project, limit: 10 })).items.find((s) => s.name === 'nightly')!;
      expect(nightly).toMatchObject({ next_run_at: '2026-11-24T02:00:00.000Z', last_run_at: '2026-11-23T02:00:20.000Z', last_error: null });
      expect(nightly.recent_runs).toEqual([{ run_id: nightly.last_run_id, slot: '2026-11-23T02:00:00.000Z', started_at: '2026-11-23T02:00:20.000Z' }]);
      const run = await store.testRuns.get(org, nightly.last_run_id!);
      expect(run).toMatchObject({ trigger: 'schedule', project_id: project });
      // A second pass in the same minute finds nothing due.
      expect(await schedules.sweep(startRun)).toEqual({ started: 0, failed: 0 });
    });

    it('two sweepers racing over one slot start one run', async () => {
      const racy = await create({ name: 'racy', cron: '*/5 * * * *', tags: ['pay'] });
      time = Date.parse(racy.next_run_at!) + 1000;
      requests.length = 0;
      const results = await Promise.all([schedules.sweep(startRun), schedules.sweep(startRun), schedules.sweep(startRun)]);
      expect(results.reduce((n, r) => n + r.started, 0)).toBe(1);
      expect(results.reduce((n, r) => n + r.failed, 0)).toBe(0);
      const started = requests.filter((r) => r.request.thread_id?.startsWith(`schedule-${racy.id}-`));
      expect(started).toHaveLength(1);
      expect(started[0].request.test_ids).toEqual([tests.checkout]); // the "pay" tag
      const after = await schedules.get(org, racy.id);
      expect(after.recent_runs).toHaveLength(1);
      expect(after.next_run_at).toBe(new Date(Date.parse(racy.next_run_at!) + 5 * 60_000).toISOString());
    });

    it('the sweeper that started the run counts it, even when a racing one moved the schedule on first', async () => {
      // A table of its own, so that no other schedule of this file is due in the same pass.
      const own = createStore(await makeTable(clock), clock);
      const ownSchedules = scheduleService({ store: own, clock });
      const ownProject = (await own.projects.create(org, { name: 'slow', app_url: 'http://127.0.0.1:3000' })).id;
      const test = (await own.tests.create(org, { project_id: ownProject, name: 'login', description: null, type: 'ui', steps: [], assertions: [], priority: 'medium', tags: [] })).id;
      const slow = await ownSchedules.create(org, ScheduleCreateInput.parse({ project_id: ownProject, name: 'slow start', cron: '*/15 * * * *', test_ids: [test] }), 'user-1');
      time = Date.parse(slow.next_run_at!) + 1000;
      const createRun: StartScheduledRun = (orgId, request) => own.testRuns.create(orgId, { project_id: request.project_id, thread_id: request.thread_id, trigger: 'schedule', test_plan: request.test_ids.map((id) => ({ id })) });
      // The first sweeper creates the slot's run, then stalls until the second, refused the
      // same thread, has moved the schedule on with that run.
      let created!: () => void;
      const runCreated = new Promise<void>((resolve) => (created = resolve));
      const secondPass = runCreated.then(() => ownSchedules.sweep(createRun));
      const stallingStart: StartScheduledRun = async (orgId, request) => {
        const run = await createRun(orgId, request);
        created();
        await secondPass;
        return run;
      };
      try {
        const [first, second] = await Promise.all([ownSchedules.sweep(stallingStart), secondPass]);
        expect(second).toEqual({ started: 0, failed: 0 });
        expect(first).toEqual({ started: 1, failed: 0 });
        const after = await ownSchedules.get(org, slow.id);
        expect(after.recent_runs).toHaveLength(1);
        expect(after.last_run_id).toBe(after.recent_runs[0].run_id);
        expect(Date.parse(after.next_run_at!)).toBeGreaterThan(time);
      } finally {
        await own.table.close?.();
      }
    });

    it('a sweeper that stopped after starting the run: the next pass moves the schedule on, with that run', async () => {
      const s = await create({ name: 'crashy', cron: '*/10 * * * *' });
      time = Date.parse(s.next_run_at!) + 1000;
      // The run of the slot exists, the schedule was not moved on: what a crash in between leaves.
      const orphan = await startRun(org, { project_id: project, test_ids: [tests.login], thread_id: `schedule-${s.id}-${Date.parse(s.next_run_at!)}` });
      await schedules.sweep(startRun);
      const after = await schedules.get(org, s.id);
      expect(after.last_run_id).toBe(orphan.id);
      expect(Date.parse(after.next_run_at!)).toBeGreaterThan(time);
    });

    it('a server down for days starts one run for the slots it missed, not one per slot', async () => {
      const hourly = await create({ name: 'hourly', cron: '@hourly', test_ids: [tests.search] });
      requests.length = 0;
      time = Date.parse(hourly.next_run_at!) + 3 * 86_400_000 + 60_000; // three days later
      await schedules.sweep(startRun);
      const mine = requests.filter((r) => r.request.thread_id?.startsWith(`schedule-${hourly.id}-`));
      expect(mine).toHaveLength(1);
      expect(mine[0].request.test_ids).toEqual([tests.search]);
      const after = await schedules.get(org, hourly.id);
      expect(after.recent_runs[0].slot).toBe(hourly.next_run_at); // the first missed slot, started late
      expect(Date.parse(after.next_run_at!) - time).toBeLessThanOrEqual(3_600_000);
      expect(Date.parse(after.next_run_at!)).toBeGreaterThan(time);
    });

    it('a run that cannot start is the schedule\'s last error, and it moves on', async () => {
      const none = await create({ name: 'nothing tagged', cron: '*/30 * * * *', tags: ['nope'] });
      time = Date.parse(none.next_run_at!) + 1000;
      const result = await schedules.sweep(startRun);
      expect(result.failed).toBe(1);
      const after = await schedules.get(org, none.id);
      expect(after.last_error).toBe('no test of the project has one of the tags nope');
      expect(after.last_run_id).toBeNull();
      expect(Date.parse(after.next_run_at!)).toBeGreaterThan(time);
    });

    it('pausing takes a schedule off the due index; resuming and a new cron move its next run', async () => {
      const s = await create({ name: 'toggle', cron: '0 * * * *' });
      const paused = await schedules.update(org, s.id, { enabled: false });
      expect(paused.next_run_at).toBeNull();
      time += 10 * 3_600_000;
      const due = await store.schedules.due(clock.now(), 100);
      expect(due.map((d) => d.id)).not.toContain(s.id);
      const resumed = await schedules.update(org, s.id, { enabled: true });
      expect(Date.parse(resumed.next_run_at!)).toBeGreaterThan(time);
      const recron = await schedules.update(org, s.id, { cron: '15 3 * * *', timezone: 'Asia/Kolkata' });
      expect(recron.next_run_at?.slice(11)).toBe('21:45:00.000Z'); // 03:15 IST
      const renamed = await schedules.update(org, s.id, { name: 'renamed' });
      expect(renamed.next_run_at).toBe(recron.next_run_at);
    });

    it('a rename racing the sweeper: only timing rewrites the due index, and an entry behind its record starts nothing early', async () => {
      const s = await create({ name: 'raced', cron: '0 * * * *' });
      // What a rename that read the schedule before the sweeper moved it on would have written:
      // the index at a slot that has passed, while the record says the next hour.
      const stale = `${new Date(time - 60_000).toISOString()}#${org}#${s.id}`;
      await store.table.update({ key: keys.schedule(org, s.id), set: { gsi2sk: stale } });
      expect((await store.schedules.due(clock.now(), 100)).map((d) => d.id)).toContain(s.id);
      requests.length = 0;
      await schedules.sweep(startRun);
      expect(requests.filter((r) => r.request.thread_id?.startsWith(`schedule-${s.id}-`))).toEqual([]);
      expect((await schedules.get(org, s.id)).next_run_at).toBe(s.next_run_at);
      // A change of name or history leaves the index as it is; a change of timing rewrites it.
      await schedules.update(org, s.id, { name: 'raced again' });
      expect((await store.table.get(keys.schedule(org, s.id)))?.gsi2sk).toBe(stale);
      await schedules.update(org, s.id, { cron: '30 * * * *' });
      const moved = await schedules.get(org, s.id);
      expect((await store.table.get(keys.schedule(org, s.id)))?.gsi2sk).toBe(`${moved.next_run_at}#${org}#${s.id}`);
    });

    it('run now: a run outside the cron, the next run unchanged', async () => {
      const s = await create({ name: 'manual', cron: '0 0 1 1 *' });
      const { run, schedule } = await schedules.runNow(org, s.id, startRun);
      expect(schedule.last_run_id).toBe(run.id);
      expect(schedule.next_run_at).toBe(s.next_run_at);
      expect(schedule.recent_runs).toHaveLength(1);
    });

    it('another organization sees none of it', async () => {
      const s = (await store.schedules.list(org, { limit: 1 })).items[0];
      await expect(schedules.get(other, s.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(schedules.update(other, s.id, { enabled: false })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(schedules.delete(other, s.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(schedules.runNow(other, s.id, startRun)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect((await store.schedules.list(other, { limit: 10 })).items).toEqual([]);
      await schedules.delete(org, s.id);
      await expect(schedules.get(org, s.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect((await store.schedules.due(new Date(Date.parse('2100-01-01T00:00:00Z')), 100)).map((d) => d.id)).not.toContain(s.id);
    });
  });
}
