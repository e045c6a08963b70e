import { describe, expect, it } from 'vitest';
import { applyWrites, storedWrites } from './writes.ts';
import { initialState } from './state.ts';
import { runLimit, testCostLimit } from './limits.ts';
import type { TestResult } from '../contracts/run-state.ts';

const base = () => initialState({ run_id: 'r', started_at: '2025-01-01T00:00:00.000Z', config: { thread_id: 't', organization_id: 'o', project_id: 'p' } });
const result = (test_id: string, status: TestResult['status']): TestResult => ({ test_id, status, duration_ms: 1, assertions_passed: 0, assertions_failed: 0, error_message: null, stack_trace: null, screenshots: [], metadata: {} });
const planOf = (...ids: string[]) => ({ channel: 'replace' as const, field: 'test_plan' as const, value: ids.map((id) => ({ id, type: 'API', name: id })) });

describe('applyWrites', () => {
  it('upserts results per test and recomputes the counters', () => {
    let s = applyWrites(base(), [planOf('a', 'b'), { channel: 'result', value: result('a', 'PASSED') }, { channel: 'result', value: result('b', 'FAILED') }]);
    expect([s.passed_count, s.failed_count, s.skipped_count, s.current_test_index]).toEqual([1, 1, 0, 2]);
    s = applyWrites(s, [{ channel: 'result', value: result('b', 'HEALED') }]);
    expect(s.test_results).toHaveLength(2);
    expect([s.passed_count, s.failed_count]).toEqual([2, 0]); // healed counts as passed
  });

  it('counts only results of planned tests, one per test: the counters never exceed the plan (found by QA: 4 of 2)', () => {
    const s = applyWrites(base(), [
      planOf('a', 'b'),
      { channel: 'replace', field: 'test_results', value: [result('a', 'PASSED'), result('ghost', 'FAILED'), result('b', 'SKIPPED'), result('a', 'FAILED'), result('other', 'HEALED')] },
    ]);
    expect([s.passed_count, s.failed_count, s.skipped_count, s.current_test_index]).toEqual([1, 0, 1, 2]);
    // A plan edited down leaves the results of the tests it dropped uncounted.
    const shorter = applyWrites(s, [planOf('b')]);
    expect([shorter.passed_count, shorter.failed_count, shorter.skipped_count, shorter.current_test_index]).toEqual([0, 0, 1, 1]);
  });

  it('does not mutate its input; shares what it did not touch; copies the values it was given', () => {
    const s = base();
    const mine = result('a', 'PASSED');
    const next = applyWrites(s, [{ channel: 'result', value: mine }, { channel: 'test_step', value: 'a' }]);
    expect(s.test_results).toEqual([]);
    expect(s.graph.test_steps).toEqual({});
    expect(next.test_plan).toBe(s.test_plan);
    expect(next.graph.config).toBe(s.graph.config);
    expect(next.test_results[0]).not.toBe(mine);
    mine.status = 'FAILED'; // the caller's object stays the caller's
    expect(next.test_results[0].status).toBe('PASSED');
    expect(Object.isFrozen(next.test_results[0])).toBe(true);
    expect(() => next.test_results.push(result('b', 'PASSED'))).toThrow(TypeError);
  });

  it('caps screenshots at 100 per run and counts what it dropped', () => {
    const s = applyWrites(base(), [{ channel: 'screenshots', value: Array.from({ length: 70 }, (_, i) => `a${i}`) }, { channel: 'screenshots', value: Array.from({ length: 40 }, (_, i) => `b${i}`) }]);
    expect(s.screenshots).toHaveLength(100);
    expect(s.graph.screenshots_dropped).toBe(10);
  });

  it('adds usage to the run and the test; a hard limit stops the run once', () => {
    let s = applyWrites(base(), [{ channel: 'usage', value: { input_tokens: 10, output_tokens: 5, cost_usd: 0.25, test_id: 'a' } }, { channel: 'usage', value: { input_tokens: 1, output_tokens: 1, cost_usd: 0.5, test_id: 'a' } }]);
    expect([s.total_tokens, s.total_cost, s.graph.test_costs.a]).toEqual([17, 0.75, 0.75]);
    const stop = { limit: 'COST_LIMIT_PER_RUN' as const, message: 'm', at: '2025-01-01T00:00:00.000Z', node: 'n', test_id: null, stop: true };
    s = applyWrites(s, [{ channel: 'limit', value: stop }, { channel: 'limit', value: { ...stop, limit: 'MAX_ITERATIONS' } }]);
    expect(s.graph.stop?.limit).toBe('COST_LIMIT_PER_RUN');
    expect(s.graph.limits).toHaveLength(2);
    expect(s.should_continue).toBe(false);
  });

  it('counts iterations as supersteps: root nodes plus the longest test loop', () => {
    const s = applyWrites(base(), [
      { channel: 'root_step', value: 'plan_tests' },
      { channel: 'root_step', value: 'execute_test' },
      { channel: 'test_step', value: 'a' },
      { channel: 'test_step', value: 'a' },
      { channel: 'test_step', value: 'b' },
    ]);
    expect(s.iteration).toBe(4);
    expect(s.next_agent).toBe('execute_test');
  });

  it('stores each write as (task_id, idx, channel, type, blob)', () => {
    const w = storedWrites([{ channel: 'replace', field: 'codebase_summary', value: 'x' }, { channel: 'attempt', value: 'a' }], 3);
    expect(w.map((x) => [x.task_id, x.idx, x.channel, x.type])).toEqual([[3, 0, 'replace:codebase_summary', 'json'], [3, 1, 'attempt', 'json']]);
    expect(JSON.parse(Buffer.from(w[1].blob, 'base64').toString())).toBe('a');
  });
});

describe('limits', () => {
  const at = '2025-01-01T00:00:00.000Z';
  it('COST_LIMIT_PER_RUN fires at the configured cap (10 USD at most)', () => {
    const s = base();
    expect(runLimit(s, 'execute_test', 'a', at)).toBeNull();
    s.total_cost = 10;
    expect(runLimit(s, 'execute_test', 'a', at)).toMatchObject({ limit: 'COST_LIMIT_PER_RUN', test_id: null });
  });

  it('MAX_ITERATIONS fires when the next node would pass it', () => {
    const s = base();
    s.max_iterations = 3;
    s.graph.root_steps = 2;
    expect(runLimit(s, 'execute_test', 'a', at)).toBeNull(); // 2 + 1 = 3
    s.graph.test_steps.a = 1;
    expect(runLimit(s, 'execute_test', 'a', at)).toMatchObject({ limit: 'MAX_ITERATIONS', test_id: 'a' });
    expect(runLimit(s, 'execute_test', 'b', at)).toBeNull(); // b's loop is not longer than a's
  });

  it('COST_LIMIT_PER_TEST fires at 1 USD for the test', () => {
    const s = base();
    s.graph.test_costs.a = 1;
    expect(testCostLimit(s, 'a', 'self_heal', at)).toMatchObject({ limit: 'COST_LIMIT_PER_TEST', test_id: 'a' });
    expect(testCostLimit(s, 'b', 'self_heal', at)).toBeNull();
  });
});
