import type { TestRecord } from '../store/tests.ts';
import { analyzedPayload, codebaseAnalyzed, eventSources } from '../events/producers.ts';
import type { Analysis } from '../intelligence/analysis/types.ts';
import type { GraphDeps } from './deps.ts';
import { runRootNode, type RootNodeOutcome } from './root-node.ts';
import type { RunGraphState } from './state.ts';
import { splitCaseId } from '../contracts/parameter-sets.ts';
import { codeSurface, MAX_STATE_CODE_SURFACES, storedTestSurface } from './surfaces.ts';

export const NOT_CONFIGURED = 'code analysis is not configured';
/** Said first when a run has nothing to run: most often a project nobody has written tests for yet. */
const NO_TESTS = 'the project has no tests to run (add some with POST /api/tests or svc_create_test, or let the autonomous loop write smoke tests)';
export const NO_SURFACES = `no surfaces: ${NO_TESTS}, and ${NOT_CONFIGURED}`;


type Log = NonNullable<RootNodeOutcome['logs']>[number];
type CodeResult = { analysis: Analysis; codebase: string; partial: boolean } | { reason: string; failed?: true };

/**
 * analyze_code: the testable surfaces are the stored tests the run will execute (the ones
 * it names, or all of the project's) plus, when the run's codebase is a folder this
 * server may read, the routes, pages and operations the code analyser finds there.
 *
 * - No analyser, no local repository, or one outside the allowed roots: the stored tests
 *   alone, and the summary says why no code was analysed.
 * - The analysis fails: with stored tests the run goes on with them (a warning says why);
 *   without, the run goes to report with the error (spec: "no surfaces, or error → report").
 * - Nothing at all: report with "no surfaces: <why>". Nothing is invented.
 */
export async function analyzeCode(deps: GraphDeps, threadId: string): Promise<{ route: string; state: RunGraphState }> {
  return runRootNode(deps, threadId, 'analyze_code', async (state) => {
    const { tests, missing } = await selectedTests(deps, state);
    const logs: Log[] = missing.map((id) => ({ level: 'warn', message: `test ${id} no longer exists; it is left out of the run` }));
    const code = await analyse(deps, state);

    if ('reason' in code && code.failed) {
      const message = `code analysis failed: ${code.reason}`;
      if (!tests.length) return toReport(`analyze_code failed: ${code.reason}`, logs);
      logs.push({ level: 'warn', message: `${message}; continuing with the ${plural(tests.length, 'stored test')}` });
    }
    const found = 'analysis' in code ? code.analysis.surfaces : [];
    if (!tests.length && !found.length) return toReport(`no surfaces: ${NO_TESTS}, and ${'reason' in code ? code.reason : `no testable surfaces were found in ${code.codebase}`}`, logs);

    if ('analysis' in code) {
      for (const s of code.analysis.skipped.slice(0, 5)) logs.push({ level: 'info', message: `not analysed: ${s.path} (${s.reason})` });
      await publishAnalyzed(deps, state, code, logs);
    }
    const surfaces = [...tests.map(storedTestSurface), ...found.slice(0, MAX_STATE_CODE_SURFACES).map(codeSurface)];
    const summary = summaryText(tests.length, code);
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

async function analyse(deps: GraphDeps, state: RunGraphState): Promise<CodeResult> {
  if (!deps.analyzer) return { reason: NOT_CONFIGURED };
  const { organization_id: organizationId, project_id: projectId } = state.graph.config;
  try {
    const out = await deps.analyzer.analyze({ organizationId, projectId, codebasePath: state.codebase_path });
    return out.status === 'analyzed' ? out : { reason: out.reason };
  } catch (err) {
    return { reason: (err as Error).message, failed: true };
  }
}

function summaryText(testCount: number, code: CodeResult): string {
  const tests = `${plural(testCount, 'stored test')} selected to run`;
  if (!('analysis' in code)) {
    const why = code.failed ? `code analysis failed (${code.reason})` : code.reason;
    return `${tests}; no code was analysed: ${why}`;
  }
  const { summary, surfaces } = code.analysis;
  const kept = surfaces.length > MAX_STATE_CODE_SURFACES ? ` (the first ${MAX_STATE_CODE_SURFACES} are kept in the run state)` : '';
  const partial = code.partial ? ' A read limit stopped the read early: the analysis is partial.' : '';
  return `${summary.text}${partial} Analysed ${code.codebase}: ${plural(surfaces.length, 'code surface')}${kept}; ${tests}.`;
}

async function publishAnalyzed(deps: GraphDeps, state: RunGraphState, code: Extract<CodeResult, { analysis: Analysis }>, logs: Log[]) {
  if (!deps.publisher) return;
  const { organization_id: org, project_id: projectId } = state.graph.config;
  try {
    await deps.publisher.publish(
      codebaseAnalyzed(
        { source: eventSources.knowledgeWorker, tenant_id: org, correlation_id: state.run_id, clock: deps.clock },
        analyzedPayload(code.analysis, { project_id: projectId, codebase_path: code.codebase }, { run_id: state.run_id }),
      ),
    );
  } catch (err) {
    // An event bus that refuses the event does not undo the analysis the run already has.
    logs.push({ level: 'warn', message: `codebase.analyzed was not published: ${(err as Error).message}` });
  }
}

function toReport(error: string, logs: Log[]): RootNodeOutcome {
  return { route: 'report', writes: () => [{ channel: 'replace', field: 'error', value: error }], logs: [...logs, { level: 'error', message: error }] };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The run's stored tests: the ids asked for, in order, or the whole project. */
export async function selectedTests(deps: GraphDeps, state: RunGraphState): Promise<{ tests: TestRecord[]; missing: string[] }> {
  const { organization_id: org, project_id: project, test_ids: ids } = state.graph.config;
  if (ids) {
    // Case ids (`<test id>[n]`) select their test here; plan_tests keeps only the cases asked for.
    const testIds = [...new Set(ids.map((id) => splitCaseId(id).testId))];
    const found = await Promise.all(testIds.map((id) => deps.store.tests.get(org, id)));
    return { tests: found.filter((t): t is TestRecord => !!t && t.project_id === project), missing: testIds.filter((_, i) => !found[i] || found[i]!.project_id !== project) };
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
