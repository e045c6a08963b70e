import { describe, expect, it } from 'vitest';
import { issues, now, paths } from './test-support.ts';
import { CheckpointSchema, CheckpointSummarySchema, CheckpointWriteSchema, CompareQuery, ForkInput } from './checkpoint.ts';

describe('checkpoint', () => {
  const cp = {
    thread_id: 't', checkpoint_ns: '', checkpoint_id: '1', parent_checkpoint_id: null,
    checkpoint: Buffer.from('{"a":1}').toString('base64'), metadata: { source: 'loop', step: 1, node: 'plan_tests' }, created_at: now,
  };
  it('parses a checkpoint and its summary', () => {
    expect(CheckpointSchema.parse(cp)).toEqual(cp);
    expect(CheckpointSummarySchema.parse(cp)).not.toHaveProperty('checkpoint');
  });
  it('rejects non-base64 state and unknown sources', () => {
    expect(CheckpointSchema.safeParse({ ...cp, checkpoint: 'not base64!' }).success).toBe(false);
    expect(CheckpointSchema.safeParse({ ...cp, metadata: { source: 'magic', step: 1 } }).success).toBe(false);
  });
  it('writes', () => {
    const w = { thread_id: 't', checkpoint_ns: '', checkpoint_id: '1', task_id: 0, idx: 0, channel: 'test_results', type: 'json', blob: 'e30=' };
    expect(CheckpointWriteSchema.parse(w)).toEqual(w);
    expect(CheckpointWriteSchema.safeParse({ ...w, task_id: 1.5 }).success).toBe(false);
  });
  it('time-travel inputs', () => {
    expect(paths(ForkInput, { thread_id: 't' })).toEqual(['checkpoint_id']);
    expect(issues(CompareQuery, { thread_id: 't', checkpoint_a: 'a', checkpoint_b: 'b', c: 'x' }, 'query')).toEqual([{ path: 'c', message: 'unknown field' }]);
  });
});
