import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { LambdaClient } from '@aws-sdk/client-lambda';
import type { EventPublisher } from '@svc/core/ports/events';
import type { Logger } from '@svc/core/ports/logger';
import { skippingPublisher } from '@svc/core/events/in-process-bus';
import { validatingPublisher } from '@svc/core/events/validating-publisher';
import { serviceMetrics, type ServiceMetrics } from '@svc/core/telemetry/service-metrics';
import { loadTraceViewerAsset, loadWebAsset } from '@svc/web';
import { defaultApiConfig, type AppDeps } from '../api/deps.ts';
import { createAwsRunGraph } from '../run-graph/aws-setup.ts';
import { buildAppDeps } from '../shared/deps.ts';
import { dataLayerChecks, knowledgeLayerCheck } from '../shared/health-checks.ts';
import { createLogger } from '../shared/logger.ts';
import { embedderFromEnv } from '../embeddings/from-env.ts';
import { builtInIssuer, type AwsConfig } from './config.ts';
import { DynamoDbTable } from './dynamodb-table.ts';
import { EventBridgePublisher } from './events/eventbridge-publisher.ts';
import { S3Blobs } from './s3-blobs.ts';
import { EmfAlertSink } from './events/emf-alert-sink.ts';
import { createLlmFromEnv } from '../llm/from-env.ts';
import { createGenerationExecutor } from '../generation/execute-once.ts';
import { kmsSecretCipher } from '../secrets/kms-cipher.ts';
import { browserFunctionHealth, lambdaBrowserWork, remoteDiscoveryRunner, remoteGenerationExecutor, remotePdfPrinter, remoteProbe } from '../browser-work/remote.ts';

/**
 * The Lambda's AppDeps: the same wiring as the local runtime (buildAppDeps) over
 * DynamoDB, S3 and EventBridge. The built-in issuer's signing key is created once in the
 * table, so every container agrees on it and no secret is configured.
 *
 * Domain events go to the EventBridge bus named by SVC_EVENT_BUS_NAME (infra/events.ts
 * declares it and infra/api.ts passes its name); every event is checked first, so a bad
 * one is refused to the route that produced it. Without a bus name they are checked and
 * then dropped with a debug log, as in a local runtime without a bus.
 *
 * The run graph runs when SVC_STATE_MACHINE_ARN names its state machine (infra/run-graph.ts):
 * executions on Step Functions, the same run manager and routes as locally. Unfinished
 * runs are not resumed here: their executions live in Step Functions, not the container.
 * A run stream ends after RUN_GRAPH_MAX_STREAM_MS, inside the function's 15-minute
 * timeout, and the client resumes it with Last-Event-ID. Without the ARN the run graph
 * routes answer NOT_CONFIGURED.
 *
 * Metrics are per container (each Lambda container has its own registry), so /metrics
 * shows the container that answered; docs/deploy.md says what that means for scraping.
 *
 * Built once per container; the SDK clients are reused across invocations.
 */
export async function buildAwsDeps(config: AwsConfig, env: Record<string, string | undefined> = process.env): Promise<AppDeps> {
  const logger = createLogger(config.logLevel, 'svc-api');
  const metrics = serviceMetrics();
  const table = new DynamoDbTable({ tableName: config.tableName, client: new DynamoDBClient({ region: config.region }) });
  const blobs = new S3Blobs({ bucket: config.bucketName, client: new S3Client({ region: config.region }) });
  const deps = await buildAppDeps({
    table,
    cipher: kmsSecretCipher(config),
    publisher: eventPublisher(config, logger, metrics),
    logger,
    // Function URLs are https only, so cookies are always Secure.
    api: { ...defaultApiConfig, secureCookies: true, corsOrigins: config.corsOrigins, trustedProxyHops: config.trustedProxyHops },
    issuer: { ...builtInIssuer },
    externalIssuer: config.externalIdp,
    healthChecks: dataLayerChecks({ table, blobs }),
    webAssets: loadWebAsset,
    traceViewerAssets: loadTraceViewerAsset,
    metrics: metrics.registry,
    metricsToken: config.metricsToken,
  });
  // Models (SVC_LLM_PROVIDERS, ...; docs/intelligence.md): Bedrock uses the function's role.
  deps.llm = createLlmFromEnv(env, { store: deps.store, clock: deps.clock, alerts: new EmfAlertSink(), metrics: metrics.registry, logger });
  deps.embedder = embedderFromEnv(process.env); // healing memory (SVC_EMBEDDINGS_PROVIDER; default local)
  deps.healthChecks.knowledge_layer = knowledgeLayerCheck(deps.embedder);
  deps.blobs = blobs; // visual baseline images, the same bucket the task functions write them to
  // Generated API tests run once in the API function; UI ones in the browser function, or come back not_executed without it.
  const localGeneration = createGenerationExecutor({ store: deps.store, dataDir: '/tmp/svc-generation' });
  deps.generation = localGeneration;
  // Discovery crawls, quality audits, generated UI tests and PDF reports run in the browser function (infra/browser.ts);
  // without it discovery, audits and PDFs answer NOT_CONFIGURED and generated UI tests are not executed.
  if (config.browserFunctionName) {
    const browserFunction = { client: new LambdaClient({ region: config.region }), functionName: config.browserFunctionName };
    const browserWork = lambdaBrowserWork(browserFunction);
    deps.discovery = remoteDiscoveryRunner(browserWork, config.discoveryAllowedHosts);
    deps.qualityAudit = { probe: remoteProbe(browserWork), allowedHosts: config.discoveryAllowedHosts };
    deps.generation = remoteGenerationExecutor(browserWork, localGeneration);
    deps.reportPdf = remotePdfPrinter(browserWork, blobs);
    deps.healthChecks.browser_grid = browserFunctionHealth(browserFunction);
  } else {
    deps.healthChecks.browser_grid = async () => ({ status: 'not_configured', detail: 'no browser function (SVC_BROWSER_FUNCTION_NAME): discovery and audits answer 501' });
  }
  deps.publicUrl = config.publicUrl;
  if (config.stateMachineArn) {
    deps.runGraph = createAwsRunGraph({
      store: deps.store,
      table,
      clock: deps.clock,
      logger,
      sfn: new SFNClient({ region: config.region }),
      stateMachineArn: config.stateMachineArn,
      publicUrl: config.publicUrl,
      publisher: deps.publisher,
    });
    deps.runGraphStream = { maxStreamMs: RUN_GRAPH_MAX_STREAM_MS };
  }
  return deps;
}

/** How long one run stream lasts on Lambda: below the API function's 15-minute timeout (infra/api.ts). */
export const RUN_GRAPH_MAX_STREAM_MS = 14 * 60_000;

/** EventBridge when a bus is configured, else check-and-drop; both behind the validating publisher. */
export function eventPublisher(config: Pick<AwsConfig, 'region' | 'eventBusName'>, logger: Logger, metrics: ServiceMetrics): EventPublisher {
  if (!config.eventBusName) return validatingPublisher(skippingPublisher(logger));
  const bus = new EventBridgePublisher({ client: new EventBridgeClient({ region: config.region }), busName: config.eventBusName, logger });
  return validatingPublisher(bus, { onPublished: (event) => metrics.eventsPublished.inc({ event_type: event.event_type }) });
}
