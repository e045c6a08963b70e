/**
 * Offline checks of the SST app: sst.config.ts and infra/ are evaluated against
 * recording doubles of the SST globals (./sst-doubles.ts), which capture every declared
 * component and its args. No AWS account, no SST binary.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { PassThrough } from 'node:stream';
import { build, type BuildFailure, type BuildResult } from 'esbuild';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { globalIndexNames, keyAttributeNames, tableSchema } from '../../infra/table-schema.ts';
import { eventTypes, type EventType } from '../../packages/core/src/contracts/events.ts';
import { matchesPattern, type EventPattern } from '../../packages/core/src/events/pattern.ts';
import { consumerRoutes, type ConsumerName } from '../../packages/core/src/events/routing.ts';
import { alertRules } from '../../packages/core/src/telemetry/alerts.ts';
import { evaluateSstApp as evaluate, fromRoot, type AppliedOutput, functionUrlEvent, load, operatorVariables, resolvedEnvironment, type Declared } from './sst-doubles.ts';

const appFile = fromRoot('packages/functions/src/api/app.ts');
const tableAdapterFile = fromRoot('packages/functions/src/aws/dynamodb-table.ts');

/** Every optional deploy-time setting, with valid values. */
const allSettings = {
  SVC_JWKS_URL: 'https://idp.example.com/.well-known/jwks.json',
  SVC_JWT_ISSUER: 'https://idp.example.com/',
  SVC_JWT_AUDIENCE: 'svc-api',
  SVC_CORS_ORIGINS: 'https://app.example.com, https://admin.example.com',
  SVC_LOG_LEVEL: 'INFO',
  SVC_METRICS_TOKEN: 'metrics-token-0123456789abcdef',
  SVC_PUBLIC_URL: 'https://svc.example.com',
  SVC_DISCOVERY_ALLOWED_HOSTS: 'staging.example.com, https://auth.example.com',
  SVC_VISUAL_PROPOSED_RETENTION_DAYS: '14',
  SVC_RUN_ARTIFACT_RETENTION_DAYS: '90',
  SVC_TRUSTED_PROXY_HOPS: '1',
};

/** What the state machine's ARN output resolves to once deployed (the doubles' outputs are placeholders). */
const STATE_MACHINE_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:svc-test-RunGraph';
/** And the secrets key's ARN (infra/secrets.ts), as the function configs require a real key ARN. */
const KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const deployedStateMachine = { SVC_STATE_MACHINE_ARN: STATE_MACHINE_ARN, SVC_KMS_KEY_ID: KEY_ARN };

afterEach(() => {
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});

// ---------------------------------------------------------------------------------------

describe('sst.config.ts app()', () => {
  it.each(['prod', 'production'])('retains data and protects the %s stage', async (stage) => {
    const { app } = await evaluate(stage);
    expect(app).toMatchObject({ name: 'svc', home: 'aws', removal: 'retain', protect: true });
  });

  it('removes everything on other stages', async () => {
    const { app } = await evaluate('dev');
    expect(app).toMatchObject({ name: 'svc', home: 'aws', removal: 'remove', protect: false });
  });
});

describe('sst.config.ts run()', () => {
  it('declares exactly the storage, the API function, the event infrastructure and the run graph', async () => {
    const { declared } = await evaluate();
    // Consumer functions are declared by Queue.subscribe (recorded as calls, below), not here.
    expect(declared.map((d) => `${d.type} ${d.name}`).sort()).toEqual([
      'aws.cloudwatch.MetricAlarm BrowserPoolExhausted',
      'aws.cloudwatch.MetricAlarm ConsumerLagHighApi',
      'aws.cloudwatch.MetricAlarm ConsumerLagHighDlqProcessor',
      'aws.cloudwatch.MetricAlarm ConsumerLagHighHealer',
      'aws.cloudwatch.MetricAlarm ConsumerLagHighKnowledgeWorker',
      'aws.cloudwatch.MetricAlarm ConsumerLagHighStreamAnalytics',
      'aws.cloudwatch.MetricAlarm DeadLetterBacklogApi',
      'aws.cloudwatch.MetricAlarm DeadLetterBacklogDlqProcessor',
      'aws.cloudwatch.MetricAlarm DeadLetterBacklogHealer',
      'aws.cloudwatch.MetricAlarm DeadLetterBacklogKnowledgeWorker',
      'aws.cloudwatch.MetricAlarm DeadLetterBacklogRetry',
      'aws.cloudwatch.MetricAlarm DeadLetterBacklogStreamAnalytics',
      'aws.cloudwatch.MetricAlarm EventDeadLettered',
      'aws.cloudwatch.MetricAlarm KnowledgeWorkerDown',
      'aws.cloudwatch.MetricAlarm LlmErrorRateHigh',
      'aws.iam.Role RunGraphStateMachineRole',
      'aws.iam.RolePolicy RunGraphStateMachineInvoke',
      'aws.kms.Key SecretsKey',
      'aws.sfn.StateMachine RunGraph',
      'aws.sns.Topic Alerts',
      'sst.aws.Bucket Artifacts',
      'sst.aws.Bus Events',
      'sst.aws.Cron Housekeeping',
      'sst.aws.Cron RunGraphApprovalExpiry',
      'sst.aws.Cron ScheduledRuns',
      'sst.aws.Dynamo Table',
      'sst.aws.Function Api',
      'sst.aws.Function BrowserWork',
      'sst.aws.Function RunGraphAnalyzeCode',
      'sst.aws.Function RunGraphApprovalExpired',
      'sst.aws.Function RunGraphExecuteTest',
      'sst.aws.Function RunGraphPlanTests',
      'sst.aws.Function RunGraphReport',
      'sst.aws.Function RunGraphRequestApproval',
      'sst.aws.Function RunGraphSelfHeal',
      'sst.aws.Queue ApiDlq',
      'sst.aws.Queue ApiQueue',
      'sst.aws.Queue DlqProcessorDlq',
      'sst.aws.Queue DlqProcessorQueue',
      'sst.aws.Queue EventRetryDlq',
      'sst.aws.Queue EventRetryQueue',
      'sst.aws.Queue HealerDlq',
      'sst.aws.Queue HealerQueue',
      'sst.aws.Queue KnowledgeWorkerDlq',
      'sst.aws.Queue KnowledgeWorkerQueue',
      'sst.aws.Queue StreamAnalyticsDlq',
      'sst.aws.Queue StreamAnalyticsQueue',
    ]);
  });

  it('returns the API URL, the storage names and the event bus name as outputs', async () => {
    const { outputs, only, named } = await evaluate();
    expect(outputs).toEqual({
      api: named('Api').instance.url,
      table: only('sst.aws.Dynamo').instance.name,
      artifactsBucket: only('sst.aws.Bucket').instance.name,
      eventBus: only('sst.aws.Bus').instance.name,
    });
  });

  it('deploys with no settings in the shell: the API issues its own tokens', async () => {
    const { args } = (await evaluate('test', {})).named('Api');
    for (const name of operatorVariables) expect(args.environment, name).not.toHaveProperty(name);
  });

  it.each([
    ['an http JWKS URL', { SVC_JWKS_URL: 'http://idp.example.com/jwks', SVC_JWT_ISSUER: 'https://idp.example.com/' }, /SVC_JWKS_URL: must be an https URL/],
    ['a JWKS URL without its issuer', { SVC_JWKS_URL: 'https://idp.example.com/jwks' }, /SVC_JWT_ISSUER: required when SVC_JWKS_URL is set/],
    ['an issuer without its JWKS URL', { SVC_JWT_ISSUER: 'https://idp.example.com/' }, /SVC_JWKS_URL: required when SVC_JWT_ISSUER is set/],
    ['an audience without a provider', { SVC_JWT_AUDIENCE: 'svc-api' }, /SVC_JWT_AUDIENCE: only applies to an external identity provider/],
    ['a CORS entry that is not an origin', { SVC_CORS_ORIGINS: 'https://app.example.com/path' }, /SVC_CORS_ORIGINS: 1 of 1 entries not an origin/],
    ['an unknown log level', { SVC_LOG_LEVEL: 'LOUD' }, /SVC_LOG_LEVEL: must be one of DEBUG, INFO, WARN, ERROR, SILENT/],
    ['a metrics token under 16 characters', { SVC_METRICS_TOKEN: 'secret-1234' }, /SVC_METRICS_TOKEN: must be at least 16 characters/],
    ['a public URL that is not http(s)', { SVC_PUBLIC_URL: 'ftp://svc.example.com' }, /SVC_PUBLIC_URL: must be an http\(s\) URL/],
    ['an allowed host that is not a host or origin', { SVC_DISCOVERY_ALLOWED_HOSTS: 'staging.example.com, http://[bad' }, /SVC_DISCOVERY_ALLOWED_HOSTS: 1 of 2 entries not a host or an http\(s\) origin/],
  ])('stops the deploy on %s, naming the variable', async (_, env, message) => {
    const failure = await evaluate('test', env).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).toMatch(/^invalid deploy settings \(see docs\/deploy\.md\): /);
    expect(failure?.message).toMatch(message);
    expect(failure?.message).not.toContain('idp.example.com');
    expect(failure?.message).not.toContain('secret');
  });
});

