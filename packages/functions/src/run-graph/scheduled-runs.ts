import { RunStartInput } from '@svc/core/run-graph/contracts';
import type { StartScheduledRun } from '@svc/core/services/schedules';
import type { RunManager } from './run-manager.ts';

/** A schedule's runs go through the run graph like any other, with trigger "schedule" and no user. */
export function scheduledRunStarter(runGraph: RunManager): StartScheduledRun {
  return async (orgId, request) => (await runGraph.start(orgId, null, RunStartInput.parse({ ...request, trigger: 'schedule' }))).run;
}
