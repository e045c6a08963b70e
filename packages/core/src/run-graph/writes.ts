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

/** Applies writes in order to a copy of the state; recomputes the derived counters. */
export function applyWrites(state: RunGraphState, writes: readonly Write[]): RunGraphState {
  return applyWritesInPlace(structuredClone(state), writes);
}

/** applyWrites on a state the caller owns (a copy made for this purpose): no second copy. */
export function applyWritesInPlace(s: RunGraphState, writes: readonly Write[]): RunGraphState {
  const g = s.graph;
  for (const w of writes) {
    switch (w.channel) {
      case 'replace':
        (s as Record<string, unknown>)[w.field] = structuredClone(w.value);
        break;
      case 'result':
        upsert(s.test_results, w.value, (r) => r.test_id === w.value.test_id);
        break;
      case 'plan_test': {
        const i = s.test_plan.findIndex((t) => t.id === w.value.id);
        if (i >= 0) s.test_plan[i] = w.value;
        break;
      }
      case 'failure':
        upsert(s.failures, w.value, (f) => f.test_id === w.value.test_id);
        break;
      case 'screenshots': {
        const room = Math.max(0, limits.MAX_SCREENSHOTS_PER_RUN - s.screenshots.length);
        s.screenshots.push(...w.value.slice(0, room));
        g.screenshots_dropped += Math.max(0, w.value.length - room);
        break;
      }
      case 'healed_test':
        s.healed_tests.push(w.value);
        break;
      case 'message':
        s.messages.push(w.value);
        break;
      case 'usage':
        s.total_input_tokens += w.value.input_tokens;
        s.total_output_tokens += w.value.output_tokens;
        s.total_tokens += w.value.input_tokens + w.value.output_tokens;
        s.total_cost = round6(s.total_cost + w.value.cost_usd);
        if (w.value.test_id) g.test_costs[w.value.test_id] = round6((g.test_costs[w.value.test_id] ?? 0) + w.value.cost_usd);
        break;
      case 'root_step':
        g.root_steps += 1;
        s.next_agent = w.value;
        break;
      case 'test_step':
        g.test_steps[w.value] = (g.test_steps[w.value] ?? 0) + 1;
        break;
      case 'attempt':
        g.attempts[w.value] = (g.attempts[w.value] ?? 0) + 1;
        break;
      case 'route':
        g.routes[w.value.node] = w.value.route;
        break;
      case 'heal':
        g.heal[w.value.test_id] = w.value.record;
        break;
      case 'rerun':
        g.rerun = g.rerun.filter((id) => id !== w.value.test_id);
        if (w.value.on) g.rerun.push(w.value.test_id);
        break;
      case 'approval':
        upsert(g.approvals, w.value, (a) => a.approval_id === w.value.approval_id);
        break;
      case 'limit': {
        const { stop, ...event } = w.value;
        g.limits.push(event);
        if (stop && !g.stop) {
          g.stop = event;
          s.should_continue = false;
        }
        break;
      }
      case 'config':
        g.config = { ...g.config, ...w.value };
        break;
      default: {
        const never: never = w;
        throw new Error(`unknown write channel ${JSON.stringify(never)}`);
      }
    }
  }
  return derive(s);
}

/** Counters and progress fields follow from the results; recomputed after every write. */
export function derive(s: RunGraphState): RunGraphState {
  s.passed_count = s.test_results.filter((r) => r.status === 'PASSED' || r.status === 'HEALED').length;
  s.failed_count = s.test_results.filter((r) => r.status === 'FAILED').length;
  s.skipped_count = s.test_results.filter((r) => r.status === 'SKIPPED').length;
  s.current_test_index = s.test_results.filter((r) => r.status !== 'RUNNING' && r.status !== 'PENDING').length;
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

function upsert<T>(list: T[], value: T, same: (x: T) => boolean) {
  const i = list.findIndex(same);
  if (i >= 0) list[i] = value;
  else list.push(value);
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;
