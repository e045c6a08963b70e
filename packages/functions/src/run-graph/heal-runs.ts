import type { Store } from '@svc/core/store/index';
import { AppError } from '@svc/core/errors';
import { healingSettings } from '@svc/core/healing/service/settings';
import { healRunThreadId, type StartHealRun } from '@svc/core/events/healer-consumer';
import type { RunManager } from './run-manager.ts';
import { startOneTestRun } from './one-test-run.ts';

/**
 * Starts the heal run a healing.requested event asks for (the healer consumer's port): a
 * run of the one test with healing on, trigger heal, on the thread `heal-<event id>` —
 * the id POST /api/heal answered with, and the reason a redelivered event finds the run
 * already started instead of starting a second. The run carries the source of the run the
 * failure was seen in, when the request names one.
 */
export function healRunStarter(deps: { store: Store; runGraph: RunManager | undefined }): StartHealRun {
  return async (tenantId, request) => {
    const runGraph = deps.runGraph;
    if (!runGraph) throw new Error('heal runs need the run graph, which is not configured here (SVC_STATE_MACHINE_ARN on AWS)');
    const threadId = healRunThreadId(request.event_id);
    const test = await deps.store.tests.get(tenantId, request.test_id);
    if (!test) return { status: 'skipped', reason: `test ${request.test_id} does not exist in this organization` };
    const project = await deps.store.projects.get(tenantId, test.project_id);
    if (project && !healingSettings(project.config).settings.enabled) return { status: 'skipped', reason: 'healing is disabled for the project (config.healing.enabled)' };
    try {
      const { run } = await startOneTestRun(deps.store, runGraph, tenantId, null, {
        testId: test.id,
        settings: { trigger: 'heal', healing_enabled: true, thread_id: threadId },
        sourceOfRun: request.run_id,
      });
      return { status: 'started', run_id: run.id, thread_id: threadId };
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.code === 'CONFLICT') return { status: 'already_started', thread_id: threadId, run_id: await deps.store.testRuns.runOfThread(threadId) };
      if (err.code === 'NOT_FOUND' || err.code === 'VALIDATION_FAILED') return { status: 'skipped', reason: err.message };
      throw err;
    }
  };
}
