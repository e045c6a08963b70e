/** svc run's progress lines (progressPrinter) as a CI log shows them. */
import { describe, expect, it } from 'vitest';
import { progressPrinter } from '../../packages/functions/src/cli/progress.ts';

describe('svc run progress, not on a TTY', () => {
  it('prints PASS/FAIL lines; every line of a failure is indented under its test', () => {
    let text = '';
    const out = { isTTY: false, write: (s: string) => ((text += s), true) } as unknown as NodeJS.WriteStream;
    const print = progressPrinter(out, 2);
    const result = (status: string, error_message?: string) => ({ status, name: status === 'passed' ? 'home' : 'items', duration_ms: 12, ...(error_message && { error_message }) });
    print({ type: 'test_end', done: 1, total: 2, result: result('passed') } as never);
    print({ type: 'test_end', done: 2, total: 2, result: result('failed', 'assertion 1 (status): expected 200, got 500\nassertion 2 (json $.id): $.id not found') } as never);
    expect(text).toBe('PASS [1/2] home (12 ms)\nFAIL [2/2] items (12 ms)\n    assertion 1 (status): expected 200, got 500\n    assertion 2 (json $.id): $.id not found\n');
  });

  it('a pass after failed attempts says it is flaky (the reports did, the console did not; found by QA)', () => {
    let text = '';
    const out = { isTTY: false, write: (s: string) => ((text += s), true) } as unknown as NodeJS.WriteStream;
    progressPrinter(out, 1)({ type: 'test_end', done: 1, total: 1, result: { status: 'passed', name: 'checkout', duration_ms: 30, metadata: { retries: 2 } } } as never);
    expect(text).toBe('PASS [1/1] checkout (30 ms, flaky: passed on attempt 3)\n');
  });
});
