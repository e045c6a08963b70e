import { TestDefinition, MAX_TEST_TIMEOUT_MS } from '../contracts/steps.ts';
import type { TestSpec } from '../contracts/test-spec.ts';
import { caseId, caseName, parameterCases, type ParameterSet } from '../contracts/parameter-sets.ts';
import type { FlowDefinition } from '../contracts/flow.ts';
import { expandFlows, type FlowOrigin } from '../flows/expand-flows.ts';

/** What a test file carries beyond the TestSpec (the CLI's tests): its own timeout and {{parameters}}. */
export interface TestExtras {
  timeout_ms?: number;
  parameters?: Record<string, string | number | boolean>;
  /** The project's flows (the CLI's flow files, or the stored ones), which `use` steps expand into. */
  flows?: readonly FlowDefinition[];
}

/** The stored (or file) test a planned spec runs: a case's test, else the spec itself. */
export const testIdOf = (spec: Pick<TestSpec, 'id' | 'parameter_set'>): string => spec.parameter_set?.test_id ?? spec.id;

const typeFor = { UI: 'ui', E2E: 'ui', API: 'api', INTEGRATION: 'db' } as const;

/** The runner's kind of a planned test (ui, api, db); a UNIT spec, which never runs, reads as api. */
export const runnerTypeOf = (spec: Pick<TestSpec, 'type'>): 'ui' | 'api' | 'db' => (spec.type === 'UNIT' ? 'api' : typeFor[spec.type]);

/**
 * A planned test (TestSpec) as the runner's TestDefinition. The spec's execution timeout
 * (10 minutes) caps timeout_seconds. A test the runner cannot run says why.
 *
 * This is where `use` steps become their flows' steps, for `svc run` and the server's runs
 * alike (both run through this graph): the definition is the expanded one and `origins`
 * says, per step, which flow step it is. A flow deleted or changed since the test was
 * saved fails the test here, naming the step.
 */
export function definitionOf(spec: TestSpec, extra: TestExtras = {}): { ok: true; definition: TestDefinition; origins?: Array<FlowOrigin | undefined> } | { ok: false; message: string } {
  if (spec.type === 'UNIT') return { ok: false, message: 'UNIT tests are not executable by the run graph (it runs UI, API and database tests)' };
  if (!spec.steps.length) return { ok: false, message: 'the test has no steps' };
  const parsed = TestDefinition.safeParse({
    name: spec.name.slice(0, 255),
    type: typeFor[spec.type],
    priority: spec.priority.toLowerCase(),
    tags: spec.tags.slice(0, 50),
    timeout_ms: Math.max(1000, Math.min(extra.timeout_ms ?? spec.timeout_seconds * 1000, MAX_TEST_TIMEOUT_MS)),
    // A case's set fills its variables over the test's shared parameters (a file's, or a stored test's).
    parameters: { ...extra.parameters, ...spec.parameters, ...spec.parameter_set?.values },
    ...(spec.browser && { browser: spec.browser }),
    steps: spec.steps,
    assertions: spec.assertions,
  });
  if (!parsed.success) return { ok: false, message: `the test is not valid: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(test)'}: ${i.message}`).join('; ')}` };
  const expanded = expandFlows(parsed.data, extra.flows ?? []);
  if (!expanded.ok) return { ok: false, message: `the test's flows cannot be used: ${expanded.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}` };
  return { ok: true, definition: expanded.definition, ...(expanded.definition !== parsed.data && { origins: expanded.origins }) };
}

/**
 * Whether the run's `test_ids` ask for a planned spec: every spec when none are given; a
 * test id asks for all its cases, a case id (`<test id>[n]`) for that one.
 */
export function isSelected(spec: TestSpec, testIds: readonly string[] | null): boolean {
  return !testIds || testIds.includes(testIdOf(spec)) || (!!spec.parameter_set && testIds.includes(spec.id));
}

/**
 * A planned test as the specs the run executes: itself, or one case per parameter set
 * (id `<test id>[n]`, name `<test name> [<set name>]`), in the sets' order.
 */
export function casesOf(spec: TestSpec, sets: readonly ParameterSet[]): TestSpec[] {
  if (!sets.length) return [spec];
  return parameterCases(spec.id, sets).map((c) => ({ ...spec, id: caseId(spec.id, c.index), name: caseName(spec.name, c.name), parameter_set: c }));
}
