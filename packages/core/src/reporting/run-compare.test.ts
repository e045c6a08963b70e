import { describe, expect, it } from 'vitest';
import { compareRuns, type CompareResult } from './run-compare.ts';

const T = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`;
const r = (test: number, status: string, extra: Partial<CompareResult> = {}): CompareResult => ({
  test_id: T(test),
  status,
  duration_ms: 100,
  error_message: status === 'failed' ? `test ${test} broke` : null,
  metadata: { name: `test ${test}` },
  attempt: 1,
  ...extra,
});
const run = (id: string, results: CompareResult[], finished = true) => ({ id, finished, results });
const byId = (cmp: ReturnType<typeof compareRuns>, test: number, set?: number) => cmp.cases.find((c) => c.test_id === T(test) && c.parameter_set?.index === set);

describe('compareRuns', () => {
  it('names each change: new failure, fixed, still failing, new test, removed, passing', () => {
    const base = run('base', [r(1, 'passed'), r(2, 'failed'), r(3, 'failed'), r(4, 'passed'), r(6, 'passed')]);
    const now = run('now', [r(1, 'failed'), r(2, 'passed'), r(3, 'failed'), r(5, 'passed'), r(6, 'passed')]);
    const cmp = compareRuns(now, base);
    expect(cmp).toMatchObject({ run_id: 'now', base_run_id: 'base', partial: false });
    expect(cmp.summary).toEqual({ new_failures: 1, quarantined_new_failures: 0, fixed: 1, still_failing: 1, new_tests: 1, removed_tests: 1, not_run: 0, unchanged_passing: 1, skipped: 0, not_yet_run: 0 });
    expect(byId(cmp, 1)).toMatchObject({ change: 'new_failure', status: 'failed', base_status: 'passed', error: 'test 1 broke' });
    expect(byId(cmp, 2)).toMatchObject({ change: 'fixed', status: 'passed', base_status: 'failed' });
    expect(byId(cmp, 2)!.error).toBeUndefined();
    expect(byId(cmp, 3)).toMatchObject({ change: 'still_failing', error: 'test 3 broke' });
    expect(byId(cmp, 4)).toMatchObject({ change: 'removed', status: null, base_status: 'passed', duration_ms: null });
    expect(byId(cmp, 5)).toMatchObject({ change: 'new_test', base_status: null, base_duration_ms: null });
    expect(byId(cmp, 6)).toMatchObject({ change: 'passing' });
    // New failures lead the list.
    expect(cmp.cases.map((c) => c.change)).toEqual(['new_failure', 'still_failing', 'fixed', 'new_test', 'removed', 'passing']);
  });

  it("a base case whose test still exists was only not selected: not_run, not removed", () => {
    const base = run('base', [r(1, 'passed'), r(2, 'failed'), r(4, 'passed')]);
    const now = run('now', [r(1, 'passed')]);
    const cmp = compareRuns(now, base, new Map(), 'previous_run', (c) => c.test_id !== T(4));
    expect(cmp.summary).toMatchObject({ removed_tests: 1, not_run: 1, unchanged_passing: 1, new_failures: 0 });
    expect(byId(cmp, 2)).toMatchObject({ change: 'not_run', status: null, base_status: 'failed' });
    expect(byId(cmp, 4)).toMatchObject({ change: 'removed' });
  });

  it('judges each run by the last attempt of a case', () => {
    // Failed then passed on a retry in the base; passed then failed on the retry here.
    const base = run('base', [r(1, 'passed', { attempt: 2 }), r(1, 'failed', { attempt: 1 })]);
    const now = run('now', [r(1, 'passed', { attempt: 1 }), r(1, 'failed', { attempt: 2, error_message: 'second try broke' })]);
    const cmp = compareRuns(now, base);
    expect(cmp.cases).toHaveLength(1);
    expect(cmp.cases[0]).toMatchObject({ change: 'new_failure', status: 'failed', base_status: 'passed', error: 'second try broke' });
  });

  it('compares each parameter set as a case of its own', () => {
    const set = (index: number, name: string) => ({ parameter_set: { index, name }, metadata: { name: `sign in [${name}]` } });
    const base = run('base', [r(1, 'passed', set(1, 'admin')), r(1, 'passed', set(2, 'guest'))]);
    const now = run('now', [r(1, 'passed', set(1, 'admin')), r(1, 'failed', set(2, 'guest'))]);
    const cmp = compareRuns(now, base);
    expect(cmp.cases).toHaveLength(2);
    expect(byId(cmp, 1, 2)).toMatchObject({ name: 'sign in [guest]', parameter_set: { index: 2, name: 'guest' }, change: 'new_failure' });
    expect(byId(cmp, 1, 1)).toMatchObject({ name: 'sign in [admin]', change: 'passing' });
    expect(cmp.summary.new_failures).toBe(1);
  });

  it('counts healed as passing: a heal after a failure is a fix, a heal after a pass no change', () => {
    const cmp = compareRuns(run('now', [r(1, 'healed'), r(2, 'healed')]), run('base', [r(1, 'failed'), r(2, 'passed')]));
    expect(byId(cmp, 1)).toMatchObject({ change: 'fixed', status: 'healed' });
    expect(byId(cmp, 2)).toMatchObject({ change: 'passing', status: 'healed' });
    // A failure after a healed run is a new failure.
    expect(compareRuns(run('n', [r(3, 'failed')]), run('b', [r(3, 'healed')])).summary.new_failures).toBe(1);
  });

  it("counts a quarantined test's new failure apart from the run's new failures", () => {
    const q = { metadata: { name: 'test 1', quarantined: 'flaky upstream' } };
    const cmp = compareRuns(run('now', [r(1, 'failed', q), r(2, 'failed')]), run('base', [r(1, 'passed'), r(2, 'passed')]));
    expect(cmp.summary).toMatchObject({ new_failures: 1, quarantined_new_failures: 1 });
    expect(byId(cmp, 1)).toMatchObject({ change: 'new_failure', quarantined: 'flaky upstream' });
    expect(byId(cmp, 2)!.quarantined).toBeUndefined();
  });

  it('lists skipped cases as skipped, not as fixed or failing', () => {
    const cmp = compareRuns(run('now', [r(1, 'skipped'), r(2, 'passed')]), run('base', [r(1, 'failed'), r(2, 'skipped')]));
    expect(byId(cmp, 1)!.change).toBe('skipped');
    expect(byId(cmp, 2)!.change).toBe('passing');
    expect(cmp.summary).toMatchObject({ skipped: 1, fixed: 0, unchanged_passing: 1 });
  });

  it('names the cases at least 1.5× and 500 ms slower, slowest first, at most 5', () => {
    const base = run('base', Array.from({ length: 9 }, (_, i) => r(i + 1, 'passed', { duration_ms: 1000 })));
    const durations = [1400, 1600, 2000, 1499, 3000, 2600, 2500, 4000, 2100];
    const now = run('now', durations.map((d, i) => r(i + 1, 'passed', { duration_ms: d })));
    const cmp = compareRuns(now, base);
    expect(cmp.slower.map((c) => c.duration_ms)).toEqual([4000, 3000, 2600, 2500, 2100]);
    expect(cmp.slower[0]).toMatchObject({ base_duration_ms: 1000, duration_change_ratio: 4 });
    // 1.5× but under 500 ms more is not slower.
    const small = compareRuns(run('n', [r(1, 'passed', { duration_ms: 600 })]), run('b', [r(1, 'passed', { duration_ms: 200 })]));
    expect(small.slower).toEqual([]);
    expect(small.cases[0].duration_change_ratio).toBe(3);
  });

  it('while the run goes, a base case not reported yet is not yet run, not removed', () => {
    const cmp = compareRuns(run('now', [r(1, 'failed')], false), run('base', [r(1, 'passed'), r(2, 'passed')]));
    expect(cmp.partial).toBe(true);
    expect(cmp.summary).toMatchObject({ new_failures: 1, removed_tests: 0, not_yet_run: 1 });
    expect(cmp.cases).toHaveLength(1);
  });

  it('without a base every case is a new test', () => {
    const cmp = compareRuns(run('now', [r(1, 'failed'), r(2, 'passed')]), null);
    expect(cmp.base_run_id).toBeNull();
    expect(cmp.summary).toMatchObject({ new_tests: 2, new_failures: 0 });
  });

  it('names a case without a recorded name by its stored test', () => {
    const cmp = compareRuns(run('now', [r(1, 'passed', { metadata: {} })]), null, new Map([[T(1), 'checkout works']]));
    expect(cmp.cases[0].name).toBe('checkout works');
  });
});
