import type { SuiteTest } from '@svc/core/execution/run-suite';
import { caseName, parameterCases } from '@svc/core/contracts/parameter-sets';
import type { InvalidTest } from './load-tests.ts';

export interface TestSelection {
  /** Tests whose name (or a case's `name [set]`) matches. */
  grep?: RegExp;
  /** Tests with at least one of these tags. */
  tags?: string[];
}

/**
 * `svc run --grep/--tag`: the tests to run. A parameterised test whose own name does not
 * match keeps only the cases whose name does (`sign in [admin]`), by their set positions,
 * so their ids, fingerprints and baselines are the same as in a full run.
 */
export function selectTests(tests: SuiteTest[], selection: TestSelection): SuiteTest[] {
  const { grep, tags } = selection;
  const out: SuiteTest[] = [];
  for (const t of tests) {
    const d = t.definition;
    if (tags?.length && !d.tags.some((tag) => tags.includes(tag))) continue;
    if (!grep || grep.test(d.name)) {
      out.push(t);
      continue;
    }
    const cases = parameterCases(t.id, d.parameter_sets).filter((c) => grep.test(caseName(d.name, c.name))).map((c) => c.index);
    if (cases.length) out.push({ ...t, cases });
  }
  return out;
}

/**
 * The invalid tests a selection keeps: those whose name matches --grep and (for --tag)
 * whose file gives a matching tag, placed again among the tests that were kept.
 */
export function selectInvalidTests(invalid: InvalidTest[], loaded: SuiteTest[], selected: SuiteTest[], selection: TestSelection): InvalidTest[] {
  const { grep, tags } = selection;
  const index = new Map(loaded.map((t, i) => [t.id, i]));
  return invalid
    .filter((t) => (!grep || grep.test(t.name)) && (!tags?.length || (t.tags ?? []).some((tag) => tags.includes(tag))))
    .map((t) => ({ ...t, position: selected.filter((s) => (index.get(s.id) ?? 0) < t.position).length }));
}
