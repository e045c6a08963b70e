import { describe, expect, it } from 'vitest';
import { blockingFailedTests, quarantinedFailures, quarantineOf } from './totals.ts';
import { runOutcomeMessage } from '../chatops/messages.ts';
import type { TestRun } from '../contracts/test-run.ts';

const run = (failed: number, quarantined?: number): TestRun => ({
  id: 'r1', project_id: 'p1', status: 'completed', trigger: 'chat', total_tests: 3, passed_tests: 3 - failed, failed_tests: failed,
  results: quarantined === undefined ? {} : { failed, quarantined_failed: quarantined }, error: null,
  started_at: null, completed_at: null, created_at: '2026-11-27T00:00:00Z', created_by: null,
} as unknown as TestRun);

describe('the verdict leaves quarantined failures out', () => {
  it('blocking failures: failed less quarantined; runs recorded before quarantine existed count every failure', () => {
    expect(blockingFailedTests(run(2, 1))).toBe(1);
    expect(blockingFailedTests(run(1, 1))).toBe(0);
    expect(blockingFailedTests(run(2))).toBe(2);
  });

  it('reads the reason from a result, and counts only failed quarantined results', () => {
    const results = [
      { status: 'failed', metadata: { quarantined: 'known flake' } },
      { status: 'passed', metadata: { quarantined: 'known flake' } },
      { status: 'FAILED', metadata: {} },
    ];
    expect(quarantineOf(results[0]!)).toBe('known flake');
    expect(quarantineOf(results[2]!)).toBeUndefined();
    expect(quarantinedFailures(results)).toBe(1);
  });

  it("a Slack run outcome calls a run whose only failure is quarantined passed, and says so in the counts", () => {
    const only = runOutcomeMessage({ run: run(1, 1), project: 'shop', failed: [], userId: 'U1' });
    expect(only.text).toBe('svc: shop run r1 passed — 2 passed, 1 failed (1 quarantined) of 3 tests');
    const mixed = runOutcomeMessage({ run: run(2, 1), project: 'shop', failed: [], userId: 'U1' });
    expect(mixed.text).toMatch(/ failed — 1 passed, 2 failed \(1 quarantined\) of 3 tests$/);
  });
});
