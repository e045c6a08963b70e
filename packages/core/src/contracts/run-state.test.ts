import { describe, expect, it } from 'vitest';
import { paths, issues } from './test-support.ts';
import { FailureAnalysisSchema, runStateStatus, storedStatus, TestingStateSchema, TestResultSchema } from './run-state.ts';
import { TestSpecSchema, specTypeFor } from './test-spec.ts';

describe('TestSpec', () => {
  it('defaults', () => {
    expect(TestSpecSchema.parse({ id: 't1', type: 'E2E', name: 'Checkout' })).toEqual({
      id: 't1', type: 'E2E', name: 'Checkout', priority: 'MEDIUM', steps: [], assertions: [], preconditions: {}, postconditions: {}, timeout_seconds: 120, tags: [],
    });
  });
  it('upper-case enums only; timeout capped at 600', () => {
    expect(paths(TestSpecSchema, { id: 't1', type: 'ui', name: 'x' })).toEqual(['type']);
    expect(paths(TestSpecSchema, { id: 't1', type: 'UI', name: 'x', priority: 'high' })).toEqual(['priority']);
    expect(paths(TestSpecSchema, { id: 't1', type: 'UI', name: 'x', timeout_seconds: 601 })).toEqual(['timeout_seconds']);
    expect(specTypeFor.db).toBe('INTEGRATION');
  });
});

describe('TestResult (run state)', () => {
  it('accepts duration_seconds and error; canonical duration_ms', () => {
    expect(TestResultSchema.parse({ test_id: 't1', status: 'FAILED', duration_seconds: 0.0126, error: 'no such element' })).toEqual({
      test_id: 't1', status: 'FAILED', duration_ms: 13, assertions_passed: 0, assertions_failed: 0, error_message: 'no such element', stack_trace: null, screenshots: [], metadata: {},
    });
  });
  it('status is upper-case; converts to and from stored status', () => {
    expect(paths(TestResultSchema, { test_id: 't1', status: 'passed' })).toEqual(['status']);
    expect(storedStatus('HEALED')).toBe('healed');
    expect(runStateStatus('skipped')).toBe('SKIPPED');
  });
});

describe('FailureAnalysis', () => {
  it('defaults and bounds', () => {
    expect(FailureAnalysisSchema.parse({ test_id: 't', failure_type: 'selector_not_found', root_cause: 'renamed', confidence: 0.9 })).toMatchObject({ suggested_fixes: [], context: {} });
    expect(paths(FailureAnalysisSchema, { test_id: 't', failure_type: 'x', root_cause: 'y', confidence: 1.5 })).toEqual(['confidence']);
  });
});

describe('TestingState', () => {
  it('only run_id and started_at are required; everything else defaults', () => {
    const s = TestingStateSchema.parse({ run_id: 'r1', started_at: '2025-01-31T12:00:00.000Z' });
    expect(s).toMatchObject({
      run_id: 'r1', codebase_path: '', app_url: '', pr_number: null, changed_files: [], messages: [], test_plan: [], test_priorities: {},
      current_test_index: 0, current_test: null, test_results: [], failures: [], screenshots: [], healing_queue: [], healing_attempts: 0,
      healed_tests: [], iteration: 0, max_iterations: 50, total_input_tokens: 0, total_output_tokens: 0, total_tokens: 0, total_cost: 0,
      passed_count: 0, failed_count: 0, skipped_count: 0, next_agent: '', should_continue: true, error: null, user_id: null,
      security_summary: null, completed_at: null,
    });
    expect(Object.keys(s)).toHaveLength(34);
    expect(issues(TestingStateSchema, {}).map((i) => i.path).sort()).toEqual(['run_id', 'started_at']);
  });
  it('validates nested results and plan', () => {
    expect(paths(TestingStateSchema, { run_id: 'r', started_at: '2025-01-31T12:00:00Z', test_results: [{ test_id: 't', status: 'NOPE' }] })).toEqual(['test_results.0.status']);
    expect(paths(TestingStateSchema, { run_id: 'r', started_at: '2025-01-31T12:00:00Z', max_iterations: 51 })).toEqual(['max_iterations']);
    expect(paths(TestingStateSchema, { run_id: 'r', started_at: '2025-01-31T12:00:00Z', screenshots: Array(101).fill('x') })).toEqual(['screenshots']);
  });
});
