import { limits } from '../contracts/limits.ts';
import type { FailureAnalysis, RunMessage, TestingState, TestResult } from '../contracts/run-state.ts';
import type { TestSpec } from '../contracts/test-spec.ts';
import type { ApprovalEntry, HealRecord, LimitEvent, RunConfig, RunGraphState } from './state.ts';

/**
 * What a node writes, channel by channel, and how each channel reduces into the state.
 * Parallel test executions each commit their own writes on top of whatever the head is
 * then (checkpointer.ts), so every channel a test touches is keyed by test (upsert) or
 * additive — two tests never overwrite each other. The writes are also stored with the
 * checkpoint (task_id, idx, channel, type, blob), as the spec's thread state asks.
 */
export type Write =
  | { channel: 'replace'; field: keyof TestingState; value: unknown }
  | { channel: 'result'; value: TestResult }
  | { channel: 'plan_test'; value: TestSpec }
  | { channel: 'failure'; value: FailureAnalysis }
  | { channel: 'screenshots'; value: string[] }
  | { channel: 'healed_test'; value: Record<string, unknown> }
  | { channel: 'message'; value: RunMessage }
  | { channel: 'usage'; value: { input_tokens: number; output_tokens: number; cost_usd: number; test_id?: string } }
  | { channel: 'root_step'; value: string }
  | { channel: 'test_step'; value: string }
  | { channel: 'attempt'; value: string }
  | { channel: 'route'; value: { node: string; route: string } }
  | { channel: 'heal'; value: { test_id: string; record: HealRecord } }
  | { channel: 'rerun'; value: { test_id: string; on: boolean } }
  | { channel: 'approval'; value: ApprovalEntry }
  | { channel: 'limit'; value: LimitEvent & { stop: boolean } }
  | { channel: 'config'; value: Partial<RunConfig> };

/**
 * Applies writes in order and returns the next state; recomputes the derived counters.
 * The input is never changed: the result shares every part the writes did not touch, and
 * copies only the containers they did (a result write copies the list of results, not the
 * results). States are frozen (freezeState), so sharing is safe: a checkpoint's state is
 * handed out as is, never copied — copying the whole state per commit made a run quadratic.
 * Written values are copied first, so a caller keeps its own objects.
 */
export function applyWrites(state: RunGraphState, writes: readonly Write[]): RunGraphState {
  const s: RunGraphState = { ...state };
  let g: RunGraphState['graph'] | undefined;
  const graph = () => (g ??= s.graph = { ...state.graph });
  for (const w of writes) {
    switch (w.channel) {
      case 'replace':
        (s as Record<string, unknown>)[w.field] = structuredClone(w.value);
        break;
      case 'result':
        s.test_results = upserted(s.test_results, structuredClone(w.value), (r) => r.test_id === w.value.test_id);
        break;
      case 'plan_test': {
        const i = s.test_plan.findIndex((t) => t.id === w.value.id);
        if (i >= 0) s.test_plan = s.test_plan.with(i, structuredClone(w.value));
        break;
      }
      case 'failure':
        s.failures = upserted(s.failures, structuredClone(w.value), (f) => f.test_id === w.value.test_id);
        break;
      case 'screenshots': {
        const room = Math.max(0, limits.MAX_SCREENSHOTS_PER_RUN - s.screenshots.length);
        s.screenshots = [...s.screenshots, ...w.value.slice(0, room)];
        graph().screenshots_dropped += Math.max(0, w.value.length - room);
        break;
      }
      case 'healed_test':
        s.healed_tests = [...s.healed_tests, structuredClone(w.value)];
        break;
      case 'message':
        s.messages = [...s.messages, structuredClone(w.value)];
        break;
      case 'usage':
        s.total_input_tokens += w.value.input_tokens;
        s.total_output_tokens += w.value.output_tokens;
        s.total_tokens += w.value.input_tokens + w.value.output_tokens;
        s.total_cost = round6(s.total_cost + w.value.cost_usd);
        if (w.value.test_id) graph().test_costs = { ...graph().test_costs, [w.value.test_id]: round6((graph().test_costs[w.value.test_id] ?? 0) + w.value.cost_usd) };
        break;
      case 'root_step':
        graph().root_steps += 1;
        s.next_agent = w.value;
        break;
      case 'test_step':
        graph().test_steps = { ...graph().test_steps, [w.value]: (graph().test_steps[w.value] ?? 0) + 1 };
        break;
      case 'attempt':
        graph().attempts = { ...graph().attempts, [w.value]: (graph().attempts[w.value] ?? 0) + 1 };
        break;
      case 'route':
        graph().routes = { ...graph().routes, [w.value.node]: w.value.route };
        break;
      case 'heal':
        graph().heal = { ...graph().heal, [w.value.test_id]: structuredClone(w.value.record) };
        break;
      case 'rerun':
        graph().rerun = [...graph().rerun.filter((id) => id !== w.value.test_id), ...(w.value.on ? [w.value.test_id] : [])];
        break;
      case 'approval':
        graph().approvals = upserted(graph().approvals, structuredClone(w.value), (a) => a.approval_id === w.value.approval_id);
        break;
      case 'limit': {
        const { stop, ...event } = structuredClone(w.value);
        graph().limits = [...graph().limits, event];
        if (stop && !graph().stop) {
          graph().stop = event;
          s.should_continue = false;
        }
        break;
      }
      case 'config':
        graph().config = { ...graph().config, ...structuredClone(w.value) };
        break;
      default: {
        const never: never = w;
        throw new Error(`unknown write channel ${JSON.stringify(never)}`);
      }
    }
  }
  return freezeState(derive(s));
}

