import { Logger } from '@aws-lambda-powertools/logger';
import { scheduleService } from '@svc/core/services/schedules';
import type { AppDeps } from '../api/deps.ts';
import { scheduledRunStarter } from '../run-graph/scheduled-runs.ts';
import { loadAwsConfig } from './config.ts';
import { buildAwsDeps } from './deps.ts';

/**
 * Scheduled runs on AWS (infra/api.ts, every minute): starts the runs that are due, with
 * the API's own deps, so a run starts on the same state machine as one started through
 * the API. The local runtime ticks the same sweep (local/schedule-ticker.ts).
 */

const logger = new Logger({ serviceName: 'svc-schedules' });

let depsPromise: Promise<AppDeps> | undefined;

function getDeps(): Promise<AppDeps> {
  if (!depsPromise) {
    depsPromise = buildAwsDeps(loadAwsConfig(process.env));
    depsPromise.catch(() => {
      depsPromise = undefined; // a failed build is tried again on the next minute
    });
  }
  return depsPromise;
}

export async function handler(): Promise<{ started: number; failed: number }> {
  const deps = await getDeps();
  if (!deps.runGraph) throw new Error('scheduled runs need the run graph: SVC_STATE_MACHINE_ARN is not set');
  const result = await scheduleService({ store: deps.store, clock: deps.clock }).sweep(scheduledRunStarter(deps.runGraph), deps.logger);
  if (result.started || result.failed) logger.info('scheduled runs swept', result);
  return result;
}
