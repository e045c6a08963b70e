import { specPriorityFor, specTypeFor, TestSpecSchema, type TestSpec } from '../contracts/test-spec.ts';
import type { TestRecord } from '../store/tests.ts';
import type { GraphDeps } from './deps.ts';
import { runRootNode } from './root-node.ts';
import type { RunGraphState } from './state.ts';
import { codeSurfaces, storedTestIds } from './surfaces.ts';
import { prioritiseTests, type PlannedTest } from './plan-priorities.ts';
import { casesOf, isSelected } from './spec-to-definition.ts';
import { setRunStatus } from './run-total.ts';

/** What the Map state needs after plan_tests (or after the plan's approval). */
export interface PlanOutput {
  tests: string[];
  max_concurrency: number;
}

/**
 * plan_tests: the plan is made from the stored tests found by analyze_code — real steps
 * and assertions — prioritised by the planning module against the code surfaces and the
 * run's changed files (plan-priorities.ts): tests on changed surfaces first, then by
 * priority and risk. Each test's priority, risk and reasons are recorded in a plan_tests
 * message of the state. With no tests the run goes to report.
 */
export async function planTests(deps: GraphDeps, threadId: string): Promise<{ route: string; state: RunGraphState }> {
  const planned = await plan(deps, threadId);
  if (planned.state.test_plan.length) await setRunStatus(deps, planned.state, 'running', 'running');
  // A resumed run passes here again; runStarted's consumers act once per run.
  if (planned.route !== 'report' && planned.state.test_plan.length) await deps.runStarted?.(planned.state.graph.config.organization_id, planned.state.run_id, planned.state.test_plan.length);
  return planned;
}

function plan(deps: GraphDeps, threadId: string): Promise<{ route: string; state: RunGraphState }> {
  return runRootNode(deps, threadId, 'plan_tests', async (state) => {
    const org = state.graph.config.organization_id;
    const ids = storedTestIds(state.testable_surfaces);
    const records = (await Promise.all(ids.map((id) => deps.store.tests.get(org, id)))).filter((t): t is TestRecord => !!t);
    const code = codeSurfaces(state.testable_surfaces);
    if (!records.length) {
      const message = code.length
        ? `no tests: the codebase has ${code.length} testable surface${code.length === 1 ? '' : 's'} but the run has no stored tests to execute (create or generate tests first)`
        : 'no tests: none of the selected tests could be planned';
      return { route: 'report', writes: () => [{ channel: 'replace', field: 'error', value: message }], logs: [{ level: 'error', message }] };
    }
    const planned = prioritiseTests(records.map(specFromRecord), code, state.changed_files);
    // A parameterised test runs as its cases, one per set, where the test was planned.
    const sets = new Map(records.map((r) => [r.id, r.parameter_sets]));
    const plan = planned.flatMap((p) => casesOf(p.spec, sets.get(p.test_id) ?? [])).filter((s) => isSelected(s, state.graph.config.test_ids));
    const route = state.graph.config.require_test_plan_approval ? 'await_plan_approval' : 'execute_tests';
    const changed = planned.filter((p) => p.changed).length;
    return {
      route,
      writes: () => [
        { channel: 'replace', field: 'test_plan', value: plan },
        { channel: 'replace', field: 'test_priorities', value: Object.fromEntries(plan.map((t) => [t.id, t.priority])) },
        { channel: 'message', value: planMessage(planned, state.changed_files, (id) => sets.get(id)?.length ?? 0) },
      ],
      logs: [
        { level: 'info', message: `planned ${planned.length} test${planned.length === 1 ? '' : 's'}${plan.length > planned.length ? ` (${plan.length} cases with their parameter sets)` : ''}${changed ? ` (${changed} on surfaces the changed files touch, first)` : ''}${route === 'await_plan_approval' ? '; waiting for the plan to be approved' : ''}` },
      ],
    };
  });
}

/** The plan's reasoning, for people and for replays: one entry per test, in plan order. */
function planMessage(planned: PlannedTest[], changedFiles: string[], setsOf: (testId: string) => number) {
  const cases = (p: PlannedTest) => Math.max(1, setsOf(p.test_id));
  const lines = planned.map((p, i) => `${i + 1}. ${p.spec.name}${cases(p) > 1 ? ` (${cases(p)} parameter sets)` : ''} — ${p.priority} (risk ${p.risk_score.toFixed(2)}): ${p.reasons.join('; ')}`);
  return {
    role: 'assistant' as const,
    name: 'plan_tests',
    content: [
      { type: 'text', text: `Test plan${changedFiles.length ? ` for ${changedFiles.length} changed file${changedFiles.length === 1 ? '' : 's'}` : ''}:\n${lines.join('\n')}` },
      {
        type: 'test_plan',
        changed_files: changedFiles.slice(0, 200),
        tests: planned.map((p) => ({ test_id: p.test_id, ...(cases(p) > 1 ? { parameter_sets: cases(p) } : {}), priority: p.priority, stored_priority: p.stored_priority, planned_priority: p.planned_priority, risk_score: p.risk_score, changed: p.changed, reasons: p.reasons, surfaces: p.surfaces.slice(0, 20) })),
      },
    ],
  };
}

export function planOutput(state: RunGraphState): PlanOutput {
  return { tests: state.test_plan.map((t) => t.id), max_concurrency: state.graph.config.max_concurrency };
}

export function specFromRecord(t: TestRecord): TestSpec {
  return TestSpecSchema.parse({
    id: t.id,
    type: specTypeFor[t.type],
    name: t.name,
    priority: specPriorityFor[t.priority],
    steps: t.steps,
    assertions: t.assertions,
    tags: t.tags,
    // The spec counts whole seconds: a timeout of 1.5 s gives the test 2.
    timeout_seconds: Math.ceil(t.timeout_ms / 1000),
    ...(Object.keys(t.parameters).length && { parameters: t.parameters }),
    ...(t.browser && { browser: t.browser }),
    ...(t.quarantine && { quarantine: t.quarantine.reason }),
  });
}
