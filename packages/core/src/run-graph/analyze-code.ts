import type { TestRecord } from '../store/tests.ts';
import type { GraphDeps } from './deps.ts';
import { runRootNode } from './root-node.ts';
import type { RunGraphState } from './state.ts';

export const NO_SURFACES = 'no surfaces: code analysis is not configured';

/**
 * analyze_code. Code analysis (the intelligence issue) is not built, so the testable
 * surfaces are the tests stored for the project — the ones the run names, or all of the
 * project's tests. With none, the run goes to report with NO_SURFACES: nothing invented.
 */
export async function analyzeCode(deps: GraphDeps, threadId: string): Promise<{ route: string; state: RunGraphState }> {
  return runRootNode(deps, threadId, 'analyze_code', async (state) => {
    const { tests, missing } = await selectedTests(deps, state);
    const surfaces = tests.map((t) => ({ kind: 'stored_test', test_id: t.id, name: t.name, type: t.type, priority: t.priority, tags: t.tags }));
    const logs = missing.map((id) => ({ level: 'warn' as const, message: `test ${id} no longer exists; it is left out of the run` }));
    if (!surfaces.length) {
      return { route: 'report', writes: () => [{ channel: 'replace', field: 'error', value: NO_SURFACES }], logs: [...logs, { level: 'error', message: NO_SURFACES }] };
    }
    const summary = `${surfaces.length} stored test${surfaces.length === 1 ? '' : 's'} selected as the testable surfaces; code analysis is not configured, so no code was analysed`;
    return {
      route: 'plan_tests',
      writes: () => [
        { channel: 'replace', field: 'testable_surfaces', value: surfaces },
        { channel: 'replace', field: 'codebase_summary', value: summary },
      ],
      logs: [...logs, { level: 'info', message: summary }],
    };
  });
}

/** The run's stored tests: the ids asked for, in order, or the whole project. */
export async function selectedTests(deps: GraphDeps, state: RunGraphState): Promise<{ tests: TestRecord[]; missing: string[] }> {
  const { organization_id: org, project_id: project, test_ids: ids } = state.graph.config;
  if (ids) {
    const found = await Promise.all(ids.map((id) => deps.store.tests.get(org, id)));
    return { tests: found.filter((t): t is TestRecord => !!t && t.project_id === project), missing: ids.filter((_, i) => !found[i] || found[i]!.project_id !== project) };
  }
  const tests: TestRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await deps.store.tests.list(org, { projectId: project, limit: 200, cursor });
    tests.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return { tests: tests.reverse(), missing: [] }; // the list is newest first; plan oldest first
}
