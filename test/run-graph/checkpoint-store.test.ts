/**
 * The checkpoint store, the checkpointer's optimistic commits and the event log on both
 * Table adapters: the in-process file table and DynamoDB Local (the same conditional
 * writes and transactions the AWS deployment relies on).
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { createStore, type Store } from '@svc/core/store/index';
import { systemClock } from '@svc/core/ports/clock';
import type { Table } from '@svc/core/ports/table';
import { createCheckpointer, FULL_STATE_EVERY } from '@svc/core/run-graph/checkpointer';
import { createEventLog } from '@svc/core/run-graph/event-log';
import { initialState, RunGraphStateSchema } from '@svc/core/run-graph/state';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { useDynamoDbLocal } from '../support/dynamodb-local.ts';

const ddb = useDynamoDbLocal('cp');
const adapters: Array<[string, () => Promise<Table>]> = [
  ['FileTable', async () => new FileTable()],
  ['DynamoDbTable', () => ddb.freshTable()],
];

const state = (thread: string) =>
  initialState({ run_id: thread, started_at: new Date().toISOString(), config: { thread_id: thread, organization_id: 'o', project_id: 'p' } });

for (const [name, makeTable] of adapters) {
  describe(`run graph storage on ${name}`, () => {
    let table: Table;
    let store: Store;
    beforeAll(async () => {
      table = await makeTable();
      store = createStore(table, systemClock);
    });

    it('saves the first checkpoint with a null parent, then a chain; a second first checkpoint conflicts', async () => {
      const cps = createCheckpointer(store.checkpoints, systemClock);
      const first = await cps.start('t1', state('t1'));
      expect(first.parent_checkpoint_id).toBeNull();
      const { checkpoint } = await cps.commit('t1', { node: 'analyze_code', writes: () => [{ channel: 'replace', field: 'codebase_summary', value: 'x' }] });
      expect(checkpoint.parent_checkpoint_id).toBe(first.checkpoint_id);
      expect(checkpoint.metadata).toMatchObject({ source: 'loop', step: 0, node: 'analyze_code' });
      await expect(cps.start('t1', state('t1'))).rejects.toMatchObject({ code: 'CONFLICT' });
      const loaded = await cps.load('t1');
      expect(loaded.state.codebase_summary).toBe('x');
      const writes = await store.checkpoints.writes('t1', '', checkpoint.checkpoint_id);
      expect(writes).toEqual([expect.objectContaining({ task_id: 0, idx: 0, channel: 'replace:codebase_summary', type: 'json' })]);
      expect(JSON.parse(Buffer.from(writes[0].blob, 'base64').toString())).toBe('x');
    });

    it('two checkpointers on one thread (two Lambdas) see each other\'s commits; a loaded state cannot be changed', async () => {
      const a = createCheckpointer(store.checkpoints, systemClock);
      const b = createCheckpointer(store.checkpoints, systemClock);
      await a.start('t-two', state('t-two'));
      await a.commit('t-two', { node: 'analyze_code', writes: () => [{ channel: 'replace', field: 'codebase_summary', value: 'from a' }] });
      await b.commit('t-two', { node: 'plan_tests', writes: (head) => [{ channel: 'replace', field: 'codebase_summary', value: `${head.codebase_summary} then b` }] });
      // a's remembered head is stale now: its next commit must build on b's checkpoint, not on its own
      const c = await a.commit('t-two', { node: 'report', writes: (head) => [{ channel: 'replace', field: 'codebase_summary', value: `${head.codebase_summary} then a` }] });
      expect(c.state.codebase_summary).toBe('from a then b then a');
      expect((await b.load('t-two')).state.codebase_summary).toBe('from a then b then a');
      // states are shared, not copied, so they are frozen: changing one fails at once
      const loaded = await a.load('t-two');
      expect(() => { loaded.state.codebase_summary = 'scribbled'; }).toThrow(TypeError);
      expect(() => c.state.test_results.push({ test_id: 'ghost' } as never)).toThrow(TypeError);
      expect(() => { loaded.state.graph.config.max_concurrency = 9; }).toThrow(TypeError);
      const again = await a.load('t-two');
      expect(again.state.codebase_summary).toBe('from a then b then a');
      expect(again.state.test_results).toEqual([]);
    });

    it('parallel commits on one head all land, each on the previous one (no lost update)', async () => {
      const cps = createCheckpointer(store.checkpoints, systemClock);
      const ids = Array.from({ length: 8 }, (_, i) => `test-${i}`);
      // The counters count planned tests: the 8 are the plan.
      await cps.start('t2', RunGraphStateSchema.parse({ ...state('t2'), test_plan: ids.map((id) => ({ id, type: 'API', name: id })) }));
      await Promise.all(ids.map((id, i) => cps.commit('t2', { node: 'execute_test', taskId: i + 1, writes: () => [{ channel: 'result', value: { test_id: id, status: 'PASSED', duration_ms: 1, assertions_passed: 1, assertions_failed: 0, error_message: null, stack_trace: null, screenshots: [], metadata: {} } }] })));
      const { state: s } = await cps.load('t2');
      expect(s.test_results.map((r) => r.test_id).sort()).toEqual(ids.sort());
      expect(s.passed_count).toBe(8);
      const page = await store.checkpoints.list('t2', { limit: 100 });
      expect(page.items).toHaveLength(9);
      const parents = page.items.map((c) => c.parent_checkpoint_id);
      expect(new Set(parents).size).toBe(9); // a chain: every checkpoint has a distinct parent
    });

    it('a state larger than one item is stored in chunks and read back whole', async () => {
      const cps = createCheckpointer(store.checkpoints, systemClock);
      await cps.start('t3', state('t3'));
      const big = 'y'.repeat(900_000);
      const { checkpoint } = await cps.commit('t3', { node: 'analyze_code', writes: () => [{ channel: 'replace', field: 'codebase_summary', value: big }] });
      const back = await store.checkpoints.get('t3', '', checkpoint.checkpoint_id);
      expect(back?.checkpoint).toBe(checkpoint.checkpoint);
      expect((await cps.load('t3')).state.codebase_summary).toHaveLength(900_000);
    });

    it('stores the whole state every FULL_STATE_EVERY steps and only the writes between; every checkpoint reads back exactly', async () => {
      const cps = createCheckpointer(store.checkpoints, systemClock);
      await cps.start('t6', state('t6'));
      const made: Array<{ id: string; state: unknown }> = [];
      for (let i = 0; i < FULL_STATE_EVERY + 5; i++) {
        const testId = `test-${i}`;
        const c = await cps.commit('t6', {
          node: 'execute_test',
          taskId: i + 1,
          writes: () => [
            { channel: 'result', value: { test_id: testId, status: i % 3 ? 'PASSED' : 'FAILED', duration_ms: i, assertions_passed: 1, assertions_failed: 0, error_message: null, stack_trace: null, screenshots: [`s${i}.png`], metadata: { steps: [{ index: 0, note: undefined }] } } },
            { channel: 'test_step', value: testId },
            { channel: 'usage', value: { input_tokens: 3, output_tokens: 2, cost_usd: 0.001, test_id: testId } },
            { channel: 'replace', field: 'codebase_summary', value: `after ${testId}` },
            ...(i === 7 ? [{ channel: 'limit' as const, value: { limit: 'MAX_SCREENSHOTS' as const, message: 'm', at: new Date(0).toISOString(), node: 'execute_test', test_id: testId, stop: false } }] : []),
          ],
        });
        made.push({ id: c.checkpoint.checkpoint_id, state: JSON.parse(JSON.stringify(c.state)) });
      }
      const stored = await Promise.all(made.map((m) => store.checkpoints.get('t6', '', m.id)));
      expect(stored.map((c) => c!.checkpoint !== '')).toEqual(made.map((_, step) => step % FULL_STATE_EVERY === 0));
      // another process remembers nothing: it rebuilds each state from the whole one before it and the writes since
      const other = createCheckpointer(store.checkpoints, systemClock);
      for (const m of made) expect((await other.load('t6', m.id)).state).toEqual(m.state);
      expect((await createCheckpointer(store.checkpoints, systemClock).load('t6')).state).toEqual(made.at(-1)!.state);
    });

    it('a process with nothing cached loads a checkpoint in three reads: the head, its lineage and their writes', async () => {
      const cps = createCheckpointer(store.checkpoints, systemClock);
      await cps.start('t8', state('t8'));
      let last: unknown;
      // steps 0 … FULL_STATE_EVERY - 1: the head is as far from a whole state as a checkpoint gets
      for (let i = 0; i < FULL_STATE_EVERY; i++) last = (await cps.commit('t8', { node: 'execute_test', taskId: i + 1, writes: () => [{ channel: 'test_step', value: `s${i}` }] })).state;
      const reads: string[] = [];
      const counted = new Proxy(table, {
        get: (t, prop: keyof Table) => (typeof t[prop] === 'function' ? (...args: unknown[]) => (reads.push(prop), (t[prop] as (...a: unknown[]) => unknown).apply(t, args)) : t[prop]),
      });
      const loaded = await createCheckpointer(createStore(counted, systemClock).checkpoints, systemClock).load('t8');
      expect(loaded.state).toEqual(last);
      expect(loaded.checkpoint.metadata.step).toBe(FULL_STATE_EVERY - 1);
      expect(reads).toEqual(['get', 'query', 'query']);
    });

    it('after a rewind, checkpoints of both branches interleave in the store and each still reads back exactly', async () => {
      const cps = createCheckpointer(store.checkpoints, systemClock);
      await cps.start('t9', state('t9'));
      const made: Array<{ id: string; state: unknown }> = [];
      const step = async (value: string) => {
        const c = await cps.commit('t9', { node: 'execute_test', writes: () => [{ channel: 'test_step', value }, { channel: 'replace', field: 'codebase_summary', value }] });
        made.push({ id: c.checkpoint.checkpoint_id, state: JSON.parse(JSON.stringify(c.state)) });
      };
      for (let i = 0; i < 6; i++) await step(`a${i}`);
      await cps.rewind('t9', made[2].id); // the branch point is a delta checkpoint
      for (let i = 0; i < FULL_STATE_EVERY + 2; i++) await step(`b${i}`);
      const other = createCheckpointer(store.checkpoints, systemClock);
      for (const m of made) expect((await other.load('t9', m.id)).state).toEqual(m.state);
      const head = (await createCheckpointer(store.checkpoints, systemClock).load('t9')).state;
      expect(head.graph.test_steps).toEqual({ a0: 1, a1: 1, a2: 1, ...Object.fromEntries(Array.from({ length: FULL_STATE_EVERY + 2 }, (_, i) => [`b${i}`, 1])) });
    });

    it('a write too large to be stored with its value makes its checkpoint store the whole state', async () => {
      const cps = createCheckpointer(store.checkpoints, systemClock);
      await cps.start('t7', state('t7'));
      await cps.commit('t7', { node: 'analyze_code', writes: () => [] }); // step 0: whole
      const big = await cps.commit('t7', { node: 'plan_tests', writes: () => [{ channel: 'replace', field: 'codebase_summary', value: 'z'.repeat(400_000) }] });
      const after = await cps.commit('t7', { node: 'execute_test', writes: () => [{ channel: 'test_step', value: 'a' }] });
      expect((await store.checkpoints.get('t7', '', big.checkpoint.checkpoint_id))!.checkpoint).not.toBe('');
      expect((await store.checkpoints.get('t7', '', after.checkpoint.checkpoint_id))!.checkpoint).toBe('');
      const loaded = (await createCheckpointer(store.checkpoints, systemClock).load('t7')).state;
      expect(loaded.codebase_summary).toHaveLength(400_000);
      expect(loaded.graph.test_steps).toEqual({ a: 1 });
    });

    it('rewind moves the head back; the next commit branches from there', async () => {
      const cps = createCheckpointer(store.checkpoints, systemClock);
      const first = await cps.start('t4', state('t4'));
      await cps.commit('t4', { node: 'analyze_code', writes: () => [] });
      await cps.rewind('t4', first.checkpoint_id);
      const { checkpoint } = await cps.commit('t4', { node: 'replay', writes: () => [] });
      expect(checkpoint.parent_checkpoint_id).toBe(first.checkpoint_id);
    });

    it('event ids are 1, 2, 3 … without gaps, even for concurrent appends', async () => {
      const log = createEventLog(table, systemClock);
      await Promise.all(Array.from({ length: 20 }, (_, i) => log.append('t5', { type: 'log', data: { level: 'info', message: `m${i}` } })));
      const events = await log.after('t5', 0, 100);
      expect(events.map((e) => e.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect((await log.after('t5', 15, 100)).map((e) => e.id)).toEqual([16, 17, 18, 19, 20]);
      expect(await log.lastId('t5')).toBe(20);
      // a second log object (another process) appending to the same thread continues the sequence
      const other = createEventLog(table, systemClock);
      await Promise.all([other.append('t5', { type: 'log', data: { level: 'info', message: 'a' } }), log.append('t5', { type: 'log', data: { level: 'info', message: 'b' } })]);
      expect((await log.after('t5', 20, 100)).map((e) => e.id)).toEqual([21, 22]);
    });
  });
}
