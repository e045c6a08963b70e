/// <reference path="./.sst/platform/config.d.ts" />

/** Stages whose data outlives `sst remove` and which refuse to be removed by accident. */
const PROTECTED_STAGES = ['production', 'prod'];

export default $config({
  app(input) {
    const isProtected = PROTECTED_STAGES.includes(input?.stage ?? '');
    return {
      name: 'svc',
      home: 'aws',
      // "retain" keeps the stateful resources (DynamoDB table, S3 bucket) on removal.
      removal: isProtected ? 'retain' : 'remove',
      protect: isProtected,
    };
  },
  async run() {
    // Imported here, not at the top: the SST globals exist only while run() executes.
    const storage = await import('./infra/storage.ts');
    const { declareEvents } = await import('./infra/events.ts');
    const { declareModelSettings } = await import('./infra/model-settings.ts');
    const { declareRunGraph } = await import('./infra/run-graph.ts');
    const { declareApi, declareHealer, declareHousekeeping, declareScheduledRuns } = await import('./infra/api.ts');
    const { declareSecretsKey } = await import('./infra/secrets.ts');
    const { declareBrowserWork } = await import('./infra/browser.ts');
    // Domain events (docs/events.md): the bus, a queue + dead-letter queue per consumer,
    // the consumer functions and the alarms. The API and the run graph publish to the bus,
    // so it is declared first.
    const events = declareEvents({ table: storage.table, artifacts: storage.artifacts });
    // Optional models and embeddings (docs/deploy.md "Models"): settings from the deploying
    // shell, API keys as SST secrets, Bedrock access when Bedrock is used.
    const models = declareModelSettings();
    // The KMS key that seals stored secrets (docs/deploy.md "Secrets at rest"), or the operator's (SVC_KMS_KEY_ID).
    const secrets = declareSecretsKey();
    // The run graph (docs/run-graph.md): the Step Functions state machine, its Task
    // Lambdas and the approval expiry schedule. The API starts and steers its executions.
    const runGraph = declareRunGraph({ bus: events.bus, models, secrets });
    // Chromium for the API's discovery crawls, quality audits and generated UI tests (the API function has none).
    const browser = declareBrowserWork({ secrets });
    const api = declareApi({
      bus: events.bus,
      runGraph: { environment: runGraph.apiEnvironment, permissions: runGraph.apiPermissions },
      models,
      secrets,
      browser: { environment: browser.apiEnvironment, permissions: browser.apiPermissions },
    });
    // Scheduled runs: a per-minute sweep with the API's settings and run graph rights.
    declareScheduledRuns({ bus: events.bus, runGraph: { environment: runGraph.apiEnvironment, permissions: runGraph.apiPermissions }, secrets });
    // The healer consumer: a heal request (POST /api/heal) starts a heal run on the same state machine.
    declareHealer({ bus: events.bus, queue: events.consumers.healer.queue, runGraph: { environment: runGraph.apiEnvironment, permissions: runGraph.apiPermissions }, secrets });
    // Housekeeping: a daily sweep of visual images nobody can accept or read any more.
    declareHousekeeping({ bus: events.bus, runGraph: { environment: runGraph.apiEnvironment, permissions: runGraph.apiPermissions }, secrets });
    return {
      api: api.url,
      table: storage.table.name,
      artifactsBucket: storage.artifacts.name,
      eventBus: events.bus.name,
    };
  },
});
