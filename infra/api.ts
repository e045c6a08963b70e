import { operatorEnvIssues, operatorEnvVarNames } from '../packages/functions/src/aws/config.ts';
import type { EventBus } from './events.ts';
import type { ModelSettings } from './model-settings.ts';
import type { BrowserWork } from './browser.ts';
import type { RunGraph } from './run-graph.ts';
import type { SecretsKey } from './secrets.ts';
import { artifacts, table } from './storage.ts';

/**
 * Optional settings, read from the environment of whoever runs `sst deploy` (see
 * docs/deploy.md): an external identity provider (SVC_JWKS_URL + SVC_JWT_ISSUER,
 * optionally SVC_JWT_AUDIENCE), SVC_CORS_ORIGINS, SVC_LOG_LEVEL and SVC_METRICS_TOKEN.
 * None is needed: the API issues its own tokens. Each one set is checked with the
 * function's own schema and passed through; a bad value stops the deploy here instead of
 * failing every request.
 */
function operatorSettings(): Record<string, string> {
  const given = Object.fromEntries(
    operatorEnvVarNames
      .map((name) => [name, process.env[name]?.trim() ?? ''] as const)
      .filter(([, value]) => value !== ''),
  );
  const issues = operatorEnvIssues(given);
  if (issues.length) {
    throw new Error(`invalid deploy settings (see docs/deploy.md): ${issues.join('; ')}`);
  }
  return given;
}

/**
 * Where the dashboard's static files go in the function package. `@svc/web` finds them
 * at `../public` from its own module URL, and once bundled that URL is the bundle's:
 * SST writes it to `packages/functions/src/aws/api-handler.mjs` in the package (the
 * handler's path), so `../public` is this folder. test/infra/lambda-bundle.test.ts builds
 * the package the same way and checks the dashboard is served from it.
 */
const webPublicInPackage = 'packages/functions/src/public';

/**
 * Playwright's trace viewer (the dashboard's View trace), from the playwright-core the
 * project installs — the version that records the traces. `@svc/web` looks for it at
 * `../trace-viewer` from the bundle, beside `../public`.
 */
const traceViewerInPackage = { from: 'node_modules/playwright-core/lib/vite/traceViewer', to: 'packages/functions/src/trace-viewer' };

/**
 * The HTTP API: the same Hono app as the local runtime, behind a Lambda function URL
 * with response streaming so SSE run streams reach the client as they are produced.
 * It publishes domain events to `bus` (infra/events.ts): linked, so it may PutEvents
 * there, and told the bus's name. It runs the run graph on the state machine of
 * infra/run-graph.ts: told its ARN (SVC_STATE_MACHINE_ARN) and allowed to start, describe
 * and stop its executions and to deliver approval decisions (SendTaskSuccess/Failure).
 * With `models` (infra/model-settings.ts) it gets the model and embeddings settings, the
 * API keys' secrets and, for Bedrock, `bedrock:InvokeModel`. Discovery crawls and quality
 * audits go to the browser function of infra/browser.ts: told its name, allowed to invoke it.
 */
export function declareApi({ bus, runGraph, models, secrets, browser }: { bus: EventBus; runGraph: RunGraphAccess; models?: ModelSettings; secrets: SecretsKey; browser: BrowserAccess }) {
  return new sst.aws.Function('Api', {
    handler: 'packages/functions/src/aws/api-handler.handler',
    runtime: 'nodejs22.x',
    memory: '1024 MB',
    // A streamed response lives as long as the invocation; 15 minutes is Lambda's ceiling.
    timeout: '15 minutes',
    streaming: true,
    // CORS is the app's own first middleware; a second layer at the URL would answer
    // preflights with rules the app never sees. Authentication is also the app's (JWT).
    url: { cors: false },
    link: [table, artifacts, bus],
    // Secrets: it seals them (environment, channels, integrations) and opens them (webhook verification, test messages).
    permissions: [...runGraph.permissions, ...(models?.permissions ?? []), ...secrets.permissions, ...browser.permissions],
    copyFiles: [{ from: 'packages/web/public', to: webPublicInPackage }, traceViewerInPackage],
    environment: { ...appEnvironment(bus, runGraph, secrets), ...browser.environment, ...models?.environment, POWERTOOLS_SERVICE_NAME: 'svc-api' },
  });
}

