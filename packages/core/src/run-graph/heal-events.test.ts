import { describe, expect, it } from 'vitest';
import type { TestResult } from '../contracts/run-state.ts';
import { healingCompleted } from '../events/producers.ts';
import { healConclusions } from './heal-events.ts';
import { applyWrites } from './writes.ts';
import { initialState, type HealRecord } from './state.ts';

const state = (trigger = 'api') => initialState({ run_id: 'r', started_at: '2026-01-01T00:00:00.000Z', config: { thread_id: 't', organization_id: 'o', project_id: 'p', trigger } });
const result = (status: TestResult['status'], metadata: Record<string, unknown> = {}): TestResult => ({ test_id: 'a', status, duration_ms: 1, assertions_passed: 0, assertions_failed: 0, error_message: null, stack_trace: null, screenshots: [], metadata: { attempt: 1, ...metadata } });
const plan = { id: 'a', name: 'checkout', type: 'ui', priority: 'high', steps: [{ type: 'goto', url: '/' }, { type: 'click', selector: '#buy' }], assertions: [] };
const fix = { kind: 'locator', method: 'dom_similarity', confidence: 0.91, changes: [{ step: 1, field: 'selector', from: '#buy', to: 'test_id=buy' }], test: plan };
const heal = (record: Partial<HealRecord>) => ({ channel: 'heal' as const, value: { test_id: 'a', record: { status: 'none', attempts: 0, reason: null, proposal: null, ...record } as HealRecord } });
const at = (trigger: string, ...writes: Parameters<typeof applyWrites>[1]) => applyWrites(state(trigger), [{ channel: 'replace', field: 'test_plan', value: [plan] as never }, ...writes]);
/** Each conclusion must be an event the producer accepts. */
const publishable = (c: ReturnType<typeof healConclusions>) => c.map((p) => healingCompleted({ source: 'svc.healer', tenant_id: 'o' }, { test_id: crypto.randomUUID(), ...p }).payload);

describe('healConclusions', () => {
  it('a HEALED result after the self-healer\'s fix: success, applied when at or above 0.8 (in-step heals publish their own)', () => {
    const steps = [{ index: 1, status: 'passed', healed: { original: '#buy', healed: 'role=button[name="Buy"]', confidence: 0.9 } }];
    expect(healConclusions(at('api', { channel: 'result', value: result('HEALED', { steps }) }), 'a')).toEqual([]);
    const applied = healConclusions(at('api', heal({ status: 'applied', attempts: 1, proposal: fix }), { channel: 'result', value: result('HEALED', { attempt: 2 }) }), 'a');
    expect(publishable(applied)).toEqual([expect.objectContaining({ success: true, applied: true, original_selector: '#buy', healed_selector: 'test_id=buy', confidence: 0.91, healing_method: 'dom_similarity', outcome: 'healed', step_index: 1, attempt: 2 })]);
    const approved = healConclusions(at('api', heal({ status: 'applied', attempts: 1, proposal: { ...fix, confidence: 0.6 } }), { channel: 'result', value: result('HEALED', { attempt: 2 }) }), 'a');
    expect(publishable(approved)).toEqual([expect.objectContaining({ success: true, applied: false, confidence: 0.6 })]);
  });

  it('a heal that ended without a fix: success false, no selector; a rejected fix is named as proposed', () => {
    const failed = (record: Partial<HealRecord>, kind = 'locator', trigger = 'api') => healConclusions(at(trigger, heal(record), { channel: 'result', value: result('FAILED', { failure_kind: kind, failed_step: 1 }) }), 'a');
    expect(publishable(failed({ status: 'cannot_heal', reason: 'cannot heal: no confident replacement' }))).toEqual([
      expect.objectContaining({ success: false, applied: false, healed_selector: null, confidence: 0, outcome: 'cannot_heal', reason: 'cannot heal: no confident replacement', original_selector: '#buy', step_index: 1 }),
    ]);
    expect(publishable(failed({ status: 'exhausted', attempts: 3, reason: 'max retries reached', proposal: fix }))[0]).toMatchObject({ outcome: 'exhausted', healed_selector: null, original_selector: '#buy' });
    const rejected = publishable(failed({ status: 'rejected', attempts: 1, reason: 'fix rejected; the test stays failed', proposal: fix }))[0];
    expect(rejected).toMatchObject({ success: false, applied: false, healed_selector: null, proposed_selector: 'test_id=buy', confidence: 0.91, outcome: 'rejected' });
    // An assertion that failed in an ordinary run was never a heal attempt; in a heal run it is the answer.
    expect(failed({ status: 'cannot_heal', reason: 'cannot heal an assertion failure' }, 'assertion')).toEqual([]);
    expect(failed({ status: 'cannot_heal', reason: 'cannot heal an assertion failure' }, 'assertion', 'heal')).toEqual([expect.objectContaining({ outcome: 'cannot_heal' })]);
  });

  it('concludes nothing while the healing goes on, and not_needed only for a heal run that passed', () => {
    expect(healConclusions(at('api', heal({ status: 'awaiting_approval', attempts: 1, proposal: fix }), { channel: 'result', value: result('FAILED', { failure_kind: 'locator' }) }), 'a')).toEqual([]);
    expect(healConclusions(at('api', { channel: 'result', value: result('PASSED') }), 'a')).toEqual([]);
    expect(healConclusions(at('api'), 'a')).toEqual([]);
    expect(publishable(healConclusions(at('heal', { channel: 'result', value: result('PASSED') }), 'a'))).toEqual([expect.objectContaining({ success: false, outcome: 'not_needed', healed_selector: null })]);
  });
});
