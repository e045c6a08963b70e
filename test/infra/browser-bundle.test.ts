/**
 * The browser function as Lambda would run it, offline, behind the API as it is built on
 * AWS. browser-handler.ts is bundled the way SST bundles it (Chromium, Playwright and
 * axe-core left to `install`) and each invocation runs it in a fresh Node process with the
 * environment infra declares; a Lambda wire-format double (Invoke, GetFunctionConfiguration)
 * stands between it and the API, whose deps are the AWS ones (buildAwsDeps) over DynamoDB
 * Local, the S3 double and the KMS double, reached through the SDK's endpoint variables.
 *
 * What this proves: on AWS, where the API function has no browser, a discovery session
 * started through the API is crawled by the browser function against the fixture app and
 * read back through the API; /api/discover and the quality audit are answered by it, a
 * page that never loads is still the request's 400 naming `url`; a generated UI test runs
 * its one run there, opening the project's secret with the KMS key; POST /api/act's actions
 * run there and their final page's PNG comes back inline; so do POST /api/extract's steps
 * and fields, the data in the answer; a finished run's PDF
 * report is printed there through the bucket; the data-layer health
 * shows the function; and a function that cannot be invoked or fails is a 503 that says
 * so, with the session it could not start marked failed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DeleteTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../packages/functions/src/api/app.ts';
import type { AppDeps } from '../../packages/functions/src/api/deps.ts';
import { loadAwsConfig } from '../../packages/functions/src/aws/config.ts';
import { buildAwsDeps } from '../../packages/functions/src/aws/deps.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { parsePdf } from '../support/pdf-text.ts';
import { client, signUp, type Client } from '../support/server.ts';
import type { DynamoDbLocal } from '../support/dynamodb-local.ts';
import type { KmsDouble } from '../support/kms-double.ts';
import type { S3Double } from '../support/s3-double.ts';
import { evaluateSstApp, resolvedEnvironment } from './sst-doubles.ts';
import { startAwsWire, WIRE_KMS_KEY_ARN } from './support/aws-wire.ts';
import { startLambdaDouble, type LambdaDouble } from './support/lambda-double.ts';
import { bundleAsSst, invokeInContainer } from './support/sst-bundle.ts';

const TABLE = `svc-browser-bundle-${process.pid}`;
const BUCKET = 'svc-artifacts-browser-bundle';
const STATE_MACHINE_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:svc-browser-bundle-RunGraph';
const REGION = 'eu-west-1';
const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
const BROWSER_FN = 'svc-test-BrowserWork';
const BROKEN_FN = 'svc-test-BrowserWorkOutOfMemory';

let work: string;
let ddb: DynamoDbLocal | undefined;
let ddbClient: DynamoDBClient | undefined;
let s3: S3Double | undefined;
let kms: KmsDouble | undefined;
let closeWire: (() => Promise<unknown>) | undefined;
let apiUrl: string;
let lambda: LambdaDouble | undefined;
let fixture: FixtureApp | undefined;
const servers: ServerType[] = [];
let apiEnv: Record<string, string>;

/** The API function's deps and app as api-handler.ts builds them, served on loopback. */
async function startApi(env: Record<string, string | undefined>): Promise<{ url: string; deps: AppDeps }> {
  const deps = await buildAwsDeps(loadAwsConfig({ ...apiEnv, ...env }));
  const app = createApp(deps);
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  servers.push(server);
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, deps };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as { port: number };
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

let api: Client;
let apiDeps: AppDeps;
let orgId: string;
let token: string;
let projectId: string;

