import { createHash } from 'node:crypto';
import type { TestResult } from '../contracts/run-state.ts';
import { splitCaseId } from '../contracts/parameter-sets.ts';
import type { EventEnvelope } from '../contracts/events.ts';
import { eventSources, testExecuted, testFailed } from '../events/producers.ts';
import type { GraphDeps } from './deps.ts';
import { nodeEvents } from './node-events.ts';
import type { RunGraphState } from './state.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Event payloads name tests, runs and projects by UUID. */
export const isUuid = (id: string) => UUID.test(id);

/**
 * The failure_type a failure kind is published as: the names stream analytics groups and
 * explains (selector_not_found, timeout, assertion, network); other kinds keep their name.
 */
const FAILURE_TYPES: Record<string, string> = { locator: 'selector_not_found', navigation: 'network', network: 'network' };

/**
 * test.executed for every execution a run finishes, and test.failed for a failed one
 * (spec: the test runner produces both; stream analytics counts executions per test and day
 * and clusters failures that share a signature, the API consumer records failures in the
 * activity feed). Published after the result is committed and stored.
 *
 * Each event's id is derived from the run, the case, the attempt and the type, so an
 * execution whose node runs again after a crash publishes the same ids, and consumers,
 * which deduplicate by event_id (rule 8), count it once. A result of a test that is not a
 * stored test (svc run's file tests without ids) is not published; neither is anything
 * when the run has no publisher (svc run). Publishing never fails the run: a refused event
 * is a warning in the run's log.
 */
export async function publishExecution(deps: GraphDeps, threadId: string, state: RunGraphState, result: TestResult): Promise<void> {
  if (!deps.publisher) return;
  const cfg = state.graph.config;
  const spec = state.test_plan.find((t) => t.id === result.test_id);
  const testId = publishedTestId(state, result.test_id);
  if (!testId || !UUID.test(cfg.project_id)) return;
  const attempt = typeof result.metadata.attempt === 'number' ? result.metadata.attempt : 1;
  const status = result.status.toLowerCase() as 'passed' | 'failed' | 'skipped' | 'healed';
  const context = (type: string) => ({
    source: eventSources.testRunner,
    tenant_id: cfg.organization_id,
    correlation_id: state.run_id,
    clock: deps.clock,
    ids: { uuid: () => stableEventId(state.run_id, result.test_id, attempt, type) },
  });
  const events: EventEnvelope[] = [
    testExecuted(context('test.executed'), {
      test_id: testId,
      run_id: state.run_id,
      project_id: cfg.project_id,
      status,
      duration_ms: Math.max(0, Math.round(result.duration_ms)),
      ...(result.error_message ? { error_message: result.error_message } : {}),
      attempt,
      ...(spec?.parameter_set ? { parameter_set: spec.parameter_set.index } : {}),
    }),
  ];
  if (status === 'failed') {
    const kind = typeof result.metadata.failure_kind === 'string' ? result.metadata.failure_kind : 'unknown';
    const step = typeof result.metadata.failed_step === 'number' ? result.metadata.failed_step : undefined;
    const selector = step === undefined ? undefined : selectorOf(spec?.steps, step);
    events.push(
      testFailed(context('test.failed'), {
        test_id: testId,
        run_id: state.run_id,
        project_id: cfg.project_id,
        failure_details: {
          ...(result.error_message ? { error_message: result.error_message } : {}),
          failure_type: FAILURE_TYPES[kind] ?? kind,
          ...(selector ? { selector } : {}),
          ...(step !== undefined ? { step_index: step } : {}),
        },
        attempt,
      }),
    );
  }
  for (const event of events) await publishOrWarn(deps, threadId, result.test_id, event.event_type, () => event);
}

/**
 * The stored test a case of the run is, as events name it: its UUID, or undefined when the
 * case is not a stored test (svc run's file tests) or the run has no UUID.
 */
export function publishedTestId(state: RunGraphState, caseId: string): string | undefined {
  const spec = state.test_plan.find((t) => t.id === caseId);
  const testId = spec?.parameter_set?.test_id ?? splitCaseId(caseId).testId;
  return UUID.test(testId) && UUID.test(state.run_id) ? testId : undefined;
}

/** Builds and publishes one event; a refused one (by its producer or the bus) is a warning in the run's log, never a failed run. */
export async function publishOrWarn(deps: GraphDeps, threadId: string, caseId: string, type: string, build: () => EventEnvelope): Promise<void> {
  try {
    await deps.publisher!.publish(build());
  } catch (err) {
    await nodeEvents(deps, threadId).log('warn', `${type} was not published: ${(err as Error).message}`, caseId);
  }
}

/**
 * The failed step's selector as written, when the test's steps are the ones that ran (a
 * test with `use` steps runs its flows' steps in their place, so its indices are not its own).
 */
export function selectorOf(steps: ReadonlyArray<Record<string, unknown>> | undefined, index: number): string | undefined {
  if (!steps || steps.some((s) => s.type === 'use')) return undefined;
  const selector = steps[index]?.selector;
  if (typeof selector === 'string') return selector;
  if (selector && typeof selector === 'object') return JSON.stringify(selector);
  return undefined;
}

/** A UUID (version 4 layout, as event ids are) that is the same for the same execution and type. */
export function stableEventId(runId: string, caseId: string, attempt: number, type: string): string {
  const h = createHash('sha256').update(`${runId}\u0000${caseId}\u0000${attempt}\u0000${type}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x40;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