describe('table', () => {
  it('uses the reserved attribute names of the Table port', () => {
    expect(keyAttributeNames).toEqual(['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk']);
    expect(globalIndexNames).toEqual(['gsi1', 'gsi2']);
    expect(tableSchema.ttlAttribute).toBe('expiresAt');
  });

  it('is declared with the keys, GSIs and TTL of infra/table-schema.ts', async () => {
    const { args } = (await evaluate()).only('sst.aws.Dynamo');
    expect(args).toEqual({
      fields: { pk: 'string', sk: 'string', gsi1pk: 'string', gsi1sk: 'string', gsi2pk: 'string', gsi2sk: 'string' },
      primaryIndex: { hashKey: 'pk', rangeKey: 'sk' },
      globalIndexes: {
        gsi1: { hashKey: 'gsi1pk', rangeKey: 'gsi1sk' },
        gsi2: { hashKey: 'gsi2pk', rangeKey: 'gsi2sk' },
      },
      ttl: 'expiresAt',
    });
    expect(args.primaryIndex).toEqual(tableSchema.primaryIndex);
    expect(args.globalIndexes).toEqual(tableSchema.globalIndexes);
    expect(args.ttl).toBe(tableSchema.ttlAttribute);
    expect(Object.keys(args.fields)).toEqual(keyAttributeNames);
  });

  // Needs `tableDefinition(name)` exported from packages/functions/src/aws/dynamodb-table.ts:
  // the CreateTable input the adapter uses against DynamoDB Local.
  it('matches the table the DynamoDB adapter creates (tableDefinition)', async () => {
    expect(existsSync(tableAdapterFile), `${tableAdapterFile} exists`).toBe(true);
    const adapter = await load('packages/functions/src/aws/dynamodb-table.ts');
    expect(typeof adapter.tableDefinition, 'dynamodb-table.ts exports tableDefinition(name)').toBe('function');
    const def = adapter.tableDefinition('svc-test');
    const { args } = (await evaluate()).only('sst.aws.Dynamo');
    expect(def.TableName).toBe('svc-test');
    expect(describeCreateTable(def)).toEqual(describeSstTable(args));
  });
});

describe('API function', () => {
  it('runs the streaming Node 22 handler behind a function URL with CORS left to the app', async () => {
    const { args } = (await evaluate()).named('Api');
    expect(args).toMatchObject({
      handler: 'packages/functions/src/aws/api-handler.handler',
      runtime: 'nodejs22.x',
      streaming: true,
      url: { cors: false },
      memory: '1024 MB',
      timeout: '15 minutes',
    });
  });

  it('is linked to the table, the artifacts bucket and the event bus, and told their names', async () => {
    const { only, named } = await evaluate();
    const { args } = named('Api');
    const table = only('sst.aws.Dynamo').instance;
    const bucket = only('sst.aws.Bucket').instance;
    const bus = only('sst.aws.Bus').instance;
    expect(args.link).toHaveLength(3);
    expect(args.link).toContain(table);
    expect(args.link).toContain(bucket);
    // Linking a Bus grants PutEvents on it; the name tells the app where to publish.
    expect(args.link).toContain(bus);
    expect(args.environment.SVC_TABLE_NAME).toBe(table.name);
    expect(args.environment.SVC_BUCKET_NAME).toBe(bucket.name);
    expect(args.environment.SVC_EVENT_BUS_NAME).toBe(bus.name);
  });

  it('passes each deploy-time setting through only when it is set', async () => {
    const none = (await evaluate('test', { SVC_JWKS_URL: '', SVC_JWT_ISSUER: '  ' })).named('Api').args.environment;
    for (const name of operatorVariables) expect(none, name).not.toHaveProperty(name);

    const some = (await evaluate('test', { SVC_LOG_LEVEL: 'debug', SVC_CORS_ORIGINS: ' https://app.example.com ' })).named('Api')
      .args.environment;
    expect(some).toMatchObject({ SVC_LOG_LEVEL: 'debug', SVC_CORS_ORIGINS: 'https://app.example.com' });
    expect(some).not.toHaveProperty('SVC_JWKS_URL');

    const all = (await evaluate('test', allSettings)).named('Api').args.environment;
    expect(all).toMatchObject({ ...allSettings, SVC_CORS_ORIGINS: 'https://app.example.com, https://admin.example.com' });
  });

  it('sets every variable the Lambda config reads, and the config accepts them', async () => {
    const { args } = (await evaluate('test', allSettings)).named('Api');
    const { awsEnvVarNames, loadAwsConfig } = await load('packages/functions/src/aws/config.ts');
    const runtimeProvided = ['AWS_REGION'];
    for (const name of awsEnvVarNames as string[]) {
      if (!runtimeProvided.includes(name)) expect(args.environment, name).toHaveProperty(name);
    }
    expect(loadAwsConfig({ ...resolvedEnvironment(args.environment), ...deployedStateMachine, AWS_REGION: 'eu-west-1' })).toEqual({
      region: 'eu-west-1',
      trustedProxyHops: 1,
      tableName: '{Table.name}',
      bucketName: '{Artifacts.name}',
      logLevel: 'INFO',
      kmsKeyId: KEY_ARN,
      stateMachineArn: STATE_MACHINE_ARN,
      corsOrigins: ['https://app.example.com', 'https://admin.example.com'],
      eventBusName: '{Events.name}',
      metricsToken: 'metrics-token-0123456789abcdef',
      publicUrl: 'https://svc.example.com',
      browserFunctionName: '{BrowserWork.name}',
      discoveryAllowedHosts: ['staging.example.com', 'https://auth.example.com'],
      visualProposedRetentionDays: 14,
      runArtifactRetentionDays: 90,
      externalIdp: {
        jwksUrl: 'https://idp.example.com/.well-known/jwks.json',
        issuer: 'https://idp.example.com/',
        audience: 'svc-api',
      },
    });
  });

  it('gives the function a working config with no settings at all', async () => {
    const { args } = (await evaluate('test', {})).named('Api');
    const { loadAwsConfig } = await load('packages/functions/src/aws/config.ts');
    expect(loadAwsConfig({ ...resolvedEnvironment(args.environment), ...deployedStateMachine, AWS_REGION: 'eu-west-1' })).toEqual({
      region: 'eu-west-1',
      trustedProxyHops: 0,
      tableName: '{Table.name}',
      bucketName: '{Artifacts.name}',
      logLevel: 'WARN',
      kmsKeyId: KEY_ARN,
      corsOrigins: [],
      eventBusName: '{Events.name}',
      stateMachineArn: STATE_MACHINE_ARN,
      browserFunctionName: '{BrowserWork.name}',
      discoveryAllowedHosts: [],
      visualProposedRetentionDays: 30,
    });
  });

  it('ships the dashboard files and the trace viewer where the bundled @svc/web looks for them', async () => {
    const { args } = (await evaluate()).named('Api');
    expect(args.copyFiles).toEqual([
      { from: 'packages/web/public', to: 'packages/functions/src/public' },
      { from: 'node_modules/playwright-core/lib/vite/traceViewer', to: 'packages/functions/src/trace-viewer' },
    ]);
    for (const entry of args.copyFiles) expect(existsSync(fromRoot(entry.from, 'index.html')), entry.from).toBe(true);
    // The bundle is written at the handler's path; @svc/web resolves `../public` and `../trace-viewer` from it.
    const handlerDir = (args.handler as string).slice(0, (args.handler as string).lastIndexOf('/'));
    expect(new URL('../public', `file:///task/${handlerDir}/api-handler.mjs`).pathname).toBe(`/task/${args.copyFiles[0].to}`);
    expect(new URL('../trace-viewer', `file:///task/${handlerDir}/api-handler.mjs`).pathname).toBe(`/task/${args.copyFiles[1].to}`);
  });

  it('names a handler file that exists and exports `handler`', async () => {
    const { args } = (await evaluate()).named('Api');
    const handler: string = args.handler;
    const dot = handler.lastIndexOf('.');
    const file = fromRoot(`${handler.slice(0, dot)}.ts`);
    expect(existsSync(file), file).toBe(true);
    // Export list without resolving imports, so this holds before the app is written.
    const result = await build({
      entryPoints: [file],
      bundle: false,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'node',
      logLevel: 'silent',
    });
    const [output] = Object.values(result.metafile.outputs);
    expect(output!.exports).toContain(handler.slice(dot + 1));
  });
});