/**
 * Scheduled runs (docs/schedules.md): every minute, a function with the API's settings and
 * run graph rights starts the runs whose schedules are due, on the same state machine.
 */
export function declareScheduledRuns({ bus, runGraph, secrets }: { bus: EventBus; runGraph: RunGraphAccess; secrets: SecretsKey }) {
  return new sst.aws.Cron('ScheduledRuns', {
    schedule: 'rate(1 minute)',
    function: {
      handler: 'packages/functions/src/aws/schedules-handler.handler',
      runtime: 'nodejs22.x',
      memory: '512 MB',
      timeout: '1 minute',
      link: [table, artifacts, bus],
      // Starting a run needs no model and opens no secret: the run's task functions do both.
      // It is told the key (its config requires it, like the API's) but may not use it.
      permissions: runGraph.permissions,
      environment: { ...appEnvironment(bus, runGraph, secrets), POWERTOOLS_SERVICE_NAME: 'svc-schedules' },
    },
  });
}

/**
 * The healer consumer (docs/events.md): on each healing.requested it starts a heal run of the
 * test, so like the scheduled runs it has the API's settings and run-graph rights; the queue,
 * its rule, dead-letter queue and alarms are declareEvents'. Same batch and timeout as the
 * other consumers.
 */
export function declareHealer({ bus, queue, runGraph, secrets }: { bus: EventBus; queue: { subscribe(fn: Record<string, unknown>, args: Record<string, unknown>): unknown }; runGraph: RunGraphAccess; secrets: SecretsKey }) {
  return queue.subscribe(
    {
      handler: 'packages/functions/src/aws/events/consumer-handler.handler',
      runtime: 'nodejs22.x',
      memory: '512 MB',
      timeout: '60 seconds',
      link: [table, artifacts, bus],
      // It starts runs and opens no secret: the run's task functions do that.
      permissions: runGraph.permissions,
      environment: { ...appEnvironment(bus, runGraph, secrets), SVC_CONSUMER: 'healer', POWERTOOLS_SERVICE_NAME: 'svc-healer' },
    },
    { batch: { size: 10, partialResponses: true } },
  );
}

/**
 * Housekeeping (docs/visual.md "Retention"): once a day, visual images nobody can accept or
 * read any more leave the bucket. It reads baseline records and lists and deletes objects:
 * the links give it both; it starts no run and opens no secret.
 */
export function declareHousekeeping({ bus, runGraph, secrets }: { bus: EventBus; runGraph: RunGraphAccess; secrets: SecretsKey }) {
  return new sst.aws.Cron('Housekeeping', {
    schedule: 'rate(1 day)',
    function: {
      handler: 'packages/functions/src/aws/housekeeping-handler.handler',
      runtime: 'nodejs22.x',
      memory: '512 MB',
      timeout: '15 minutes',
      link: [table, artifacts],
      environment: { ...appEnvironment(bus, runGraph, secrets), POWERTOOLS_SERVICE_NAME: 'svc-housekeeping' },
    },
  });
}

/** What aws/config.ts reads, for every function built on the API's deps (the API, scheduled runs, housekeeping). */
function appEnvironment(bus: EventBus, runGraph: RunGraphAccess, secrets: SecretsKey) {
  return {
    SVC_TABLE_NAME: table.name,
    SVC_BUCKET_NAME: artifacts.name,
    SVC_EVENT_BUS_NAME: bus.name,
    ...secrets.environment,
    ...runGraph.environment,
    ...operatorSettings(),
  };
}

/** What the API needs of the run graph (declareRunGraph in infra/run-graph.ts returns both). */
export interface RunGraphAccess {
  environment: RunGraph['apiEnvironment'];
  permissions: RunGraph['apiPermissions'];
}

/** What the API needs of the browser function (declareBrowserWork in infra/browser.ts returns both). */
export interface BrowserAccess {
  environment: BrowserWork['apiEnvironment'];
  permissions: BrowserWork['apiPermissions'];
}
