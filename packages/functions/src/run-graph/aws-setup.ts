import type { SFNClient } from '@aws-sdk/client-sfn';
import type { Store } from '@svc/core/store/index';
import type { Table } from '@svc/core/ports/table';
import type { Clock } from '@svc/core/ports/clock';
import type { Logger } from '@svc/core/ports/logger';
import type { GraphDeps } from '@svc/core/run-graph/deps';
import { createExecutionEnvs } from './execution-env.ts';
import { createRunManager, type RunManager } from './run-manager.ts';
import { createSfnWorkflow } from './sfn-workflow.ts';

/**
 * The run graph for the API Lambda: the same run manager and routes as locally, with
 * executions on Step Functions (the Task Lambdas of lambda-tasks.ts do the work). Mount
 * with `runGraphRoutes(app, { ...deps, runGraph, runGraphStream: { maxStreamMs } }, registry)`
 * where maxStreamMs stays below the function's timeout, so a stream ends in time and the
 * client resumes it with Last-Event-ID.
 */
export function createAwsRunGraph(o: { store: Store; table: Table; clock: Clock; logger: Logger; sfn: SFNClient; stateMachineArn: string; publicUrl?: string; publisher?: GraphDeps['publisher'] }): RunManager {
  return createRunManager({
    store: o.store,
    table: o.table,
    clock: o.clock,
    logger: o.logger,
    // A cancel (in this function) posts a webhook run's last commit status, which links here.
    publicUrl: o.publicUrl,
    // A decision made here (a rejected fix) publishes healing.completed.
    publisher: o.publisher,
    envs: createExecutionEnvs({ store: o.store, artifactsDir: '/tmp/svc-artifacts' }),
    workflow: ({ deps }) =>
      createSfnWorkflow({
        client: o.sfn,
        stateMachineArn: o.stateMachineArn,
        executions: { save: (t, arn) => deps.threads.setExecution(t, arn), get: (t) => deps.threads.execution(t) },
      }),
  });
}