describe('domain events', () => {
  /** Each consumer in core's routing table and the queue infra gives it. */
  const queueOf: Record<ConsumerName, string> = {
    api: 'ApiQueue',
    healer: 'HealerQueue',
    'stream-analytics': 'StreamAnalyticsQueue',
    'knowledge-worker': 'KnowledgeWorkerQueue',
    'dlq-processor': 'DlqProcessorQueue',
  };

  const app = async () => {
    const evaluated = await evaluate();
    const { declared, only } = evaluated;
    const named = (name: string) => {
      const found = declared.filter((d) => d.name === name);
      expect(found, `exactly one component named ${name}`).toHaveLength(1);
      return found[0]!;
    };
    const queues = declared.filter((d) => d.type === 'sst.aws.Queue');
    const queueByInstance = (instance: unknown) => queues.find((q) => q.instance === instance);
    const bus = only('sst.aws.Bus');
    const rules = bus.calls.filter((c) => c.method === 'subscribeQueue');
    return { ...evaluated, named, queues, queueByInstance, bus, rules };
  };

  /** A bus event as EventBridge matches it (only source, detail-type and detail.metadata matter to the rules). */
  const busEvent = (type: EventType, metadata: Record<string, unknown> = {}) => ({
    version: '0', id: 'e-1', 'detail-type': type, source: 'svc.api', account: '123456789012', time: '2026-01-01T00:00:00Z',
    region: 'eu-west-1', resources: [], detail: { event_type: type, metadata },
  });
  /** SST's subscribeQueue takes `detailType`; EventBridge's pattern names it "detail-type". */
  const eventBridgePattern = (sst: { source: unknown; detailType: unknown; detail: unknown }): EventPattern =>
    ({ source: sst.source, 'detail-type': sst.detailType, detail: sst.detail }) as EventPattern;

  it('declares one bus, the one the API publishes to', async () => {
    const { declared, bus, named } = await app();
    expect(declared.filter((d) => d.type === 'sst.aws.Bus')).toEqual([bus]);
    expect(named('Api').args.environment.SVC_EVENT_BUS_NAME).toBe(bus.instance.name);
  });

  it('gives every consumer queue its own dead-letter queue, redriven after 3 receives', async () => {
    const { named, queues, queueByInstance, rules } = await app();
    const consumerQueues = [...Object.values(queueOf), 'EventRetryQueue'].map(named);
    const dlqs = new Set<Declared>();
    for (const queue of consumerQueues) {
      expect(queue.args.dlq, `${queue.name} has a dead-letter queue`).toEqual({ queue: expect.anything(), retry: 3 });
      const dlq = queues.find((q) => q.instance.arn === queue.args.dlq.queue);
      expect(dlq, `${queue.name}'s dead-letter queue is declared`).toBeDefined();
      dlqs.add(dlq!);
      // A dead-letter queue is where messages rest: no redrive of its own, nothing consuming it.
      expect(dlq!.args.dlq, dlq!.name).toBeUndefined();
      expect(dlq!.calls, dlq!.name).toEqual([]);
      // Lambda's advice for SQS event sources: visibility at least 6× the function timeout.
      expect(queue.args.visibilityTimeout).toBe('360 seconds');
    }
    expect(dlqs.size, 'no two queues share a dead-letter queue').toBe(consumerQueues.length);
    // Every queue is one of the two kinds.
    expect(queues).toHaveLength(consumerQueues.length + dlqs.size);
    // Every queue a bus rule feeds is one of those.
    for (const rule of rules) expect(consumerQueues).toContain(queueByInstance(rule.args[1]));
  });

  it("routes each event type to exactly the consumers of core's routing table", async () => {
    const { rules, queueByInstance, named } = await app();
    expect(rules).toHaveLength(consumerRoutes.length);
    const routed = (event: object) =>
      rules.filter((r) => matchesPattern(eventBridgePattern(r.args[2].pattern), event)).map((r) => queueByInstance(r.args[1])!.name).sort();
    for (const type of eventTypes) {
      const expected = consumerRoutes.filter((r) => r.handles.includes(type)).map((r) => queueOf[r.consumer]).sort();
      expect(routed(busEvent(type)), type).toEqual(expected);
    }
    // A dlq republish addressed to one consumer reaches that consumer only.
    expect(routed(busEvent('test.failed', { retry_for: 'stream-analytics' }))).toEqual(['StreamAnalyticsQueue']);
    // Events from outside svc on a shared bus match no rule.
    expect(routed({ ...busEvent('test.failed'), source: 'acme.orders' })).toEqual([]);
    for (const route of consumerRoutes) expect(named(queueOf[route.consumer]).instance).toBeDefined();
  });

  it('runs a function on the queue of each consumer with handlers, configured for it', async () => {
    const { named, bus, only } = await app();
    const { eventsEnvVarNames, loadEventsConfig } = await load('packages/functions/src/aws/events/config.ts');
    const table = only('sst.aws.Dynamo').instance;
    for (const route of consumerRoutes) {
      const subscriptions = named(queueOf[route.consumer]).calls.filter((c) => c.method === 'subscribe');
      expect(subscriptions, route.consumer).toHaveLength(route.implemented ? 1 : 0);
      if (!route.implemented) continue;
      const [fn, args] = subscriptions[0]!.args;
      expect(fn).toMatchObject({ handler: 'packages/functions/src/aws/events/consumer-handler.handler', runtime: 'nodejs22.x' });
      expect(args).toEqual({ batch: { size: 10, partialResponses: true } });
      expect(fn.link).toEqual(expect.arrayContaining([table, bus.instance]));
      // Every consumer's own settings: the retry queue (dlq processor), the bucket (knowledge worker); folders are the operator's.
      for (const name of (eventsEnvVarNames as string[]).filter((n) => !['AWS_REGION', 'SVC_RETRY_QUEUE_URL', 'SVC_BUCKET_NAME', 'SVC_ANALYZE_ROOTS'].includes(n))) {
        expect(fn.environment, `${route.consumer} ${name}`).toHaveProperty(name);
      }
      const env = resolvedEnvironment(fn.environment);
      if (route.consumer === 'dlq-processor') {
        // The dlq processor schedules its retries on the retry queue.
        expect(fn.environment.SVC_RETRY_QUEUE_URL).toBe(named('EventRetryQueue').instance.url);
        expect(fn.link).toContain(named('EventRetryQueue').instance);
        env.SVC_RETRY_QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/svc-event-retry';
      }
      if (route.consumer === 'knowledge-worker') {
        // It reads uploaded codebases from the artifacts bucket and keeps its analyses there.
        const bucket = only('sst.aws.Bucket').instance;
        expect(fn.environment.SVC_BUCKET_NAME).toBe(bucket.name);
        expect(fn.link).toContain(bucket);
      }
      expect(loadEventsConfig({ ...env, AWS_REGION: 'eu-west-1' })).toMatchObject({
        tableName: '{Table.name}',
        busName: '{Events.name}',
        consumer: route.consumer,
      });
    }
    const [republisher] = named('EventRetryQueue').calls.filter((c) => c.method === 'subscribe');
    expect(republisher!.args[0].handler).toBe('packages/functions/src/aws/events/consumer-handler.republishHandler');
    expect(republisher!.args[0].link).toContain(bus.instance);
  });

  it("alarms on every dead-letter queue, on each working consumer's lag, and on the spec's other alerts", async () => {
    const { declared, named } = await app();
    const alarms = declared.filter((d) => d.type === 'aws.cloudwatch.MetricAlarm');
    const onQueue = (queue: Declared) => alarms.filter((a) => a.args.dimensions?.QueueName === queue.instance.nodes.queue.name).map((a) => a.name);
    for (const route of consumerRoutes) {
      const name = queueOf[route.consumer];
      expect(onQueue(named(name.replace(/Queue$/, 'Dlq'))), `${name} DLQ`).toHaveLength(1);
      // Lag on every drained queue; the knowledge worker's also has its "down" alarm (oldest message > 120 s).
      expect(onQueue(named(name)).length, `${name} lag`).toBe(route.implemented ? (route.consumer === 'knowledge-worker' ? 2 : 1) : 0);
    }
    expect(onQueue(named('EventRetryDlq'))).toEqual(['DeadLetterBacklogRetry']);
    for (const rule of alertRules) expect(alarms.some((a) => a.name.startsWith(rule.name)) || rule.cloudwatch.source === 'knowledge-worker-queue', rule.name).toBe(true);
    for (const alarm of alarms) expect(alarm.args).toMatchObject({ period: 60, treatMissingData: 'notBreaching' });
  });

  it('every alarm notifies the Alerts topic when it fires and when it clears; SVC_ALERT_EMAIL subscribes an address', async () => {
    const { declared, named } = await app();
    const topic = named('Alerts');
    const alarms = declared.filter((d) => d.type === 'aws.cloudwatch.MetricAlarm');
    expect(alarms.length).toBeGreaterThan(0);
    for (const alarm of alarms) expect(alarm.args, alarm.name).toMatchObject({ alarmActions: [topic.instance.arn], okActions: [topic.instance.arn] });
    expect(declared.filter((d) => d.type === 'aws.sns.TopicSubscription')).toEqual([]);

    const withEmail = await evaluate('test', { SVC_ALERT_EMAIL: ' ops@example.com ' });
    expect(withEmail.named('AlertsEmail').args).toEqual({ topic: withEmail.named('Alerts').instance.arn, protocol: 'email', endpoint: 'ops@example.com' });
    await expect(evaluate('test', { SVC_ALERT_EMAIL: 'not-an-address' })).rejects.toThrow(/SVC_ALERT_EMAIL must be an email address/);
  });
});