beforeAll(async () => {
  const app = await evaluateSstApp('test', {});
  const fnArgs = app.named('BrowserWork').args;
  const apiArgs = app.named('Api').args;
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();

  work = await mkdtemp(path.join(tmpdir(), 'svc-browser-lambda-'));
  const packageDir = path.join(work, 'package');
  const handlerFile = await bundleAsSst({ handler: fnArgs.handler, packageDir, install: fnArgs.nodejs.install });

  const wire = await startAwsWire({ table: TABLE, bucket: BUCKET, stateMachineArn: STATE_MACHINE_ARN, region: REGION, credentials: CREDENTIALS });
  ({ ddb, ddbClient, s3, kms } = wire);
  closeWire = () => Promise.all([wire.eventBridge.close(), wire.stepFunctions.close()]);
  const awsEndpoints = {
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: ddb.endpoint,
    AWS_ENDPOINT_URL_S3: s3.endpoint,
  };
  // Exactly what infra gives the function, with the deployed names filled in.
  const functionEnv = {
    ...resolvedEnvironment(fnArgs.environment),
    SVC_TABLE_NAME: TABLE,
    SVC_BUCKET_NAME: BUCKET,
    SVC_KMS_KEY_ID: WIRE_KMS_KEY_ARN,
    SVC_LOG_LEVEL: 'ERROR',
    LAMBDA_TASK_ROOT: packageDir,
    HOME: work,
    ...awsEndpoints,
    AWS_ENDPOINT_URL_KMS: kms.endpoint,
  };
  lambda = await startLambdaDouble({
    [BROWSER_FN]: (event) => invokeInContainer({ handlerFile, exported: 'handler', event, env: functionEnv, cwd: packageDir }),
    // What the runtime reports when a container dies mid-job.
    [BROKEN_FN]: async () => ({ ok: false, error: 'Runtime exited with error: signal: killed' }),
  });

  // The API's SDK clients find the doubles through the standard endpoint variables.
  for (const [name, value] of Object.entries({ ...awsEndpoints, AWS_ENDPOINT_URL_KMS: kms.endpoint, AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint, AWS_ENDPOINT_URL_SFN: wire.stepFunctions.endpoint })) vi.stubEnv(name, value);
  apiEnv = {
    ...resolvedEnvironment(apiArgs.environment),
    SVC_TABLE_NAME: TABLE,
    SVC_BUCKET_NAME: BUCKET,
    SVC_KMS_KEY_ID: WIRE_KMS_KEY_ARN,
    SVC_BROWSER_FUNCTION_NAME: BROWSER_FN,
    // Runs start on the Step Functions double, which runs none (a report is made of a finished run below).
    SVC_STATE_MACHINE_ARN: STATE_MACHINE_ARN,
    SVC_LOG_LEVEL: 'SILENT',
    AWS_REGION: REGION,
  };
  delete apiEnv.SVC_EVENT_BUS_NAME;
  expect(resolvedEnvironment(apiArgs.environment).SVC_BROWSER_FUNCTION_NAME, 'infra names the function to the API').toBe('{BrowserWork.name}');

  fixture = await startFixtureApp();
  const started = await startApi({});
  apiDeps = started.deps;
  apiUrl = started.url;
  const user = await signUp(started.url, `browser-bundle-${process.pid}@example.com`);
  orgId = user.orgId;
  token = user.token;
  api = client(started.url, { token: user.token, org: user.orgId });
  const project = await api.post('/api/v1/projects', { name: 'shop', app_url: fixture.url });
  expect(project.status, project.text).toBe(201);
  projectId = project.body.id;
}, 180_000);

