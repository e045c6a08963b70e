import { priorities, specPriorityFor, specTypeFor, TestSpecSchema, type TestSpec } from '../contracts/test-spec.ts';
import type { TestRecord } from '../store/tests.ts';
import type { GraphDeps } from './deps.ts';
import { runRootNode } from './root-node.ts';
import type { RunGraphState } from './state.ts';

/** What the Map state needs after plan_tests (or after the plan's approval). */
export interface PlanOutput {
  tests: string[];
  max_concurrency: number;
}

/**
 * plan_tests: the plan is made from the stored tests found by analyze_code — real
 * steps and assertions, ordered by priority (CRITICAL first, stable otherwise). With no
 * tests the run goes to report.
 */
export async function planTests(deps: GraphDeps, threadId: string): Promise<{ route: string; state: RunGraphState }> {
  return runRootNode(deps, threadId, 'plan_tests', async (state) => {
    const org = state.graph.config.organization_id;
    const ids = state.testable_surfaces.map((s) => String(s.test_id));
    const records = (await Promise.all(ids.map((id) => deps.store.tests.get(org, id)))).filter((t): t is TestRecord => !!t);
    const plan = records.map(specFromRecord).sort((a, b) => priorities.indexOf(a.priority) - priorities.indexOf(b.priority));
    if (!plan.length) {
      const message = 'no tests: none of the selected tests could be planned';
      return { route: 'report', writes: () => [{ channel: 'replace', field: 'error', value: message }], logs: [{ level: 'error', message }] };
    }
    const route = state.graph.config.require_test_plan_approval ? 'await_plan_approval' : 'execute_tests';
    return {
      route,
      writes: () => [
        { channel: 'replace', field: 'test_plan', value: plan },
        { channel: 'replace', field: 'test_priorities', value: Object.fromEntries(plan.map((t) => [t.id, t.priority])) },
      ],
      logs: [{ level: 'info', message: `planned ${plan.length} test${plan.length === 1 ? '' : 's'}${route === 'await_plan_approval' ? '; waiting for the plan to be approved' : ''}` }],
    };
  });
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
  });
}