describe('run graph', () => {
  const taskFunctionName = (resource: string) => `RunGraph${resource.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase())}`;

  it("runs the repository's asl/run-graph.asl.json, each Task bound to its own function's ARN", async () => {
    const { only, named } = await evaluate();
    const machine = only('aws.sfn.StateMachine');
    expect(machine.args).toMatchObject({ type: 'STANDARD', roleArn: named('RunGraphStateMachineRole').instance.arn });
    const { renderDefinition } = await load('packages/functions/src/run-graph/definition.ts');
    const { taskResources } = await load('packages/core/src/run-graph/tasks.ts');
    const arns = Object.fromEntries((taskResources as string[]).map((r) => [r, String(named(taskFunctionName(r)).instance.arn)]));
    const deployed = JSON.parse(String(machine.args.definition));
    expect(deployed).toEqual(renderDefinition(arns, readFileSync(fromRoot('asl/run-graph.asl.json'), 'utf8')));
    // Every function is referenced, and no `${resource}` placeholder is left.
    const text = JSON.stringify(deployed);
    for (const arn of Object.values(arns)) expect(text, arn).toContain(arn);
    expect(text).not.toMatch(/\$\{[a-z_]+\}/);
    // Still valid Amazon States Language, the approval waiting for its task token.
    const aslValidator = createRequire(import.meta.url)('asl-validator') as (definition: unknown) => { errorsText: (sep?: string) => string };
    // The definition as Pulumi renders it once the functions' ARNs resolve (the doubles' ARNs are placeholders).
    const realArns = (taskResources as string[]).map((r) => `arn:aws:lambda:eu-west-1:123456789012:function:svc-test-${taskFunctionName(r)}`);
    const rendered = JSON.parse(String((machine.args.definition as AppliedOutput).fn(realArns)));
    expect(aslValidator(rendered).errorsText('\n')).toBe('');
    expect(rendered.States.await_plan_approval.Resource).toBe('arn:aws:states:::lambda:invoke.waitForTaskToken');
  });

  it('lets the state machine invoke exactly its task functions (and their versions)', async () => {
    const { named } = await evaluate();
    const policy = named('RunGraphStateMachineInvoke').args;
    expect(policy.role).toBe(named('RunGraphStateMachineRole').instance.id);
    const { taskResources } = await load('packages/core/src/run-graph/tasks.ts');
    const arns = (taskResources as string[]).map((r) => String(named(taskFunctionName(r)).instance.arn));
    const statements = JSON.parse(String(policy.policy)).Statement;
    expect(statements).toEqual([{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: arns.flatMap((arn) => [arn, `${arn}:*`]) }]);
  });

  it('declares a function per task resource whose handler lambda-tasks.ts exports, and the per-minute approval expiry', async () => {
    const { named, only } = await evaluate();
    const { taskResources } = await load('packages/core/src/run-graph/tasks.ts');
    const source = readFileSync(fromRoot('packages/functions/src/run-graph/lambda-tasks.ts'), 'utf8');
    const exported = (name: string) => new RegExp(`export (const|async function|function) ${name}\\b`).test(source);
    for (const resource of taskResources as string[]) {
      const { args } = named(taskFunctionName(resource));
      expect(args.handler, resource).toMatch(/^packages\/functions\/src\/run-graph\/lambda-tasks\.\w+$/);
      expect(exported(args.handler.split('.').pop()), args.handler).toBe(true);
      // Test execution and healing drive Chromium: more memory, the longest timeout, the browser installed.
      const browser = resource === 'execute_test' || resource === 'self_heal';
      expect(args, resource).toMatchObject(browser ? { memory: '2048 MB', timeout: '15 minutes', nodejs: { install: ['@sparticuz/chromium', 'playwright-core', 'axe-core'] } } : { memory: '512 MB', timeout: '5 minutes' });
    }
    const cron = named('RunGraphApprovalExpiry').args;
    expect(cron.schedule).toBe('rate(1 minute)');
    expect(exported(cron.function.handler.split('.').pop())).toBe(true);
  });

  it('links every task function and the approval expiry to the table, the bucket and the bus, and names them', async () => {
    const { named, only } = await evaluate();
    const { taskResources } = await load('packages/core/src/run-graph/tasks.ts');
    const table = only('sst.aws.Dynamo').instance;
    const bucket = only('sst.aws.Bucket').instance;
    const bus = only('sst.aws.Bus').instance;
    const functions = [...(taskResources as string[]).map((r) => [r, named(taskFunctionName(r)).args] as const), ['expireApprovals', named('RunGraphApprovalExpiry').args.function] as const];
    for (const [name, args] of functions) {
      // Linking the bus grants PutEvents on it; without its name the events were checked and dropped.
      expect(args.link, name).toEqual([table, bucket, bus]);
      expect(args.environment, name).toMatchObject({ SVC_TABLE_NAME: table.name, SVC_BUCKET_NAME: bucket.name, SVC_EVENT_BUS_NAME: bus.name });
    }
  });

  it("gives the task functions the environment lambda-tasks.ts's config and publisher read", async () => {
    const { named } = await evaluate('test', { SVC_LLM_PROVIDERS: 'bedrock' });
    const { runGraphLambdaEnvNames, loadRunGraphLambdaConfig } = await load('packages/functions/src/run-graph/lambda-config.ts');
    const { taskResources } = await load('packages/core/src/run-graph/tasks.ts');
    for (const resource of taskResources as string[]) {
      const { environment } = named(taskFunctionName(resource)).args;
      // The log level and the public URL are optional (the next test); the region is the Lambda runtime's.
      for (const name of (runGraphLambdaEnvNames as string[]).filter((n) => !['AWS_REGION', 'SVC_LOG_LEVEL', 'SVC_PUBLIC_URL'].includes(n))) expect(environment, `${resource} ${name}`).toHaveProperty(name);
      expect(environment.SVC_KMS_KEY_ID, resource).toBe(named('SecretsKey').instance.arn);
      expect(loadRunGraphLambdaConfig({ ...resolvedEnvironment(environment), SVC_KMS_KEY_ID: KEY_ARN, AWS_REGION: 'eu-west-1' }), resource).toEqual({
        tableName: '{Table.name}',
        bucketName: '{Artifacts.name}',
        region: 'eu-west-1',
        logLevel: 'INFO',
        kmsKeyId: KEY_ARN,
      });
      expect(environment.SVC_LLM_PROVIDERS, resource).toBe('bedrock');
    }
  });

  it('passes SVC_PUBLIC_URL to the task functions when it is set (the report task links commit statuses there), and not otherwise', async () => {
    const { taskResources } = await load('packages/core/src/run-graph/tasks.ts');
    const { loadRunGraphLambdaConfig } = await load('packages/functions/src/run-graph/lambda-config.ts');
    const set = (await evaluate('test', { SVC_PUBLIC_URL: ' https://svc.example.com/ ' })).named;
    const unset = (await evaluate('test', {})).named;
    for (const resource of taskResources as string[]) {
      const environment = set(taskFunctionName(resource)).args.environment;
      expect(environment.SVC_PUBLIC_URL, resource).toBe('https://svc.example.com/');
      expect(loadRunGraphLambdaConfig({ ...resolvedEnvironment(environment), SVC_KMS_KEY_ID: KEY_ARN, AWS_REGION: 'eu-west-1' }).publicUrl, resource).toBe('https://svc.example.com');
      expect(unset(taskFunctionName(resource)).args.environment, resource).not.toHaveProperty('SVC_PUBLIC_URL');
    }
    expect(set('Api').args.environment.SVC_PUBLIC_URL).toBe('https://svc.example.com/');
  });

  it('tells the API function the state machine ARN and lets it start, describe and stop executions and deliver decisions', async () => {
    const { only, named } = await evaluate();
    const machine = only('aws.sfn.StateMachine').instance;
    const { args } = named('Api');
    expect(args.environment.SVC_STATE_MACHINE_ARN).toBe(machine.arn);
    const allowed = (action: string) => args.permissions.filter((p: { actions: string[] }) => p.actions.includes(action));
    expect(allowed('states:StartExecution')).toEqual([{ actions: ['states:StartExecution'], resources: [machine.arn] }]);
    for (const action of ['states:SendTaskSuccess', 'states:SendTaskFailure']) {
      // Task-token calls have no resource-level permission.
      expect(allowed(action), action).toEqual([{ actions: ['states:SendTaskSuccess', 'states:SendTaskFailure'], resources: ['*'] }]);
    }
    // The healer consumer starts heal runs: the API's settings and run-graph rights on its queue's function.
    const [healer] = named('HealerQueue').calls.filter((c) => c.method === 'subscribe');
    expect(healer!.args[0].environment).toMatchObject({ SVC_CONSUMER: 'healer', SVC_STATE_MACHINE_ARN: machine.arn });
    expect(healer!.args[0].permissions).toEqual(args.permissions.filter((p: { actions: string[] }) => p.actions.some((a) => a.startsWith('states:'))));
    for (const action of ['states:DescribeExecution', 'states:StopExecution']) {
      const [grant] = allowed(action);
      expect(grant, action).toBeDefined();
      expect(grant.resources).toHaveLength(1);
      // Executions of this state machine only: the ARN is derived from the machine's.
      const executions = grant.resources[0] as AppliedOutput;
      expect(executions.source).toBe(machine.arn);
      expect(executions.fn(STATE_MACHINE_ARN)).toBe('arn:aws:states:eu-west-1:123456789012:execution:svc-test-RunGraph:*');
    }
  });
});