afterAll(async () => {
  vi.unstubAllEnvs();
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  await lambda?.drained();
  await ddbClient?.send(new DeleteTableCommand({ TableName: TABLE })).catch(() => {});
  ddbClient?.destroy();
  await Promise.all([ddb?.stop(), s3?.stop(), kms?.close(), closeWire?.(), lambda?.close(), fixture?.close()]);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the browser function behind the API on AWS', () => {
  it('crawls a discovery session started through the API, and the pages are read back through the API', async () => {
    const start = await api.post('/api/v1/discovery/start', { project_id: projectId, max_pages: 3, strategy: 'breadth_first' });
    expect(start.status, start.text).toBe(202);
    expect(start.body.status).toBe('pending');
    // Handed over asynchronously: the API answered before any crawling.
    const handed = lambda!.invocations.at(-1)!;
    expect(handed).toMatchObject({ functionName: BROWSER_FN, type: 'Event', event: { kind: 'discovery.session', organization_id: orgId, session: { id: start.body.id } } });

    await lambda!.drained();
    const done = await api.get(`/api/discovery/${start.body.id}`);
    expect(done.status).toBe(200);
    expect(done.body.status, JSON.stringify(done.body.session.insights)).toBe('completed');
    expect(done.body.pages.map((p: { url: string }) => p.url)[0]).toBe(`${fixture!.url}/`);
    expect(done.body.pages).toHaveLength(3);
    expect(done.body.pages.every((p: { element_count: number }) => p.element_count > 0)).toBe(true);
    // The screenshots went to the artifacts bucket the API reads.
    const shot = done.body.pages[0].screenshot_url as string;
    expect(shot).toMatch(/^discovery\/.+\/page-0\.png$/);
    expect((await apiDeps.blobs!.get(shot))?.contentType).toBe('image/png');
  });

  it('answers /api/discover with a crawl done in the function', async () => {
    const res = await api.post('/api/discover', { project_id: projectId, url: `${fixture!.url}/`, max_pages: 2 });
    expect(res.status, res.text).toBe(200);
    expect(lambda!.invocations.at(-1)).toMatchObject({ type: 'RequestResponse', event: { kind: 'discovery.crawl' } });
    expect(res.body.pages).toHaveLength(2);
    expect(res.body.pages[0].elements[0]).toEqual(expect.objectContaining({ selector: expect.any(String), stability_score: expect.any(Number) }));
  });

  it('audits a page in the function, and a page that never loads is still the request\'s 400 naming url', async () => {
    const res = await api.post('/api/quality/audit', { project_id: projectId, url: '/a11y' });
    expect(res.status, res.text).toBe(200);
    expect(lambda!.invocations.at(-1)).toMatchObject({ type: 'RequestResponse', event: { kind: 'quality.observe', url: `${fixture!.url}/a11y` } });
    expect(res.body.findings.filter((f: { check: string }) => f.check === 'accessibility').map((f: { id: string }) => f.id).sort()).toEqual(['button-name', 'color-contrast', 'image-alt', 'label']);
    expect(res.body.console.failed_requests).toEqual([{ url: `${fixture!.url}/missing-image.png`, status: 404, failure: null }]);

    const gone = await api.post('/api/v1/projects', { name: 'gone', app_url: `http://127.0.0.1:${await closedPort()}` });
    const unreachable = await api.post('/api/quality/audit', { project_id: gone.body.id });
    expect(unreachable.status, unreachable.text).toBe(400);
    expect(unreachable.body.error.details.issues[0].path).toBe('url');
    expect(unreachable.body.error.details.issues[0].message).toMatch(/ERR_CONNECTION_REFUSED/);
  });

  it('runs a generated UI test once in the function, with the project\'s secret opened there, before keeping it', async () => {
    expect((await api.put(`/api/v1/projects/${projectId}/environment/DEMO_PASSWORD`, { value: 's3cret!', secret: true })).status).toBe(200);
    const story = `Scenario: sign in
Given I am on the login page
When I fill "Email" with "demo@example.com"
And I fill "Password" with "{{secrets.DEMO_PASSWORD}}"
And I click "Sign in"
Then I should be redirected to "/dashboard"`;
    const res = await api.post('/api/nlp/create-test', { project_id: projectId, text: story });
    expect(res.status, res.text).toBe(201);
    expect(lambda!.invocations.at(-1)).toMatchObject({ type: 'RequestResponse', event: { kind: 'generation.run', project_id: projectId, test: { type: 'ui' } } });
    expect(JSON.stringify(lambda!.invocations.at(-1)!.event)).not.toContain('s3cret!');
    expect(res.body.execution, JSON.stringify(res.body.execution)).toMatchObject({ status: 'passed' });
    expect(res.body.created_test.id).toEqual(expect.any(String));

    // The wrong password fails its one run there, and the test is not created.
    expect((await api.put(`/api/v1/projects/${projectId}/environment/DEMO_PASSWORD`, { value: 'wrong', secret: true })).status).toBe(200);
    const failing = await api.post('/api/nlp/create-test', { project_id: projectId, text: story });
    expect(failing.status, failing.text).toBe(201);
    expect(failing.body.execution.status).toBe('failed');
    expect(failing.body.created_test ?? null).toBeNull();
  });

  it('performs POST /api/act in the function: the final page and its PNG come back inline in the answer', async () => {
    const res = await api.post('/api/act', { project_id: projectId, url: '/login', steps: [
      { type: 'fill', selector: { label: 'Email' }, value: 'demo@example.com' },
      { type: 'fill', selector: { label: 'Password' }, value: 's3cret!' },
      { type: 'click', selector: { role: 'button', name: 'Sign in' } },
    ] });
    expect(res.status, res.text).toBe(200);
    expect(lambda!.invocations.at(-1)).toMatchObject({ type: 'RequestResponse', event: { kind: 'generation.run', project_id: projectId, final_page: { screenshot: true } } });
    expect(res.body).toMatchObject({ status: 'passed', url: `${fixture!.url}/dashboard`, title: 'Dashboard — Fixture Shop', screenshot: { mime_type: 'image/png' } });
    // The PNG was taken in the function's own /tmp-bound container: it arrived as bytes, not as a path.
    const png = Buffer.from(res.body.screenshot.base64, 'base64');
    expect([...png.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect(png.length).toBe(res.body.screenshot.bytes);
  });

  it('performs POST /api/extract in the function: the steps sign in, then the fields are read from the dashboard', async () => {
    const res = await api.post('/api/extract', { project_id: projectId, url: '/login', steps: [
      { type: 'fill', selector: { label: 'Email' }, value: 'demo@example.com' },
      { type: 'fill', selector: { label: 'Password' }, value: 's3cret!' },
      { type: 'click', selector: { role: 'button', name: 'Sign in' } },
    ], fields: { welcome: { selector: '#welcome' }, links: { selector: 'nav a', attribute: 'href', all: true } } });
    expect(res.status, res.text).toBe(200);
    expect(lambda!.invocations.at(-1)).toMatchObject({ type: 'RequestResponse', event: { kind: 'generation.run', project_id: projectId, final_page: { screenshot: false, snapshot: false } } });
    expect(res.body).toMatchObject({ status: 'passed', url: `${fixture!.url}/dashboard`, data: { welcome: 'Welcome, Demo User!' } });
    expect(res.body.data.links.slice(0, 2)).toEqual(['/', '/login']);
  });

  it("prints a finished run's PDF report in the function, through the bucket, and leaves nothing there", async () => {
    const started = await api.post('/api/v1/test/run', { project_id: projectId });
    expect(started.status, started.text).toBe(201);
    const runId: string = started.body.run.id;
    // What the report task leaves when a run ends (the double runs no execution).
    await apiDeps.store.testRuns.setStatus(orgId, runId, 'completed', { started_at: new Date().toISOString(), completed_at: new Date().toISOString(), total_tests: 0, passed_tests: 0, failed_tests: 0 });
    const res = await fetch(`${apiUrl}/api/reports/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-organization-id': orgId, 'content-type': 'application/json' },
      body: JSON.stringify({ run_id: runId, format: 'pdf' }),
    });
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(res.status, new TextDecoder().decode(bytes.slice(0, 500))).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe('%PDF-');
    const pdf = await parsePdf(bytes);
    expect(pdf.pageTexts[0]).toContain(`svc report · run ${runId}`);
    const job = lambda!.invocations.at(-1)!;
    expect(job).toMatchObject({ type: 'RequestResponse', event: { kind: 'report.pdf', title: `svc report · run ${runId}` } });
    const { html_key, pdf_key } = job.event as { html_key: string; pdf_key: string };
    expect(await apiDeps.blobs!.get(html_key)).toBeUndefined();
    expect(await apiDeps.blobs!.get(pdf_key)).toBeUndefined();
  });

  it('shows the function in the data-layer health', async () => {
    const res = await api.get('/api/v1/health/data-layer');
    expect(res.status).toBe(200);
    expect(res.body.components.browser_grid).toMatchObject({ status: 'ok', detail: expect.stringContaining(BROWSER_FN), version: 'nodejs22.x' });
  });

  it('is a 503 that says so when the function fails or cannot be invoked; the session it could not start is failed', async () => {
    const broken = await startApi({ SVC_BROWSER_FUNCTION_NAME: BROKEN_FN });
    const owner = await signUp(broken.url, `browser-broken-${process.pid}@example.com`);
    const brokenApi = client(broken.url, { token: owner.token, org: owner.orgId });
    const p = await brokenApi.post('/api/v1/projects', { name: 'shop', app_url: fixture!.url });
    const crawl = await brokenApi.post('/api/discover', { project_id: p.body.id, max_pages: 1 });
    expect(crawl.status, crawl.text).toBe(503);
    expect(crawl.body.error).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/the browser function failed \(Unhandled\): Runtime exited with error: signal: killed/) });

    const missing = await startApi({ SVC_BROWSER_FUNCTION_NAME: 'svc-test-NoSuchFunction' });
    const health = await client(missing.url).get('/health');
    expect(health.status).toBe(200);
    const user = await signUp(missing.url, `browser-missing-${process.pid}@example.com`);
    const missingApi = client(missing.url, { token: user.token, org: user.orgId });
    const project = await missingApi.post('/api/v1/projects', { name: 'shop', app_url: fixture!.url });
    const start = await missingApi.post('/api/v1/discovery/start', { project_id: project.body.id, max_pages: 1 });
    expect(start.status, start.text).toBe(503);
    expect(start.body.error.message).toMatch(/the browser function svc-test-NoSuchFunction could not be invoked: ResourceNotFoundException/);
    const sessions = await missing.deps.store.discovery.listForProject(project.body.id, 10);
    expect(sessions.items.map((s) => s.status)).toEqual(['failed']);
  });
});
