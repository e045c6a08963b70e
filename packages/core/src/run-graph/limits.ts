import { limits } from '../contracts/limits.ts';
import type { LimitEvent, LimitName, RunGraphState } from './state.ts';

/**
 * The run's limits, checked before each node. A run-level limit (cost per run, iterations)
 * is a hard stop: nothing but report runs after it. COST_LIMIT_PER_TEST stops healing of
 * that test; EXECUTION_TIMEOUT and MAX_SCREENSHOTS are recorded where they happen.
 */
export function runLimit(state: RunGraphState, node: string, testId: string | null, at: string): LimitEvent | null {
  const cfg = state.graph.config;
  if (state.total_cost >= cfg.cost_limit_usd) {
    return event('COST_LIMIT_PER_RUN', `run cost ${state.total_cost.toFixed(4)} USD reached COST_LIMIT_PER_RUN (${cfg.cost_limit_usd} USD); the run stops`, node, null, at);
  }
  const g = state.graph;
  const longest = Math.max(0, ...Object.values(g.test_steps));
  const next = testId === null ? g.root_steps + 1 + longest : g.root_steps + Math.max(longest, (g.test_steps[testId] ?? 0) + 1);
  if (next > state.max_iterations) {
    return event('MAX_ITERATIONS', `${node} would be iteration ${next}, past MAX_ITERATIONS (${state.max_iterations}); the run stops`, node, testId, at);
  }
  return null;
}

export function testCostLimit(state: RunGraphState, testId: string, node: string, at: string): LimitEvent | null {
  const cost = state.graph.test_costs[testId] ?? 0;
  const cap = Math.min(state.graph.config.cost_limit_per_test_usd, limits.COST_LIMIT_PER_TEST_USD);
  if (cost >= cap) return event('COST_LIMIT_PER_TEST', `test cost ${cost.toFixed(4)} USD reached COST_LIMIT_PER_TEST (${cap} USD); no more healing for this test`, node, testId, at);
  return null;
}

export function event(limit: LimitName, message: string, node: string, testId: string | null, at: string): LimitEvent {
  return { limit, message, at, node, test_id: testId };
}