describe('models and embeddings', () => {
  const taskNames = ['RunGraphAnalyzeCode', 'RunGraphPlanTests', 'RunGraphExecuteTest', 'RunGraphSelfHeal', 'RunGraphRequestApproval', 'RunGraphApprovalExpired', 'RunGraphReport'];
  /** The functions that build a model client and an embedder from their environment. */
  const modelUsers = (named: (name: string) => Declared) => ['Api', ...taskNames].map((name) => [name, named(name).args] as const);
  const secrets = (declared: Declared[]) => declared.filter((d) => d.type === 'sst.Secret').map((d) => ({ name: d.name, placeholder: d.args.placeholder }));
  const bedrockGrants = (args: { permissions: { actions: string[] }[] }) => args.permissions.filter((p) => p.actions.includes('bedrock:InvokeModel'));
  const failureOf = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: Error) => error,
    );

  it('adds nothing when no provider is named: no settings, no secrets, no Bedrock access', async () => {
    const { declared, named, only } = await evaluate();
    const { modelSettingNames, modelSecrets } = await load('infra/model-settings.ts');
    expect(secrets(declared)).toEqual([]);
    for (const [name, args] of [...modelUsers(named), ['expireApprovals', named('RunGraphApprovalExpiry').args.function] as const]) {
      for (const variable of [...modelSettingNames, ...modelSecrets.map((s: { variable: string }) => s.variable)]) expect(args.environment, `${name} ${variable}`).not.toHaveProperty(variable);
      expect(bedrockGrants(args), name).toEqual([]);
    }
  });

  it('passes the settings to the API and every task function, the API key as an SST secret, and none to the approval expiry', async () => {
    const settings = {
      SVC_LLM_PROVIDERS: 'anthropic',
      SVC_ANTHROPIC_MODEL_MID: 'claude-sonnet-4-5',
      SVC_LLM_VISION: 'true',
      SVC_LLM_COST_LIMIT_PER_RUN: ' 2 ',
      SVC_EMBEDDINGS_PROVIDER: 'local',
    };
    const { declared, named, only } = await evaluate('test', { ...settings, SST_SECRET_AnthropicApiKey: 'sk-ant-from-sst' });
    expect(secrets(declared)).toEqual([{ name: 'AnthropicApiKey', placeholder: undefined }]);
    const key = named('AnthropicApiKey').instance.value;
    const { parseLlmConfig } = await load('packages/functions/src/llm/config.ts');
    for (const [name, args] of modelUsers(named)) {
      expect(args.environment, name).toMatchObject({ ...settings, SVC_LLM_COST_LIMIT_PER_RUN: '2', SVC_ANTHROPIC_API_KEY: key });
      // What the function's own parser makes of it once the secret resolves.
      const config = parseLlmConfig({ ...resolvedEnvironment(args.environment), SVC_ANTHROPIC_API_KEY: 'sk-ant-from-sst', AWS_REGION: 'eu-west-1' });
      expect(config, name).toMatchObject({ providers: [{ name: 'anthropic', apiKey: 'sk-ant-from-sst', models: { mid: 'claude-sonnet-4-5' } }], vision: true, perRunUsd: 2 });
      expect(bedrockGrants(args), name).toEqual([]);
    }
    const expiry = named('RunGraphApprovalExpiry').args.function.environment;
    expect(expiry).not.toHaveProperty('SVC_ANTHROPIC_API_KEY');
    expect(expiry).not.toHaveProperty('SVC_LLM_PROVIDERS');
  });

  it('stops the deploy until a required API key is set with `sst secret set`', async () => {
    const failure = await failureOf(evaluate('test', { SVC_LLM_PROVIDERS: 'openai,anthropic', SST_SECRET_AnthropicApiKey: 'sk-ant' }));
    expect(failure?.message).toMatch(/OpenaiApiKey/);
  });

  it('makes the OpenAI key optional for a self-hosted OpenAI-compatible server', async () => {
    const { declared, named } = await evaluate('test', { SVC_LLM_PROVIDERS: 'openai', SVC_OPENAI_BASE_URL: 'http://llm.internal:8000/v1', SVC_OPENAI_MODEL_CHEAP: 'llama3' });
    expect(secrets(declared)).toEqual([{ name: 'OpenaiApiKey', placeholder: '' }]);
    expect(named('Api').args.environment).toMatchObject({ SVC_OPENAI_BASE_URL: 'http://llm.internal:8000/v1', SVC_OPENAI_API_KEY: named('OpenaiApiKey').instance.value });
  });

  it('declares the embeddings key for OpenAI embeddings, optional when the OpenAI key or a base URL serves them', async () => {
    const alone = await failureOf(evaluate('test', { SVC_EMBEDDINGS_PROVIDER: 'openai' }));
    expect(alone?.message).toMatch(/EmbeddingsApiKey/);

    const set = await evaluate('test', { SVC_EMBEDDINGS_PROVIDER: 'openai', SVC_EMBEDDINGS_MODEL: 'text-embedding-3-small', SST_SECRET_EmbeddingsApiKey: 'sk-emb' });
    expect(secrets(set.declared)).toEqual([{ name: 'EmbeddingsApiKey', placeholder: undefined }]);
    expect(set.named('RunGraphExecuteTest').args.environment).toMatchObject({ SVC_EMBEDDINGS_PROVIDER: 'openai', SVC_EMBEDDINGS_MODEL: 'text-embedding-3-small', SVC_EMBEDDINGS_API_KEY: set.named('EmbeddingsApiKey').instance.value });

    const shared = await evaluate('test', { SVC_LLM_PROVIDERS: 'openai', SVC_EMBEDDINGS_PROVIDER: 'openai', SST_SECRET_OpenaiApiKey: 'sk-openai' });
    expect(secrets(shared.declared)).toEqual([
      { name: 'OpenaiApiKey', placeholder: undefined },
      { name: 'EmbeddingsApiKey', placeholder: '' },
    ]);
  });

  it('grants bedrock:InvokeModel to the model users when Bedrock serves models or embeddings, and needs no secret', async () => {
    const modelArn = 'arn:aws:bedrock:eu-west-1:123456789012:provisioned-model/abc123';
    const settings: Record<string, string>[] = [{ SVC_LLM_PROVIDERS: 'bedrock', SVC_BEDROCK_MODEL_CAPABLE: modelArn, SVC_BEDROCK_REGION: 'us-east-1' }, { SVC_EMBEDDINGS_PROVIDER: 'bedrock' }];
    for (const env of settings) {
      const { declared, named, only } = await evaluate('test', env);
      expect(secrets(declared)).toEqual([]);
      for (const [name, args] of modelUsers(named)) {
        const [grant, ...more] = bedrockGrants(args);
        expect(more, name).toEqual([]);
        expect(grant, name).toEqual({
          actions: ['bedrock:InvokeModel'],
          resources: ['arn:aws:bedrock:*::foundation-model/*', 'arn:aws:bedrock:*:*:inference-profile/*', ...(env.SVC_BEDROCK_MODEL_CAPABLE ? [modelArn] : [])],
        });
        expect(args.environment, name).toMatchObject(env);
      }
      expect(named('RunGraphApprovalExpiry').args.function.permissions.flatMap((p: { actions: string[] }) => p.actions)).not.toContain('bedrock:InvokeModel');
      // The API keeps its run graph permissions next to it.
      expect(named('Api').args.permissions.flatMap((p: { actions: string[] }) => p.actions)).toContain('states:StartExecution');
    }
  });

  it.each([
    ['an unknown provider', { SVC_LLM_PROVIDERS: 'anthropic,gemini' }, /SVC_LLM_PROVIDERS: unknown provider "gemini"/],
    ['a timeout that is not a number', { SVC_LLM_PROVIDERS: 'bedrock', SVC_LLM_TIMEOUT_MS: 'soon' }, /SVC_LLM_TIMEOUT_MS: /],
    ['a base URL that is not http(s)', { SVC_LLM_PROVIDERS: 'openai', SVC_OPENAI_BASE_URL: 'ftp://llm.internal' }, /SVC_OPENAI_BASE_URL: must be an http\(s\) URL/],
    ['an unknown embeddings provider', { SVC_EMBEDDINGS_PROVIDER: 'cohere' }, /SVC_EMBEDDINGS_PROVIDER: unknown provider "cohere"/],
    ['an API key in the shell', { SVC_LLM_PROVIDERS: 'anthropic', SVC_ANTHROPIC_API_KEY: 'sk-ant-secret-value' }, /SVC_ANTHROPIC_API_KEY: API keys are SST secrets, not deploy settings \(run `sst secret set AnthropicApiKey <key>` and unset it\)/],
  ])('stops the deploy on %s, naming the variable and echoing no key', async (_, env, message) => {
    const failure = await failureOf(evaluate('test', { ...env, SST_SECRET_AnthropicApiKey: 'sk-ant', SST_SECRET_OpenaiApiKey: 'sk-openai' }));
    expect(failure?.message).toMatch(/^invalid deploy settings \(see docs\/deploy\.md\): /);
    expect(failure?.message).toMatch(message);
    expect(failure?.message).not.toContain('secret-value');
  });

  it('covers every SVC_ variable the model and embeddings parsers read, keys as secrets', async () => {
    const { modelSettingNames, modelSecrets } = await load('infra/model-settings.ts');
    const known = new Set<string>([...modelSettingNames, ...modelSecrets.map((s: { variable: string }) => s.variable)]);
    for (const file of ['packages/functions/src/llm/config.ts', 'packages/functions/src/embeddings/from-env.ts']) {
      // Whole names only: the per-provider and per-tier ones are built in template strings.
      const read = new Set(readFileSync(fromRoot(file), 'utf8').match(/\bSVC_[A-Z_]*[A-Z]\b/g));
      for (const name of read) expect(known.has(name), `${file}: ${name}`).toBe(true);
    }
    // The template-built ones.
    for (const p of ['ANTHROPIC', 'OPENAI', 'BEDROCK']) for (const t of ['CHEAP', 'MID', 'CAPABLE']) expect(known.has(`SVC_${p}_MODEL_${t}`)).toBe(true);
    for (const t of ['CHEAP', 'MID', 'CAPABLE']) expect(known.has(`SVC_LLM_COST_${t}`)).toBe(true);
  });
});

