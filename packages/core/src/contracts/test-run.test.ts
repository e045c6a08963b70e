import { describe, expect, it } from 'vitest';
import { issues, paths, id, now, parseInput } from './test-support.ts';
import { ApprovalModifyInput, canTransitionRun, isTerminalRunStatus, TestRunCreateInput, TestRunListQuery, TestRunSchema, testRunStatuses } from './test-run.ts';

describe('test run', () => {
  it('status enum and transitions', () => {
    expect(testRunStatuses).toEqual(['pending', 'queued', 'running', 'awaiting_approval', 'completed', 'failed', 'cancelled']);
    expect(canTransitionRun('running', 'awaiting_approval')).toBe(true);
    expect(canTransitionRun('awaiting_approval', 'running')).toBe(true);
    expect(canTransitionRun('completed', 'running')).toBe(false);
    expect(isTerminalRunStatus('cancelled')).toBe(true);
    expect(isTerminalRunStatus('queued')).toBe(false);
  });

  it('create: defaults', () => {
    const project_id = id();
    expect(parseInput(TestRunCreateInput, { project_id })).toEqual({
      project_id, trigger: 'api', healing_enabled: true, require_test_plan_approval: false, require_healing_approval: false, max_iterations: 50,
    });
  });

  it('create: invalid and unknown fields', () => {
    expect(paths(TestRunCreateInput, { project_id: id(), max_iterations: 51 })).toEqual(['max_iterations']);
    expect(paths(TestRunCreateInput, { project_id: id(), cost_limit_usd: 11 })).toEqual(['cost_limit_usd']);
    expect(paths(TestRunCreateInput, { project_id: id(), test_ids: ['x'] })).toEqual(['test_ids.0']);
    expect(issues(TestRunCreateInput, { project_id: id(), parallel: true })).toEqual([{ path: 'parallel', message: 'unknown field' }]);
  });

  it('list query and approval inputs', () => {
    const project = id();
    expect(parseInput(TestRunListQuery, { project_id: project, status: 'awaiting_approval' }, 'query')).toEqual({ limit: 50, project_id: project, status: 'awaiting_approval' });
    expect(paths(TestRunListQuery, { project_id: project, status: 'done' }, 'query')).toEqual(['status']);
    // Runs are kept per project: a list names it.
    expect(paths(TestRunListQuery, {}, 'query')).toEqual(['project_id']);
    expect(paths(ApprovalModifyInput, {})).toEqual(['state']);
  });

  it('record', () => {
    const run = {
      id: id(), project_id: id(), thread_id: 't-1', status: 'pending', trigger: 'api', test_plan: [], results: {},
      total_tests: 0, passed_tests: 0, failed_tests: 0, error: null, created_at: now, started_at: null, completed_at: null,
    };
    expect(TestRunSchema.parse(run)).toEqual(run);
    expect(TestRunSchema.safeParse({ ...run, status: 'done' }).success).toBe(false);
  });
});
