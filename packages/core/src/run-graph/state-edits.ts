import { validationFailed, type FieldIssue } from '../errors.ts';
import { TestingStateSchema, type TestingState, type TestResult } from '../contracts/run-state.ts';
import { toFieldIssues } from '../contracts/parse.ts';
import { editableFields, resultOf, type RunGraphState } from './state.ts';
import { stableJson } from './time-travel.ts';

/** Where a state is edited: an approval's modify (the run goes on) or a fork (a new run from a checkpoint). */
export type StateEdit = 'approval' | 'fork';

/**
 * Validates an edit of a run's state and returns the state's TestingState with it applied.
 * Only TestingState fields may be given (not run_id, not graph), each valid; test ids in
 * the plan are unique; and results follow what ran:
 *
 * - a result is of a planned test (or case), one per test: a result for anything else was
 *   counted and stored as if it had run (found by QA: a run of 2 tests said 1 passed,
 *   2 failed, 1 skipped);
 * - results are kept as they are or removed, never added or changed: a result comes from
 *   running the test, and a result made up or edited to PASSED would be reported — to the
 *   reports, the commit status, the test's latest status — as a pass of a test that never
 *   passed. A removed result's test runs again in a fork; at an approval the results of
 *   tests that ran stay (nothing would run them again);
 * - a plan edited without the results may not leave a result behind.
 *
 * Every problem is reported at once, each at its field (`state.test_results.1.test_id`).
 */
export function validatedEdit(state: RunGraphState, patch: Record<string, unknown>, edit: StateEdit): TestingState {
  const unknown = Object.keys(patch).filter((f) => !editableFields.includes(f as never));
  if (unknown.length) throw validationFailed(unknown.map((f) => ({ path: `state.${f}`, message: f === 'run_id' || f === 'graph' ? 'cannot be modified' : 'unknown field' })));
  const { graph: _g, ...current } = state;
  const parsed = TestingStateSchema.safeParse({ ...current, ...patch });
  if (!parsed.success) throw validationFailed(toFieldIssues(parsed.error).map((i) => ({ ...i, path: `state.${i.path}` })));
  const issues = [...(patch.test_plan !== undefined ? planIssues(parsed.data) : []), ...resultIssues(state, patch, parsed.data, edit)];
  if (issues.length) throw validationFailed(issues);
  return parsed.data;
}

function planIssues(next: TestingState): FieldIssue[] {
  const first = new Map<string, number>();
  const issues: FieldIssue[] = [];
  next.test_plan.forEach((t, i) => {
    const earlier = first.get(t.id);
    if (earlier === undefined) first.set(t.id, i);
    else issues.push({ path: `state.test_plan.${i}.id`, message: `${t.id} is test_plan.${earlier}'s id too: test ids must be unique` });
  });
  return issues;
}

const resultFields = (r: TestResult) => Object.keys(r) as Array<keyof TestResult>;

function resultIssues(state: RunGraphState, patch: Record<string, unknown>, next: TestingState, edit: StateEdit): FieldIssue[] {
  const planned = new Set(next.test_plan.map((t) => t.id));
  const issues: FieldIssue[] = [];
  if (patch.test_results === undefined) {
    // The plan changed, the results did not: a result whose test left the plan would be a result of nothing.
    if (patch.test_plan === undefined) return [];
    const left = state.test_results.filter((r) => !planned.has(r.test_id)).map((r) => r.test_id);
    if (left.length) {
      const them = left.length > 1 ? 'them' : 'it';
      issues.push({ path: 'state.test_plan', message: `${left.join(', ')} ${left.length > 1 ? 'have results' : 'has a result'} in this state: keep ${them} in the plan${edit === 'fork' ? `, or remove ${left.length > 1 ? 'their results' : 'its result'} (state.test_results) too` : ' (the results of tests that ran stay at an approval)'}` });
    }
    return issues;
  }
  const seen = new Set<string>();
  next.test_results.forEach((r, i) => {
    const at = `state.test_results.${i}`;
    if (!planned.has(r.test_id)) return void issues.push({ path: `${at}.test_id`, message: `${r.test_id} is not in test_plan: a result is of a planned test (or case)` });
    if (seen.has(r.test_id)) return void issues.push({ path: `${at}.test_id`, message: `a second result for ${r.test_id}: a test has one result` });
    seen.add(r.test_id);
    const before = resultOf(state, r.test_id);
    if (!before) {
      return void issues.push({ path: at, message: `${r.test_id} has no result in this state: results are kept or removed, not added (a result comes from running the test${edit === 'fork' ? ', which the fork does' : ''})` });
    }
    for (const f of new Set([...resultFields(before), ...resultFields(r)])) {
      if (stableJson(before[f]) === stableJson(r[f])) continue;
      issues.push({ path: `${at}.${f}`, message: `results are kept or removed, not edited: ${r.test_id}'s ${f} is ${JSON.stringify(before[f]) ?? 'absent'} in this state${edit === 'fork' ? ' (remove the result to run the test again)' : ''}` });
    }
  });
  if (edit === 'approval') {
    const removed = state.test_results.filter((r) => !seen.has(r.test_id)).map((r) => r.test_id);
    if (removed.length) issues.push({ path: 'state.test_results', message: `the results of tests that ran stay at an approval (nothing would run them again): ${removed.join(', ')} ${removed.length > 1 ? 'are' : 'is'} missing; fork a checkpoint to run tests again` });
  }
  return issues;
}