describe('Lambda config', () => {
  const minimal = {
    SVC_TABLE_NAME: 'svc-table',
    SVC_BUCKET_NAME: 'svc-artifacts',
    SVC_KMS_KEY_ID: KEY_ARN,
    AWS_REGION: 'eu-west-1',
  };
  const loadConfig = async () => (await load('packages/functions/src/aws/config.ts')).loadAwsConfig as (env: Record<string, string | undefined>) => any;
  const failureOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return error as Error & { issues?: string[] };
    }
    throw new Error('expected the config to be refused');
  };

  it('needs only the table, the bucket, the secrets key and the region', async () => {
    expect((await loadConfig())(minimal)).toEqual({
      region: 'eu-west-1',
      trustedProxyHops: 0,
      tableName: 'svc-table',
      bucketName: 'svc-artifacts',
      kmsKeyId: KEY_ARN,
      logLevel: 'WARN',
      corsOrigins: [],
      discoveryAllowedHosts: [],
      visualProposedRetentionDays: 30,
    });
  });

  it('runs the built-in issuer with a fixed issuer and audience', async () => {
    const { builtInIssuer } = await load('packages/functions/src/aws/config.ts');
    expect(builtInIssuer).toEqual({ issuer: 'urn:svc:api', audience: 'svc' });
  });

  it('describes an external identity provider by JWKS and issuer, the audience optional', async () => {
    const load = await loadConfig();
    const jwks = { SVC_JWKS_URL: 'https://idp.example.com/jwks', SVC_JWT_ISSUER: 'https://idp.example.com/' };
    expect(load({ ...minimal, ...jwks }).externalIdp).toEqual({ jwksUrl: jwks.SVC_JWKS_URL, issuer: jwks.SVC_JWT_ISSUER });
    expect(load({ ...minimal, ...jwks, SVC_JWT_AUDIENCE: 'svc-api' }).externalIdp).toEqual({
      jwksUrl: jwks.SVC_JWKS_URL,
      issuer: jwks.SVC_JWT_ISSUER,
      audience: 'svc-api',
    });
  });

  it('reads the event bus name and the metrics token when set', async () => {
    const config = (await loadConfig())({ ...minimal, SVC_EVENT_BUS_NAME: ' svc-events ', SVC_METRICS_TOKEN: ' 0123456789abcdef ' });
    expect(config).toMatchObject({ eventBusName: 'svc-events', metricsToken: '0123456789abcdef' });
  });

  it('reads the run graph state machine ARN when set, and refuses anything else without echoing it', async () => {
    const load = await loadConfig();
    expect(load({ ...minimal, SVC_STATE_MACHINE_ARN: ` ${STATE_MACHINE_ARN} ` }).stateMachineArn).toBe(STATE_MACHINE_ARN);
    expect(load({ ...minimal, SVC_STATE_MACHINE_ARN: ' ' })).not.toHaveProperty('stateMachineArn');
    const error = failureOf(() => load({ ...minimal, SVC_STATE_MACHINE_ARN: 'secret-machine' }));
    expect(error.message).toMatch(/SVC_STATE_MACHINE_ARN: must be a Step Functions state machine ARN/);
    expect(error.message).not.toMatch(/secret/);
  });

  it('parses CORS origins and the log level', async () => {
    const config = (await loadConfig())({ ...minimal, SVC_CORS_ORIGINS: 'https://App.example.com/, http://localhost:5173,,', SVC_LOG_LEVEL: 'debug' });
    expect(config.corsOrigins).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(config.logLevel).toBe('DEBUG');
  });

  it('names every invalid variable and never echoes a value', async () => {
    const load = await loadConfig();
    const env = {
      ...minimal,
      SVC_TABLE_NAME: '  ',
      SVC_BUCKET_NAME: undefined,
      SVC_JWKS_URL: 'http://secret-host.example/jwks',
      SVC_JWT_AUDIENCE: 'secret-audience',
      SVC_CORS_ORIGINS: 'https://ok.example, secret-origin',
      SVC_LOG_LEVEL: 'secret-level',
      SVC_METRICS_TOKEN: 'secret-token',
    };
    const error = failureOf(() => load(env));
    expect(error.name).toBe('AwsConfigError');
    for (const name of ['SVC_TABLE_NAME', 'SVC_BUCKET_NAME', 'SVC_JWT_ISSUER', 'SVC_CORS_ORIGINS', 'SVC_LOG_LEVEL', 'SVC_METRICS_TOKEN']) {
      expect(error.message).toContain(`${name}: `);
    }
    expect(error.message).toMatch(/SVC_JWKS_URL: must be an https URL/);
    expect(error.message).toMatch(/SVC_CORS_ORIGINS: 1 of 2 entries not an origin/);
    expect(error.message).not.toMatch(/secret/);
    expect(error.issues!.length).toBeGreaterThanOrEqual(7);
  });

  it('treats empty or blank optional variables as unset', async () => {
    const config = (await loadConfig())({
      ...minimal,
      SVC_JWKS_URL: '',
      SVC_JWT_ISSUER: ' ',
      SVC_JWT_AUDIENCE: '',
      SVC_CORS_ORIGINS: '',
      SVC_LOG_LEVEL: '',
      SVC_EVENT_BUS_NAME: ' ',
      SVC_METRICS_TOKEN: '',
    });
    expect(config).not.toHaveProperty('externalIdp');
    expect(config).not.toHaveProperty('eventBusName');
    expect(config).not.toHaveProperty('metricsToken');
    expect(config.corsOrigins).toEqual([]);
    expect(config.logLevel).toBe('WARN');
  });
});

