import { runTest, type TestRunDeps } from '../execution/run-test.ts';
import type { StepResult, TestExecutionResult } from '../execution/types.ts';
import type { TestResult } from '../contracts/run-state.ts';
import { AppError } from '../errors.ts';
import type { GraphDeps } from './deps.ts';
import { runLimit, event } from './limits.ts';
import { nodeEvents } from './node-events.ts';
import { notRunResult, recordResult, toTestResult } from './results.ts';
import { publishExecution } from './execution-events.ts';
import { publishHealOutcome } from './heal-events.ts';
import { definitionOf, testIdOf } from './spec-to-definition.ts';
import { asDefinition } from '../contracts/flow.ts';
import { finalStatuses, resultOf, type RunGraphState } from './state.ts';
import type { Write } from './writes.ts';

/** A dom_snapshot event carries at most this much of the page's HTML (the artifact keeps up to 2 MB). */
const STREAM_DOM_CHARS = 200_000;

export type TestRoute = 'self_heal' | 'retry' | 'done';

/**
 * execute_test for one test of the Map state. Runs the test unless its result is
 * already in the checkpoint (a resumed run never runs a finished test twice), commits
 * the result, stores it in test_results, publishes test.executed (and test.failed), and
 * routes a failure to self_heal when healing is enabled.
 */
export async function executeTest(deps: GraphDeps, threadId: string, testId: string): Promise<{ route: TestRoute; state: RunGraphState }> {
  const { state } = await deps.checkpointer.load(threadId);
  const spec = state.test_plan.find((t) => t.id === testId);
  if (!spec) return { route: 'done', state };
  const previous = resultOf(state, testId);
  if (previous && finalStatuses.has(previous.status) && !state.graph.rerun.includes(testId)) return { route: routeAfterExecute(state, testId), state };
  const signal = deps.signal(threadId);
  if (signal.aborted) throw new AppError('CONFLICT', 'the run was cancelled');
  const ev = nodeEvents(deps, threadId);
  const taskId = state.test_plan.indexOf(spec) + 1;
  const stopped = state.graph.stop ?? runLimit(state, 'execute_test', testId, deps.clock.now().toISOString());
  if (stopped) {
    // Run-level stop: the test is not executed; report marks it skipped with the reason.
    const committed = await deps.checkpointer.commit(threadId, { node: 'execute_test', taskId, writes: (head) => (head.graph.stop ? [] : [{ channel: 'limit', value: { ...stopped, stop: true } }]), metadata: { test_id: testId } });
    return { route: 'done', state: committed.state };
  }

  const t0 = await ev.start('execute_test', testId);
  const healedRun = state.graph.heal[testId]?.status === 'applied' && state.graph.rerun.includes(testId);
  const execution = await execute(deps, state, threadId, testId, signal);
  if (signal.aborted) throw new AppError('CONFLICT', 'the run was cancelled');

  const committed = await deps.checkpointer.commit(threadId, {
    node: 'execute_test',
    taskId,
    metadata: { test_id: testId },
    writes: (head) => {
      const executions = (head.graph.attempts[testId] ?? 0) + 1;
      const attempt = head.graph.config.attempt_offset + executions;
      const result: TestResult = execution.result ? toTestResult(execution.result, attempt, healedRun, healedRun ? state.graph.heal[testId]?.proposal : undefined) : notRunResult(spec, 'FAILED', execution.error!, { attempt, failure_kind: 'configuration' });
      // Passing after failing, with nothing healed: flaky, and the report says so.
      const retried = !healedRun && resultOf(head, testId)?.status === 'FAILED' ? executions - 1 : 0;
      if (retried && result.status === 'PASSED') result.metadata = { ...result.metadata, retries: retried, flaky: true };
      const writes: Write[] = [
        { channel: 'attempt', value: testId },
        { channel: 'test_step', value: testId },
        { channel: 'rerun', value: { test_id: testId, on: false } },
        { channel: 'replace', field: 'current_test', value: spec },
        { channel: 'result', value: result },
        { channel: 'screenshots', value: result.screenshots },
      ];
      if (result.status === 'FAILED') {
        const kind = String(result.metadata.failure_kind ?? 'unknown');
        if (mayRetry(head, testId, kind, executions)) writes.push({ channel: 'rerun', value: { test_id: testId, on: true } });
        writes.push({ channel: 'failure', value: { test_id: testId, failure_type: kind, root_cause: result.error_message ?? 'unknown', confidence: 1, suggested_fixes: kind === 'locator' ? ['find a replacement selector (self_heal)'] : [], context: { failed_step: result.metadata.failed_step ?? null, attempt } } });
        if (kind === 'timeout' && /exceeded its timeout/.test(result.error_message ?? '')) {
          writes.push({ channel: 'limit', value: { ...event('EXECUTION_TIMEOUT', `test ${spec.name} exceeded its timeout of ${spec.timeout_seconds} s (at most 600 s)`, 'execute_test', testId, deps.clock.now().toISOString()), stop: false } });
        }
      }
      if (result.status === 'HEALED') {
        const h = head.graph.heal[testId];
        writes.push({ channel: 'healed_test', value: { test_id: testId, name: spec.name, attempt, fix: h?.proposal ?? null } });
      }
      const room = 100 - head.screenshots.length;
      if (result.screenshots.length > room) {
        writes.push({ channel: 'limit', value: { ...event('MAX_SCREENSHOTS', `MAX_SCREENSHOTS (100 per run) reached; ${result.screenshots.length - Math.max(0, room)} screenshot(s) of ${spec.name} not kept in the run state`, 'execute_test', testId, deps.clock.now().toISOString()), stop: false } });
      }
      return writes;
    },
  });
  const result = resultOf(committed.state, testId)!;
  await recordResult(deps, committed.state, result);
  await publishExecution(deps, threadId, committed.state, result);
  // A heal that held (HEALED), or a heal run whose test passed as it is: the healing is concluded.
  if (result.status !== 'FAILED') await publishHealOutcome(deps, threadId, committed.state, testId);
  await ev.log(result.status === 'FAILED' ? 'warn' : 'info', `${spec.name}: ${result.status}${result.error_message ? ` — ${result.error_message}` : ''}`, testId);
  await ev.end('execute_test', t0, committed.state, testId);
  return { route: routeAfterExecute(committed.state, testId), state: committed.state };
}

