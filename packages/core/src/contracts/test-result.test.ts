import { describe, expect, it } from 'vitest';
import { issues, paths, id, now, parseInput } from './test-support.ts';
import { TestResultRecordInput, TestResultRecordSchema } from './test-result.ts';

describe('test result record', () => {
  const test_id = id();
  const run = id();

  it('accepts run_id, error and duration_seconds as aliases', () => {
    expect(parseInput(TestResultRecordInput, { test_id, run_id: run, status: 'failed', duration_seconds: 1.2345, error: 'boom' })).toEqual({
      test_id, test_run_id: run, status: 'failed', duration_ms: 1235, error_message: 'boom', screenshots: [], metadata: {},
    });
  });

  it('canonical names pass through; status is stored lower-case', () => {
    expect(parseInput(TestResultRecordInput, { test_id, test_run_id: run, status: 'PASSED', duration_ms: 10 })).toMatchObject({ status: 'passed', duration_ms: 10 });
  });

  it('rejects conflicting alias and canonical values at the alias path', () => {
    expect(issues(TestResultRecordInput, { test_id, run_id: run, test_run_id: id(), status: 'passed' })).toEqual([
      { path: 'run_id', message: 'use only one of run_id, test_run_id' },
    ]);
    expect(issues(TestResultRecordInput, { test_id, test_run_id: run, status: 'passed', duration_seconds: 2, duration_ms: 1500 })).toEqual([
      { path: 'duration_seconds', message: 'use only one of duration_seconds, duration_ms' },
    ]);
    expect(parseInput(TestResultRecordInput, { test_id, test_run_id: run, status: 'passed', duration_seconds: 1.5, duration_ms: 1500 }).duration_ms).toBe(1500);
  });

  it('names bad fields', () => {
    expect(paths(TestResultRecordInput, { test_id, test_run_id: run, status: 'passed', duration_seconds: -1 })).toEqual(['duration_seconds']);
    expect(paths(TestResultRecordInput, { test_id, test_run_id: run, status: 'passed', duration_ms: 1.5 })).toEqual(['duration_ms']);
    expect(paths(TestResultRecordInput, { test_id, test_run_id: run, status: 'exploded' })).toEqual(['status']);
    expect(issues(TestResultRecordInput, { test_id, test_run_id: run, status: 'passed', stack: 'x' })).toEqual([{ path: 'stack', message: 'unknown field' }]);
    expect(issues(TestResultRecordInput, { test_id, status: 'passed' })).toEqual([{ path: 'test_run_id', message: 'required' }]);
  });

  it('stored record', () => {
    const row = { id: id(), test_id, test_run_id: run, status: 'healed', duration_ms: 5, error_message: null, screenshots: [], metadata: {}, created_at: now };
    expect(TestResultRecordSchema.parse(row)).toEqual(row);
    expect(TestResultRecordSchema.safeParse({ ...row, status: 'HEALED' }).success).toBe(false);
  });
});