describe('Lambda entry', () => {
  const entry = fromRoot('packages/functions/src/aws/api-handler.ts');

  // Needs packages/functions/src/api/app.ts (createApp) and aws/dynamodb-table.ts.
  it.skipIf(!existsSync(appFile))('bundles for Node 22 ESM with esbuild', async () => {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      target: 'node22',
      format: 'esm',
      write: false,
      metafile: true,
      external: ['@aws-sdk/*'],
      logLevel: 'silent',
    }).catch((failure: BuildFailure) => failure);
    // A failed build rejects with the same `errors`; listing them names the broken import.
    expect(result.errors.map((m) => `${m.location?.file ?? '?'}:${m.location?.line ?? '?'} ${m.text}`)).toEqual([]);
    const [output] = Object.values((result as BuildResult<{ metafile: true }>).metafile.outputs);
    expect(output!.exports).toContain('handler');
  });

  // The Lambda runtime's streaming API is the edge of the world here: `awslambda` is
  // doubled with its documented shape (streamifyResponse, HttpResponseStream.from).
  it.skipIf(!existsSync(appFile))('answers with the error body when the environment is incomplete', async () => {
    vi.resetModules();
    vi.stubGlobal('awslambda', {
      streamifyResponse: (fn: unknown) => fn,
      HttpResponseStream: {
        from: (stream: PassThrough & { metadata?: unknown }, metadata: unknown) => {
          stream.metadata = metadata;
          return stream;
        },
      },
    });
    for (const name of ['SVC_TABLE_NAME', 'SVC_BUCKET_NAME', ...operatorVariables]) vi.stubEnv(name, '');
    vi.stubEnv('SVC_JWKS_URL', 'http://idp.example.com/jwks');
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    const { handler } = await load('packages/functions/src/aws/api-handler.ts');

    const stream: PassThrough & { metadata?: any } = new PassThrough();
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    await handler(functionUrlEvent('GET', '/api/v1/health'), stream, {});
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));

    expect(stream.metadata.statusCode).toBe(500);
    expect(body.error.code).toBe('INTERNAL');
    expect(body.error.message).toContain('SVC_TABLE_NAME');
    expect(body.error.message).toContain('SVC_BUCKET_NAME');
    expect(body.error.message).toContain('SVC_JWKS_URL: must be an https URL');
  });
});

// ---------------------------------------------------------------------------------------
// Normalised table descriptions, so SST's args and the SDK's CreateTable input compare.

interface TableShape {
  attributes: Record<string, string>;
  primaryKey: { hash?: string; range?: string };
  globalIndexes: Record<string, { hash?: string; range?: string; projection: string }>;
  billing: string;
}

function describeSstTable(args: any): TableShape {
  const typeCode = { string: 'S', number: 'N', binary: 'B' } as Record<string, string>;
  return {
    attributes: Object.fromEntries(Object.entries(args.fields).map(([k, v]) => [k, typeCode[v as string]!])),
    primaryKey: { hash: args.primaryIndex.hashKey, range: args.primaryIndex.rangeKey },
    // SST's Dynamo projects ALL attributes into every GSI and bills on demand.
    globalIndexes: Object.fromEntries(
      Object.entries(args.globalIndexes ?? {}).map(([name, ix]: [string, any]) => [
        name,
        { hash: ix.hashKey, range: ix.rangeKey, projection: 'ALL' },
      ]),
    ),
    billing: 'PAY_PER_REQUEST',
  };
}

function describeCreateTable(def: any): TableShape {
  const keys = (schema: { AttributeName: string; KeyType: string }[]) => ({
    hash: schema.find((k) => k.KeyType === 'HASH')?.AttributeName,
    range: schema.find((k) => k.KeyType === 'RANGE')?.AttributeName,
  });
  return {
    attributes: Object.fromEntries(
      def.AttributeDefinitions.map((a: { AttributeName: string; AttributeType: string }) => [
        a.AttributeName,
        a.AttributeType,
      ]),
    ),
    primaryKey: keys(def.KeySchema),
    globalIndexes: Object.fromEntries(
      (def.GlobalSecondaryIndexes ?? []).map((ix: any) => [
        ix.IndexName,
        { ...keys(ix.KeySchema), projection: ix.Projection?.ProjectionType },
      ]),
    ),
    billing: def.BillingMode ?? 'PROVISIONED',
  };
}

describe('scheduled runs function', () => {
  it('sweeps every minute with a handler the file exports, linked like the API and allowed to start runs', async () => {
    const { named, only } = await evaluate();
    const cron = named('ScheduledRuns').args;
    expect(cron.schedule).toBe('rate(1 minute)');
    expect(cron.function).toMatchObject({ handler: 'packages/functions/src/aws/schedules-handler.handler', runtime: 'nodejs22.x', timeout: '1 minute' });
    const source = readFileSync(fromRoot('packages/functions/src/aws/schedules-handler.ts'), 'utf8');
    expect(source).toMatch(/export async function handler\b/);
    expect(cron.function.link).toEqual([only('sst.aws.Dynamo').instance, only('sst.aws.Bucket').instance, only('sst.aws.Bus').instance]);
    expect(cron.function.permissions.flatMap((p: { actions: string[] }) => p.actions)).toContain('states:StartExecution');
    expect(cron.function.permissions.flatMap((p: { actions: string[] }) => p.actions)).not.toContain('bedrock:InvokeModel');
  });

  it('has the config the API function has, run graph included', async () => {
    const { named } = await evaluate('test', {});
    const { loadAwsConfig } = await load('packages/functions/src/aws/config.ts');
    const config = loadAwsConfig({ ...resolvedEnvironment(named('ScheduledRuns').args.function.environment), ...deployedStateMachine, AWS_REGION: 'eu-west-1' });
    expect(config).toMatchObject({ tableName: '{Table.name}', bucketName: '{Artifacts.name}', eventBusName: '{Events.name}', stateMachineArn: STATE_MACHINE_ARN });
  });
});

describe('housekeeping function', () => {
  it('sweeps visual images daily with a handler the file exports, linked to the table and bucket only, with no permission of its own', async () => {
    const { named, only } = await evaluate();
    const cron = named('Housekeeping').args;
    expect(cron.schedule).toBe('rate(1 day)');
    expect(cron.function).toMatchObject({ handler: 'packages/functions/src/aws/housekeeping-handler.handler', runtime: 'nodejs22.x' });
    const source = readFileSync(fromRoot('packages/functions/src/aws/housekeeping-handler.ts'), 'utf8');
    expect(source).toMatch(/export async function handler\b/);
    expect(cron.function.link).toEqual([only('sst.aws.Dynamo').instance, only('sst.aws.Bucket').instance]);
    expect(cron.function.permissions ?? []).toEqual([]);
  });

  it('reads the API function\'s config, with the operator\'s retention for proposed images', async () => {
    const { named } = await evaluate('test', { SVC_VISUAL_PROPOSED_RETENTION_DAYS: '7' });
    const { loadAwsConfig } = await load('packages/functions/src/aws/config.ts');
    const config = loadAwsConfig({ ...resolvedEnvironment(named('Housekeeping').args.function.environment), ...deployedStateMachine, AWS_REGION: 'eu-west-1' });
    expect(config).toMatchObject({ tableName: '{Table.name}', bucketName: '{Artifacts.name}', visualProposedRetentionDays: 7 });
    expect(loadAwsConfig({ ...resolvedEnvironment(named('Api').args.environment), ...deployedStateMachine, AWS_REGION: 'eu-west-1' }).visualProposedRetentionDays).toBe(7);
  });

  it('reads the operator\'s run artifact retention', async () => {
    const { loadAwsConfig } = await load('packages/functions/src/aws/config.ts');
    const housekeeping = async (settings: Record<string, string>) => loadAwsConfig({ ...resolvedEnvironment((await evaluate('test', settings)).named('Housekeeping').args.function.environment), ...deployedStateMachine, AWS_REGION: 'eu-west-1' });
    expect((await housekeeping({ SVC_RUN_ARTIFACT_RETENTION_DAYS: '90' })).runArtifactRetentionDays).toBe(90);
  });

  it('keeps run artifacts when no retention is set', async () => {
    const { loadAwsConfig } = await load('packages/functions/src/aws/config.ts');
    const config = loadAwsConfig({ ...resolvedEnvironment((await evaluate('test', {})).named('Housekeeping').args.function.environment), ...deployedStateMachine, AWS_REGION: 'eu-west-1' });
    expect(config).not.toHaveProperty('runArtifactRetentionDays');
  });

  it('stops a deploy whose retention is not a number of days, naming the variable', async () => {
    await expect(evaluate('test', { SVC_VISUAL_PROPOSED_RETENTION_DAYS: 'forever' })).rejects.toThrow(/SVC_VISUAL_PROPOSED_RETENTION_DAYS: must be a number of days/);
    await expect(evaluate('test', { SVC_RUN_ARTIFACT_RETENTION_DAYS: '0' })).rejects.toThrow(/SVC_RUN_ARTIFACT_RETENTION_DAYS: must be more than 0 days/);
  });
});

