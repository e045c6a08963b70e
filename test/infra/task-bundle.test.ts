/**
 * A run graph task function as Lambda would run it, offline: lambda-tasks.ts is bundled
 * the way SST's Node runtime bundles it (esbuild, ESM, the bundle at the handler's path,
 * the function's `nodejs.install` packages left external and present in the package),
 * and loaded in a fresh Node process with the environment infra declares for it.
 * DynamoDB Local, the S3 double and an EventBridge wire-format double stand in for AWS,
 * reached through the SDK's standard endpoint variables.
 *
 * What this proves: the bundle loads and runs analyze_code on a run's thread, and the
 * codebase.analyzed it produces reaches the bus infra links and names (before, the task
 * functions had no SVC_EVENT_BUS_NAME and every event was checked and dropped); and the
 * task functions build their model client from the settings infra passes, refusing a
 * broken one by name; and a webhook's run sets its commit status from these functions —
 * pending from plan_tests, the outcome from report — on a GitHub status API double, linking
 * to SVC_PUBLIC_URL (a Lambda is frozen once it returns, so both are awaited there).
 */
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../packages/core/src/ports/clock.ts';
import { createStore } from '../../packages/core/src/store/index.ts';
import { envelopeCipher } from '../../packages/core/src/secrets/envelope.ts';
import { kmsDataKeys } from '../../packages/functions/src/secrets/kms-data-keys.ts';
import { KMSClient } from '@aws-sdk/client-kms';
import { checkEvent } from '../../packages/core/src/events/validate.ts';
import { DynamoDbTable } from '../../packages/functions/src/aws/dynamodb-table.ts';
import { createAwsRunGraph } from '../../packages/functions/src/run-graph/aws-setup.ts';
import { createLogger } from '../../packages/functions/src/shared/logger.ts';
import { startAwsDouble } from '../events/support/aws-double.ts';
import { startAwsWire, WIRE_KMS_KEY_ARN } from './support/aws-wire.ts';
import type { KmsDouble } from '../support/kms-double.ts';
import { startStatusHost } from '../vcs/support/status-host.ts';
import { reposDir } from '../intelligence/analysis/sample-repos.ts';
import type { DynamoDbLocal } from '../support/dynamodb-local.ts';
import type { S3Double } from '../support/s3-double.ts';
import { evaluateSstApp, resolvedEnvironment } from './sst-doubles.ts';
import { bundleAsSst, invokeInContainer, type ContainerOutcome } from './support/sst-bundle.ts';

const TABLE = `svc-task-bundle-${process.pid}`;
const BUCKET = 'svc-artifacts-task-bundle';
const BUS = 'svc-events-task-bundle';
const STATE_MACHINE_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:svc-task-bundle-RunGraph';
const REGION = 'eu-west-1';
const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

let work: string;
let packageDir: string;
let handlerFile: string;
let functionEnv: Record<string, string>;
let ddb: DynamoDbLocal | undefined;
let ddbClient: DynamoDBClient | undefined;
let s3: S3Double | undefined;
let eventBridge: Awaited<ReturnType<typeof startAwsDouble>> | undefined;
let stepFunctions: Awaited<ReturnType<typeof startAwsDouble>> | undefined;
let kms: KmsDouble | undefined;
let infraArgs: any;

beforeAll(async () => {
  // The heaviest task function: its package leaves Chromium and Playwright to `install`.
  infraArgs = (await evaluateSstApp('test', {})).named('RunGraphExecuteTest').args;
  const analyzeArgs = (await evaluateSstApp('test', {})).named('RunGraphAnalyzeCode').args;
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
  // Every task function runs the same file with the same environment.
  expect(analyzeArgs.handler.slice(0, analyzeArgs.handler.lastIndexOf('.'))).toBe(infraArgs.handler.slice(0, infraArgs.handler.lastIndexOf('.')));
  expect(Object.keys(analyzeArgs.environment)).toEqual(Object.keys(infraArgs.environment));

  work = await mkdtemp(path.join(tmpdir(), 'svc-task-lambda-'));
  packageDir = path.join(work, 'package');
  const installed: string[] = infraArgs.nodejs?.install ?? [];
  expect(installed).toEqual(['@sparticuz/chromium', 'playwright-core', 'axe-core']);

  handlerFile = await bundleAsSst({ handler: infraArgs.handler, packageDir, install: installed });
  // The accessibility check reads axe-core's browser build as a file next to the bundle (execution/browser/axe.ts).
  expect(createRequire(handlerFile).resolve('axe-core/axe.min.js')).toMatch(/node_modules\/axe-core\/axe\.min\.js$/);

  ({ ddb, ddbClient, s3, eventBridge, stepFunctions, kms } = await startAwsWire({ table: TABLE, bucket: BUCKET, stateMachineArn: STATE_MACHINE_ARN, region: REGION, credentials: CREDENTIALS }));

  expect(infraArgs.environment.SVC_EVENT_BUS_NAME, 'infra names the bus').toBeDefined();
  functionEnv = {
    ...resolvedEnvironment(infraArgs.environment),
    SVC_TABLE_NAME: TABLE,
    SVC_BUCKET_NAME: BUCKET,
    SVC_EVENT_BUS_NAME: BUS,
    SVC_KMS_KEY_ID: WIRE_KMS_KEY_ARN,
    // A mounted checkout (EFS, a layer) is what a deployment would name here.
    SVC_ANALYZE_ROOTS: reposDir,
    SVC_LOG_LEVEL: 'ERROR',
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    LAMBDA_TASK_ROOT: packageDir,
    AWS_ENDPOINT_URL_DYNAMODB: ddb.endpoint,
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: eventBridge.endpoint,
    AWS_ENDPOINT_URL_SFN: stepFunctions.endpoint,
    AWS_ENDPOINT_URL_KMS: kms.endpoint,
  };
});