/**
 * Whether a failed execution is run again (the run's `retries`): not a configuration
 * failure (it fails the same way every time), not once the run is stopping or a fix was
 * applied (its re-run validates the fix), and at most `retries` times after the first.
 */
function mayRetry(state: RunGraphState, testId: string, kind: string, executions: number): boolean {
  const heal = state.graph.heal[testId]?.status;
  return kind !== 'configuration' && !state.graph.stop && executions <= state.graph.config.retries && heal !== 'applied' && heal !== 'awaiting_approval' && heal !== 'approved';
}

/** After execute_test: a failure is retried while the run allows, then goes to self_heal while healing is enabled and not concluded. */
export function routeAfterExecute(state: RunGraphState, testId: string): TestRoute {
  const r = resultOf(state, testId);
  if (r?.status === 'FAILED' && state.graph.rerun.includes(testId) && !state.graph.stop) return 'retry';
  if (!r || r.status !== 'FAILED' || !state.graph.config.healing_enabled || state.graph.stop) return 'done';
  const h = state.graph.heal[testId];
  if (h && (h.status === 'rejected' || h.status === 'cannot_heal' || h.status === 'exhausted')) return 'done';
  return 'self_heal';
}

async function execute(deps: GraphDeps, state: RunGraphState, threadId: string, testId: string, signal: AbortSignal): Promise<{ result?: TestExecutionResult; error?: string }> {
  const spec = state.test_plan.find((t) => t.id === testId)!;
  const cfg = state.graph.config;
  const extras = deps.testExtras?.(testIdOf(spec));
  // `use` steps expand into the flows as they are now: svc run's come with the files, the
  // server's are read from the project (a flow deleted since fails the test, naming the step).
  const flows = extras?.flows ?? (spec.steps.some((s) => s.type === 'use') ? (await deps.store.flows.listAll(cfg.organization_id, cfg.project_id)).map(asDefinition) : undefined);
  const def = definitionOf(spec, { ...extras, ...(flows && { flows }) });
  if (!def.ok) return { error: def.message };
  const env = await deps.execution({ threadId, organizationId: cfg.organization_id, projectId: cfg.project_id });
  // Step events are chained so they reach the log in step order without blocking the runner.
  let pending: Promise<unknown> = Promise.resolve();
  const emit = (fn: () => Promise<unknown>) => {
    pending = pending.then(fn).catch((err) => deps.logger.warn('run event not stored', { thread_id: threadId, error: (err as Error).message }));
  };
  const onStep = (_: string, step: StepResult) => {
    if (signal.aborted) return; // a step cut short by a cancel is not news
    emit(() => deps.events.append(threadId, { type: 'tool_call', data: { tool: step.type, test_id: testId, input: step.description, status: step.status, duration_ms: step.duration_ms, ...(step.error ? { error: step.error.message } : {}) } }));
    if (step.screenshot && env.artifacts.read) {
      const key = step.screenshot;
      emit(async () => {
        const bytes = await env.artifacts.read!(key);
        if (bytes) await deps.events.append(threadId, { type: 'screenshot', data: { base64: Buffer.from(bytes).toString('base64'), step: step.index, test_id: testId } });
      });
    }
  };
  // The failed page's DOM, for a live view; the stream's copy is cut shorter than the stored artifact.
  const onDomSnapshot: NonNullable<TestRunDeps['onDomSnapshot']> = (_, page) => {
    if (signal.aborted) return;
    const html = page.html.length > STREAM_DOM_CHARS ? page.html.slice(0, STREAM_DOM_CHARS) : page.html;
    emit(() => deps.events.append(threadId, { type: 'dom_snapshot', data: { html, url: page.url, step: page.step, test_id: testId, chars: page.html.length, truncated: page.truncated || html.length < page.html.length, artifact: page.artifact } }));
  };
  const log = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => !signal.aborted && emit(() => deps.events.append(threadId, { type: 'log', data: { level, message, test_id: testId } }));
  const result = await runTest(testId, def.definition, { ...env, ...(def.origins && { origins: def.origins }), baselineMode: state.graph.config.baseline_mode, baseUrl: state.app_url || undefined, signal, onStep, onDomSnapshot, log });
  await pending;
  return { result };
}
