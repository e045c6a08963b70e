import definition from '../asl/run-graph.asl.json' with { type: 'json' };
import { renderDefinition } from '../packages/functions/src/run-graph/definition.ts';
import { taskResources, type TaskResource } from '../packages/core/src/run-graph/tasks.ts';
import type { EventBus } from './events.ts';
import type { ModelSettings } from './model-settings.ts';
import type { SecretsKey } from './secrets.ts';
import { artifacts, table } from './storage.ts';

/**
 * The run graph on AWS: asl/run-graph.asl.json as a Step Functions state machine whose
 * Task states invoke one Lambda per resource (packages/functions/src/run-graph/
 * lambda-tasks.ts), plus the per-minute approval expiry.
 *
 * Declared by `declareRunGraph`, which sst.config.ts calls after declareEvents: the task
 * functions publish domain events (codebase.analyzed, healing.completed) to `bus`, so
 * they are linked to it (PutEvents) and told its name (SVC_EVENT_BUS_NAME). They also
 * get the model settings (infra/model-settings.ts): the in-step healer's model chooser,
 * the vision fallback and healing memory's embedder run in these functions. The API
 * needs the returned `apiEnvironment` and `apiPermissions` (infra/api.ts) to start, stop
 * and resume executions and to deliver approval decisions (SendTaskSuccess).
 */
const handlerOf: Record<TaskResource, string> = {
  analyze_code: 'analyzeCode',
  plan_tests: 'planTests',
  execute_test: 'executeTest',
  self_heal: 'selfHeal',
  request_approval: 'requestApproval',
  approval_expired: 'approvalExpired',
  report: 'report',
};

/** Test execution and healing drive a browser: more memory, and the longest timeout (Task timeouts are below it). */
const heavy = new Set<TaskResource>(['execute_test', 'self_heal']);

/** Task-token calls take no resource-level permission but the token itself. */
const taskTokenPermission = { actions: ['states:SendTaskSuccess', 'states:SendTaskFailure'], resources: ['*'] };

export interface RunGraphInputs {
  /** infra/events.ts's bus: the tasks publish their domain events there. */
  bus: EventBus;
  /** Model and embeddings settings (infra/model-settings.ts); none → the tasks run without a model. */
  models?: ModelSettings;
  /** The key that seals stored secrets (infra/secrets.ts): tests read project secrets, the report opens channel URLs. */
  secrets: SecretsKey;
}

export function declareRunGraph({ bus, models, secrets }: RunGraphInputs) {
  const environment = {
    SVC_TABLE_NAME: table.name,
    SVC_BUCKET_NAME: artifacts.name,
    SVC_EVENT_BUS_NAME: bus.name,
    ...secrets.environment,
    POWERTOOLS_SERVICE_NAME: 'svc-run-graph',
  };
  // Every task function runs the same per-container build (lambda-tasks.ts), so all get the
  // same settings; the approval expiry needs no model and gets none of the API keys.
  const taskEnvironment = { ...environment, ...publicUrlSetting(), ...models?.environment };
  // Every task may open secrets (one build per container); the approval expiry is told the key but may not use it.
  const taskPermissions = [taskTokenPermission, ...(models?.permissions ?? []), ...secrets.permissions];

  const taskFunctions = Object.fromEntries(
    taskResources.map((resource) => [
      resource,
      new sst.aws.Function(`RunGraph${pascal(resource)}`, {
        handler: `packages/functions/src/run-graph/lambda-tasks.${handlerOf[resource]}`,
        runtime: 'nodejs22.x',
        memory: heavy.has(resource) ? '2048 MB' : '512 MB',
        timeout: heavy.has(resource) ? '15 minutes' : '5 minutes',
        link: [table, artifacts, bus],
        environment: taskEnvironment,
        permissions: taskPermissions,
        // axe-core is read as a file (execution/browser/axe.ts), so it is installed beside the bundle, not bundled.
        ...(heavy.has(resource) ? { nodejs: { install: ['@sparticuz/chromium', 'playwright-core', 'axe-core'] } } : {}),
      }),
    ]),
  ) as Record<TaskResource, InstanceType<typeof sst.aws.Function>>;

  const role = new aws.iam.Role('RunGraphStateMachineRole', {
    assumeRolePolicy: JSON.stringify({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Principal: { Service: 'states.amazonaws.com' }, Action: 'sts:AssumeRole' }],
    }),
  });

  const functionArns = taskResources.map((r) => taskFunctions[r].arn);

  new aws.iam.RolePolicy('RunGraphStateMachineInvoke', {
    role: role.id,
    policy: $resolve(functionArns).apply((arns) =>
      JSON.stringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: arns.flatMap((arn: string) => [arn, `${arn}:*`]) }],
      }),
    ),
  });

  /** The same definition the local interpreter runs, with each resource bound to its Lambda. */
  const stateMachine = new aws.sfn.StateMachine('RunGraph', {
    roleArn: role.arn,
    type: 'STANDARD',
    definition: $resolve(functionArns).apply((arns) =>
      JSON.stringify(renderDefinition(Object.fromEntries(taskResources.map((r, i) => [r, arns[i]])) as Record<TaskResource, string>, JSON.stringify(definition))),
    ),
  });

  /** Pending approvals past their time expire (treated as a reject) within a minute. */
  const approvalExpiry = new sst.aws.Cron('RunGraphApprovalExpiry', {
    schedule: 'rate(1 minute)',
    function: {
      handler: 'packages/functions/src/run-graph/lambda-tasks.expireApprovals',
      runtime: 'nodejs22.x',
      timeout: '1 minute',
      link: [table, artifacts, bus],
      environment,
      permissions: [taskTokenPermission],
    },
  });

  return {
    taskFunctions,
    stateMachine,
    approvalExpiry,
    /** What the API function needs (infra/api.ts): the state machine's ARN … */
    apiEnvironment: { SVC_STATE_MACHINE_ARN: stateMachine.arn },
    /** … and the right to start, describe and stop its executions and to deliver decisions. */
    apiPermissions: [
      { actions: ['states:StartExecution'], resources: [stateMachine.arn] },
      { actions: ['states:DescribeExecution', 'states:StopExecution'], resources: [stateMachine.arn.apply((arn: string) => `${arn.replace(':stateMachine:', ':execution:')}:*`)] },
      taskTokenPermission,
    ],
  };
}

export type RunGraph = ReturnType<typeof declareRunGraph>;

/**
 * SVC_PUBLIC_URL from the deploying shell, when set (docs/deploy.md): the report task posts
 * a webhook run's commit status, which links to the run's report there. infra/api.ts checks
 * it with the API's operator settings, so a bad value stops the deploy.
 */
function publicUrlSetting(): { SVC_PUBLIC_URL?: string } {
  const value = process.env.SVC_PUBLIC_URL?.trim();
  return value ? { SVC_PUBLIC_URL: value } : {};
}

function pascal(s: string): string {
  return s.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());
}