afterAll(async () => {
  await ddbClient?.send(new DeleteTableCommand({ TableName: TABLE })).catch(() => {});
  ddbClient?.destroy();
  await Promise.all([ddb?.stop(), s3?.stop(), eventBridge?.close(), stepFunctions?.close(), kms?.close()]);
  if (work) await rm(work, { recursive: true, force: true });
});

/** Calls `exported(event)` on the bundle in a fresh Node process (a cold container). */
function invoke(exported: string, event: unknown, env: Record<string, string | undefined> = {}): Promise<ContainerOutcome> {
  return invokeInContainer({ handlerFile, exported, event, env: { ...functionEnv, ...env }, cwd: packageDir });
}

/** A run started as the API starts one (its thread checkpointed in the table), with the repository to analyse. */
async function startRun(orgId: string) {
  const table = new DynamoDbTable({ tableName: TABLE, client: ddbClient! });
  const store = createStore(table, systemClock);
  const project = await store.projects.create(orgId, { name: 'shop' });
  const manager = createAwsRunGraph({
    store,
    table,
    clock: systemClock,
    logger: createLogger('SILENT'),
    sfn: new SFNClient({ endpoint: stepFunctions!.endpoint, region: REGION, credentials: CREDENTIALS }),
    stateMachineArn: STATE_MACHINE_ARN,
  });
  const { threadId, run } = await manager.start(orgId, null, { project_id: project.id, codebase_path: path.join(reposDir, 'fastify-api') } as any);
  return { threadId, run, projectId: project.id };
}