/**
 * Freezes a state deeply, so code that changes a state it was handed fails at once instead
 * of corrupting a cached checkpoint. Parts already frozen (shared with the previous state)
 * are not walked again: the cost follows what changed, not the size of the run.
 */
export function freezeState<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) freezeState(v);
  }
  return value;
}

/**
 * Counters and progress fields follow from the results; recomputed after every write (on a
 * state not yet frozen). They count the planned tests, each by its result (the first, as
 * resultOf reads it): a result of anything else is no test of the run, so the counters
 * never exceed the plan (found by QA: passed 1 + failed 2 + skipped 1 of a plan of 2).
 */
export function derive(s: RunGraphState): RunGraphState {
  const byTest = new Map<string, TestResult['status']>();
  for (const r of s.test_results) if (!byTest.has(r.test_id)) byTest.set(r.test_id, r.status);
  const statuses = [...new Set(s.test_plan.map((t) => t.id))].flatMap((id) => (byTest.has(id) ? [byTest.get(id)!] : []));
  s.passed_count = statuses.filter((st) => st === 'PASSED' || st === 'HEALED').length;
  s.failed_count = statuses.filter((st) => st === 'FAILED').length;
  s.skipped_count = statuses.filter((st) => st === 'SKIPPED').length;
  s.current_test_index = statuses.filter((st) => st !== 'RUNNING' && st !== 'PENDING').length;
  s.healing_queue = s.test_plan.map((t) => t.id).filter((id) => s.graph.heal[id]?.status === 'awaiting_approval' || s.graph.heal[id]?.status === 'approved');
  s.healing_attempts = Object.values(s.graph.heal).reduce((n, h) => n + h.attempts, 0);
  s.iteration = iterationOf(s);
  return s;
}

/**
 * Iterations count graph supersteps: the root nodes plus the longest per-test loop
 * (tests of one Map state run side by side, as LangGraph counts parallel nodes once).
 */
export function iterationOf(s: RunGraphState): number {
  const longest = Math.max(0, ...Object.values(s.graph.test_steps));
  return s.graph.root_steps + longest;
}

/** Writes in the stored shape: one per channel entry, numbered within the task. */
export function storedWrites(writes: readonly Write[], taskId: number) {
  return writes.map((w, idx) => ({
    task_id: taskId,
    idx,
    channel: w.channel === 'replace' ? `replace:${String(w.field)}` : w.channel,
    type: 'json',
    blob: Buffer.from(JSON.stringify(w.value), 'utf8').toString('base64'),
  }));
}

function upserted<T>(list: T[], value: T, same: (x: T) => boolean): T[] {
  const i = list.findIndex(same);
  return i >= 0 ? list.with(i, value) : [...list, value];
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;