describe('the key that seals stored secrets (infra/secrets.ts)', () => {
  const taskNames = ['RunGraphAnalyzeCode', 'RunGraphPlanTests', 'RunGraphExecuteTest', 'RunGraphSelfHeal', 'RunGraphRequestApproval', 'RunGraphApprovalExpired', 'RunGraphReport'];
  const kmsGrants = (args: { permissions: { actions: string[] }[] }) => args.permissions.filter((p) => p.actions.some((a) => a.startsWith('kms:')));

  it('declares a symmetric KMS key, rotated yearly by KMS and kept when the stage is removed', async () => {
    const { only } = await evaluate();
    const key = only('aws.kms.Key');
    expect(key.name).toBe('SecretsKey');
    expect(key.args).toMatchObject({ enableKeyRotation: true, deletionWindowInDays: 30 });
    expect(key.opts).toEqual({ retainOnDelete: true });
  });

  it('lets the API, every task function and the browser function generate and decrypt data keys under that key alone, and tells them its ARN', async () => {
    const { named } = await evaluate();
    const arn = named('SecretsKey').instance.arn;
    for (const name of ['Api', ...taskNames, 'BrowserWork']) {
      const { args } = named(name);
      expect(args.environment.SVC_KMS_KEY_ID, name).toBe(arn);
      expect(kmsGrants(args), name).toEqual([{ actions: ['kms:GenerateDataKey', 'kms:Decrypt'], resources: [arn] }]);
    }
  });

  it('tells the scheduled runs and the approval expiry the key (their configs need it) but lets them use none', async () => {
    const { named } = await evaluate();
    const arn = named('SecretsKey').instance.arn;
    for (const fn of [named('ScheduledRuns').args.function, named('RunGraphApprovalExpiry').args.function]) {
      expect(fn.environment.SVC_KMS_KEY_ID).toBe(arn);
      expect(kmsGrants(fn)).toEqual([]);
    }
  });

  it('uses the key an operator names with SVC_KMS_KEY_ID instead of declaring one', async () => {
    const { declared, named } = await evaluate('test', { SVC_KMS_KEY_ID: KEY_ARN });
    expect(declared.filter((d) => d.type === 'aws.kms.Key')).toEqual([]);
    expect(named('Api').args.environment.SVC_KMS_KEY_ID).toBe(KEY_ARN);
    expect(kmsGrants(named('RunGraphExecuteTest').args)).toEqual([{ actions: ['kms:GenerateDataKey', 'kms:Decrypt'], resources: [KEY_ARN] }]);
  });

  it('stops the deploy on an SVC_KMS_KEY_ID that is not a key ARN (an alias), naming the variable', async () => {
    await expect(evaluate('test', { SVC_KMS_KEY_ID: 'alias/svc-secrets' })).rejects.toThrow(/SVC_KMS_KEY_ID: must be a KMS key ARN/);
  });

  it('stops a function whose environment names no key at boot, rather than storing secrets in plaintext', async () => {
    const { named } = await evaluate();
    const { loadAwsConfig } = await load('packages/functions/src/aws/config.ts');
    const { loadRunGraphLambdaConfig } = await load('packages/functions/src/run-graph/lambda-config.ts');
    const api = { ...resolvedEnvironment(named('Api').args.environment), ...deployedStateMachine, AWS_REGION: 'eu-west-1' };
    expect(() => loadAwsConfig({ ...api, SVC_KMS_KEY_ID: undefined })).toThrow(/SVC_KMS_KEY_ID: must be set: the KMS key ARN that seals stored credentials/);
    const task = { ...resolvedEnvironment(named('RunGraphExecuteTest').args.environment), AWS_REGION: 'eu-west-1' };
    expect(() => loadRunGraphLambdaConfig({ ...task, SVC_KMS_KEY_ID: undefined })).toThrow(/SVC_KMS_KEY_ID: must be set/);
  });
});

describe('the browser function (infra/browser.ts)', () => {
  const actionsOf = (args: { permissions: { actions: string[] }[] }) => args.permissions.flatMap((p) => p.actions);

  it('runs a Node 22 handler the file exports, with Chromium, Playwright and axe-core installed beside its bundle', async () => {
    const { args } = (await evaluate()).named('BrowserWork');
    expect(args).toMatchObject({ handler: 'packages/functions/src/aws/browser-handler.handler', runtime: 'nodejs22.x', memory: '2048 MB', timeout: '15 minutes' });
    expect(args.nodejs).toEqual({ install: ['@sparticuz/chromium', 'playwright-core', 'axe-core'] });
    expect(readFileSync(fromRoot('packages/functions/src/aws/browser-handler.ts'), 'utf8')).toMatch(/export async function handler\b/);
  });

  it('is linked to the table and the bucket, told their names, may open secrets with the key, and has no bus and no model', async () => {
    const { named, only } = await evaluate('test', { SVC_LLM_PROVIDERS: 'bedrock' });
    const { args } = named('BrowserWork');
    const key = named('SecretsKey').instance.arn;
    expect(args.link).toEqual([only('sst.aws.Dynamo').instance, only('sst.aws.Bucket').instance]);
    expect(args.permissions).toEqual([{ actions: ['kms:GenerateDataKey', 'kms:Decrypt'], resources: [key] }]);
    const { browserFunctionEnv } = await load('packages/functions/src/aws/browser-handler.ts');
    const parsed = browserFunctionEnv.parse({ ...resolvedEnvironment(args.environment), SVC_KMS_KEY_ID: KEY_ARN, AWS_REGION: 'eu-west-1' });
    expect(parsed).toMatchObject({ SVC_TABLE_NAME: '{Table.name}', SVC_BUCKET_NAME: '{Artifacts.name}' });
    expect(args.environment.SVC_KMS_KEY_ID).toBe(key);
    expect(Object.keys(args.environment).filter((k) => k.startsWith('SVC_')).sort()).toEqual(['SVC_BUCKET_NAME', 'SVC_KMS_KEY_ID', 'SVC_TABLE_NAME']);
    expect(() => browserFunctionEnv.parse({ ...resolvedEnvironment(args.environment), SVC_KMS_KEY_ID: undefined, AWS_REGION: 'eu-west-1' })).toThrow(/must be set/);
  });

  it('is named to the API, which alone may invoke it and read its state', async () => {
    const { named } = await evaluate();
    const fn = named('BrowserWork').instance;
    const api = named('Api').args;
    expect(api.environment.SVC_BROWSER_FUNCTION_NAME).toBe(fn.name);
    expect(api.permissions.filter((p: { actions: string[] }) => p.actions.some((a) => a.startsWith('lambda:')))).toEqual([
      { actions: ['lambda:InvokeFunction', 'lambda:GetFunctionConfiguration'], resources: [fn.arn] },
    ]);
    for (const name of ['RunGraphExecuteTest', 'RunGraphReport']) expect(actionsOf(named(name).args), name).not.toContain('lambda:InvokeFunction');
    expect(actionsOf(named('ScheduledRuns').args.function)).not.toContain('lambda:InvokeFunction');
  });
});