describe('the bundled run graph task functions', () => {
  it('publish codebase.analyzed from analyze_code to the bus infra names', async () => {
    const orgId = `org-task-bundle-${process.pid}`;
    const { threadId, run, projectId } = await startRun(orgId);
    const before = eventBridge!.requests.length;

    const outcome = await invoke('analyzeCode', { thread_id: threadId });
    expect(outcome).toEqual({ ok: true, value: { thread_id: threadId, route: 'plan_tests' } });

    const puts = eventBridge!.requests.slice(before);
    expect(puts.map((r) => r.target)).toEqual(['AWSEvents.PutEvents']);
    expect(String(puts[0]!.headers.authorization)).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${CREDENTIALS.accessKeyId}/\\d{8}/${REGION}/events/aws4_request`));
    const [entry] = puts[0]!.body.Entries;
    expect(entry).toMatchObject({ EventBusName: BUS, Source: 'svc.knowledge-worker', DetailType: 'codebase.analyzed' });
    const envelope = JSON.parse(entry.Detail);
    expect(checkEvent(envelope)).toEqual(envelope);
    expect(envelope).toMatchObject({
      tenant_id: orgId,
      correlation_id: run.id,
      payload: { project_id: projectId, run_id: run.id, codebase_path: path.join(reposDir, 'fastify-api') },
    });
    expect(envelope.payload.surface_count).toBeGreaterThan(0);
  });

  it('check and drop the event when no bus is named, and the run goes on', async () => {
    const { threadId } = await startRun(`org-task-nobus-${process.pid}`);
    const before = eventBridge!.requests.length;
    const outcome = await invoke('analyzeCode', { thread_id: threadId }, { SVC_EVENT_BUS_NAME: undefined });
    expect(outcome).toEqual({ ok: true, value: { thread_id: threadId, route: 'plan_tests' } });
    expect(eventBridge!.requests.length).toBe(before);
  });

  it('build their model client from the settings infra passes, refusing a broken one by name', async () => {
    const { threadId } = await startRun(`org-task-llm-${process.pid}`);
    // No network is touched: analyze_code calls no model; the client is only built.
    const configured = await invoke('analyzeCode', { thread_id: threadId }, { SVC_LLM_PROVIDERS: 'anthropic', SVC_ANTHROPIC_API_KEY: 'sk-ant-test', SVC_LLM_VISION: 'true' });
    expect(configured).toEqual({ ok: true, value: { thread_id: threadId, route: 'plan_tests' } });

    const broken = await invoke('planTests', { thread_id: threadId }, { SVC_LLM_PROVIDERS: 'anthropic', SVC_LLM_VISION: 'maybe' });
    expect(broken.ok).toBe(false);
    expect((broken as { error: string }).error).toMatch(/SVC_ANTHROPIC_API_KEY \(or ANTHROPIC_API_KEY\): required for the anthropic provider/);
    expect((broken as { error: string }).error).toMatch(/SVC_LLM_VISION: /);
  });

  it("set a webhook run's commit status: pending from plan_tests, the outcome from report, linking to SVC_PUBLIC_URL", async () => {
    const token = 'ghp_taskbundle0123456789abcdefghijklmnopq';
    const host = await startStatusHost({ github: token, gitlab: 'unused-token' });
    try {
      const orgId = `org-task-status-${process.pid}`;
      const table = new DynamoDbTable({ tableName: TABLE, client: ddbClient! });
      // The integration's secrets are sealed under the key the bundled functions are given.
      const cipher = envelopeCipher(kmsDataKeys({ client: new KMSClient({ region: REGION, endpoint: kms!.endpoint, credentials: CREDENTIALS }), keyId: WIRE_KMS_KEY_ARN }));
      const store = createStore(table, systemClock, { cipher });
      const project = await store.projects.create(orgId, { name: 'shop' });
      const test = await store.tests.create(orgId, { project_id: project.id, name: 'cart', description: null, type: 'api', steps: [{ type: 'request', method: 'GET', url: '/ok' }], assertions: [], priority: 'medium', tags: [] } as any);
      const integration = await store.vcsIntegrations.create(orgId, {
        project_id: project.id, provider: 'github', repository: 'acme/shop', events: ['push'], branches: [], tags: [], healing_enabled: null, enabled: true,
        created_by: null, secret: 'whsec_test', status_token: token, status_token_hint: 'ghp_…mnopq', api_url: host.url, status_context: 'svc',
      });
      // As the webhook does (vcs-webhooks.ts): the commit beside the thread, then the run on that thread.
      const sha = 'a'.repeat(40);
      const threadId = `vcs-${integration.id}-delivery-1`;
      await store.vcsStatuses.recordCommit(orgId, { thread_id: threadId, integration_id: integration.id, provider: 'github', repository: 'acme/shop', commit_sha: sha, delivery_id: 'delivery-1' });
      const manager = createAwsRunGraph({ store, table, clock: systemClock, logger: createLogger('SILENT'), sfn: new SFNClient({ endpoint: stepFunctions!.endpoint, region: REGION, credentials: CREDENTIALS }), stateMachineArn: STATE_MACHINE_ARN });
      const { run } = await manager.start(orgId, null, { project_id: project.id, test_ids: [test.id], thread_id: threadId } as any, 'vcs');

      const env = { SVC_PUBLIC_URL: 'https://svc.example.com' };
      expect((await invoke('analyzeCode', { thread_id: threadId }, env)).ok).toBe(true);
      expect(await invoke('planTests', { thread_id: threadId }, env)).toMatchObject({ ok: true, value: { route: 'execute_tests', tests: [test.id] } });
      expect(host.of(sha).map((p) => p.body)).toEqual([{ state: 'pending', target_url: `https://svc.example.com/api/reports/${run.id}?format=html`, description: 'svc is running 1 test', context: 'svc' }]);

      // The test is not executed here (no browser needed to prove the wiring): report counts it skipped.
      expect(await invoke('report', { thread_id: threadId }, env)).toMatchObject({ ok: true, value: { status: 'completed' } });
      expect(host.of(sha).map((p) => [p.body.state, p.body.description, p.headers.authorization])).toEqual([
        ['pending', 'svc is running 1 test', `Bearer ${token}`],
        ['success', '0 passed, 1 skipped', `Bearer ${token}`],
      ]);
      expect((await store.vcsStatuses.log(orgId, integration.id, 10)).items.map((l) => [l.state, l.status])).toEqual([['success', 'delivered'], ['pending', 'delivered']]);
    } finally {
      await host.stop();
    }
  });
});
