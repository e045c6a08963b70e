/**
 * The API function as Lambda would run it, offline: the handler is bundled the way
 * SST's Node runtime bundles it (esbuild, ESM, the bundle written at the handler's path
 * inside the package), infra's `copyFiles` are applied to the package, and the bundle is
 * loaded in a fresh Node process (one "container") with the environment infra declares.
 * AWS is stood in for by DynamoDB Local, the S3 wire-format double and an EventBridge
 * wire-format double (test/events/support/aws-double.ts), reached through the SDK's
 * standard endpoint variables; `awslambda` (the streaming runtime API) is doubled with
 * its documented shape.
 *
 * What this proves: the bundle loads and builds its deps from that environment, the
 * dashboard files are found where the bundled @svc/web looks, sign-up works against
 * DynamoDB with Secure cookies and the built-in issuer, the data-layer health check
 * reaches S3, CORS follows SVC_CORS_ORIGINS, sign-ins are limited by the address the
 * function URL saw, a second container accepts the first
 * one's tokens (the signing key lives in the table), and creating a test puts a valid
 * test.created event on the bus infra names (SVC_EVENT_BUS_NAME), counted at /metrics
 * behind SVC_METRICS_TOKEN, starting a run starts an execution of the state machine
 * infra names (SVC_STATE_MACHINE_ARN) on a Step Functions wire-format double, and the
 * agent tool gateway answers MCP at /mcp, forwarding a tool call to the API.
 *
 * SST's bundle layout is mirrored from its source (pkg/runtime/node/build.go); a change
 * there would not show here.
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../packages/core/src/ports/clock.ts';
import { createStore } from '../../packages/core/src/store/index.ts';
import { checkEvent } from '../../packages/core/src/events/validate.ts';
import { DynamoDbTable } from '../../packages/functions/src/aws/dynamodb-table.ts';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KMSClient } from '@aws-sdk/client-kms';
import { envelopeCipher } from '../../packages/core/src/secrets/envelope.ts';
import { keys } from '../../packages/core/src/store/keys.ts';
import { kmsDataKeys } from '../../packages/functions/src/secrets/kms-data-keys.ts';
import { startAwsDouble } from '../events/support/aws-double.ts';
import { startAwsWire, WIRE_KMS_KEY_ARN } from './support/aws-wire.ts';
import type { KmsDouble } from '../support/kms-double.ts';
import type { DynamoDbLocal } from '../support/dynamodb-local.ts';
import type { S3Double } from '../support/s3-double.ts';
import { evaluateSstApp, fromRoot, functionUrlEvent, resolvedEnvironment } from './sst-doubles.ts';
import { bundleAsSst } from './support/sst-bundle.ts';

const TABLE = `svc-lambda-bundle-${process.pid}`;
const BUCKET = 'svc-artifacts-bundle-test';
const BUS = 'svc-events-bundle-test';
const APP_ORIGIN = 'https://app.example.com';
const STATE_MACHINE_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:svc-bundle-test-RunGraph';
const REGION = 'eu-west-1';
// DynamoDB Local keeps separate tables per access key and region: the test and the
// function must use the same pair.
const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

let work: string;
let packageDir: string;
let handlerFile: string;
let handlerExport: string;
let functionEnv: Record<string, string>;
let ddb: DynamoDbLocal | undefined;
let ddbClient: DynamoDBClient | undefined;
let s3: S3Double | undefined;
let eventBridge: Awaited<ReturnType<typeof startAwsDouble>> | undefined;
let stepFunctions: Awaited<ReturnType<typeof startAwsDouble>> | undefined;
let kms: KmsDouble | undefined;
/** What the last container logged, for failure messages. */
let logs = '';

beforeAll(async () => {
  const { args } = (await evaluateSstApp('test', { SVC_CORS_ORIGINS: APP_ORIGIN, SVC_LOG_LEVEL: 'ERROR' })).named('Api');
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();

  work = await mkdtemp(path.join(tmpdir(), 'svc-lambda-'));
  packageDir = path.join(work, 'package');
  const handler: string = args.handler;
  handlerExport = handler.slice(handler.lastIndexOf('.') + 1);
  // As SST's Node runtime builds a function (ESM, no splitting, no `install` packages).
  handlerFile = await bundleAsSst({ handler, packageDir });
  for (const entry of args.copyFiles ?? []) {
    await cp(fromRoot(entry.from), path.join(packageDir, entry.to ?? entry.from), { recursive: true });
  }

  ({ ddb, ddbClient, s3, eventBridge, stepFunctions, kms } = await startAwsWire({ table: TABLE, bucket: BUCKET, stateMachineArn: STATE_MACHINE_ARN, region: REGION, credentials: CREDENTIALS }));

  // infra links the bus and names it; here the name is a concrete one.
  expect(args.environment.SVC_EVENT_BUS_NAME, 'infra passes the bus name').toBeDefined();
  expect(args.environment.SVC_STATE_MACHINE_ARN, 'infra passes the state machine ARN').toBeDefined();
  functionEnv = {
    ...resolvedEnvironment(args.environment),
    SVC_TABLE_NAME: TABLE,
    SVC_BUCKET_NAME: BUCKET,
    SVC_EVENT_BUS_NAME: BUS,
    SVC_KMS_KEY_ID: WIRE_KMS_KEY_ARN,
    SVC_STATE_MACHINE_ARN: STATE_MACHINE_ARN,
    // What the Lambda runtime provides.
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    LAMBDA_TASK_ROOT: packageDir,
    // The SDK's standard per-service endpoint overrides point it at the stand-ins.
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

interface Invocation {
  statusCode: number;
  headers: Record<string, string>;
  cookies: string[];
  body: string;
}

/**
 * Loads the bundle in a fresh Node process (a cold container) and sends it the events in
 * order; `env` adds to (or, with undefined, removes from) the function's environment.
 */
async function container(events: object[], env: Record<string, string | undefined> = {}): Promise<Invocation[]> {
  const driver = path.join(work, 'driver.mjs');
  await writeFile(
    driver,
    `
import { PassThrough } from 'node:stream';
globalThis.awslambda = {
  streamifyResponse: (fn) => fn,
  HttpResponseStream: { from: (stream, metadata) => { stream.metadata = metadata; return stream; } },
};
const events = JSON.parse(process.argv[2]);
const mod = await import(${JSON.stringify(pathToFileURL(handlerFile).href)});
const handler = mod[${JSON.stringify(handlerExport)}];
const out = [];
for (const event of events) {
  const stream = new PassThrough();
  const chunks = [];
  stream.on('data', (c) => chunks.push(c));
  const ended = new Promise((resolve) => stream.on('end', resolve));
  await handler(event, stream, { awsRequestId: 'req', getRemainingTimeInMillis: () => 900000 });
  await ended;
  const m = stream.metadata ?? {};
  out.push({ statusCode: m.statusCode, headers: m.headers ?? {}, cookies: m.cookies ?? [], body: Buffer.concat(chunks).toString('utf8') });
}
process.stdout.write('\\n@@result@@' + JSON.stringify(out));
`,
  );
  return new Promise((resolve, reject) => {
    // A clean environment, as Lambda's: nothing from the test runner's shell.
    const child = spawn(process.execPath, [driver, JSON.stringify(events)], {
      cwd: packageDir,
      env: withoutUndefined({ PATH: process.env.PATH ?? '', ...functionEnv, ...env }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`container exited ${code}: ${stderr}`));
      // The function's own logs (structured JSON on stdout, as on Lambda) come first.
      const at = stdout.lastIndexOf('\n@@result@@');
      logs = stdout.slice(0, Math.max(at, 0)) + stderr;
      if (at < 0) return reject(new Error(`container printed no result: ${stdout}\n${stderr}`));
      resolve(JSON.parse(stdout.slice(at + '\n@@result@@'.length)) as Invocation[]);
    });
  });
}

const withoutUndefined = (env: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
const json = (invocation: Invocation) => JSON.parse(invocation.body);
const jwtPayload = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

describe('the bundled API function', () => {
  it('serves the dashboard, the API and the data layer from the package infra declares', async () => {
    const signup = JSON.stringify({ email: 'lambda@example.com', password: 'correct horse battery', organization_name: 'Lambda Org' });
    const [signIn, script, health, ready, signedUp, preflight, foreign] = await container([
      functionUrlEvent('GET', '/sign-in', { headers: { accept: 'text/html' } }),
      functionUrlEvent('GET', '/assets/app.js', { headers: { accept: '*/*' } }),
      functionUrlEvent('GET', '/health'),
      functionUrlEvent('GET', '/health/ready'),
      functionUrlEvent('POST', '/api/auth/signup', { headers: { 'content-type': 'application/json' }, body: signup }),
      functionUrlEvent('OPTIONS', '/api/v1/users/me', {
        headers: { origin: APP_ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      }),
      functionUrlEvent('OPTIONS', '/api/v1/users/me', {
        headers: { origin: 'https://elsewhere.example.com', 'access-control-request-method': 'GET' },
      }),
    ]);

    expect(signIn!.statusCode, `${signIn!.body}\n${logs}`).toBe(200);
    expect(signIn!.headers['content-type']).toMatch(/^text\/html/);
    expect(signIn!.body).toBe(await readFile(fromRoot('packages/web/public/sign-in.html'), 'utf8'));
    expect(script!.statusCode).toBe(200);
    expect(script!.body).toBe(await readFile(fromRoot('packages/web/public/assets/app.js'), 'utf8'));

    expect(health!.statusCode).toBe(200);
    expect(json(health!)).toMatchObject({ status: 'ok' });
    expect(ready!.statusCode).toBe(200);
    expect(json(ready!)).toEqual({ ready: true });

    expect(signedUp!.statusCode, signedUp!.body).toBe(201);
    const session = json(signedUp!);
    expect(jwtPayload(session.access_token)).toMatchObject({ iss: 'urn:svc:api', aud: 'svc' });
    const cookies = [...signedUp!.cookies, ...(signedUp!.headers['set-cookie'] ? [signedUp!.headers['set-cookie']] : [])];
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie).toMatch(/;\s*Secure/i);

    expect(preflight!.statusCode).toBe(204);
    expect(preflight!.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(preflight!.headers['access-control-allow-credentials']).toBe('true');
    expect(foreign!.headers['access-control-allow-origin']).toBeUndefined();

    // A second, cold container: same table, so it verifies the first one's tokens.
    const sessionCookies = cookies.map((cookie) => cookie.split(';')[0]!);
    const [index, me, dataLayer, viewer] = await container([
      functionUrlEvent('GET', '/', { headers: { accept: 'text/html' }, cookies: sessionCookies }),
      functionUrlEvent('GET', '/api/v1/users/me', { headers: { authorization: `Bearer ${session.access_token}` } }),
      functionUrlEvent('GET', '/api/v1/health/data-layer', {
        headers: { authorization: `Bearer ${session.access_token}`, 'x-organization-id': session.organization.id },
      }),
      functionUrlEvent('GET', '/trace-viewer/', { headers: { accept: 'text/html' } }),
    ]);
    expect(index!.statusCode, `${index!.body}\n${logs}`).toBe(200);
    // The trace viewer comes from the package (copyFiles), not from a node_modules the package lacks.
    expect(viewer!.statusCode, viewer!.body).toBe(200);
    expect(viewer!.body).toBe(await readFile(fromRoot('node_modules/playwright-core/lib/vite/traceViewer/index.html'), 'utf8'));
    expect(viewer!.headers['content-security-policy']).toContain("connect-src 'self' blob:");
    expect(index!.headers['content-type']).toMatch(/^text\/html/);
    expect(index!.body).toBe(await readFile(fromRoot('packages/web/public/index.html'), 'utf8'));
    expect(me!.statusCode, me!.body).toBe(200);
    expect(json(me!).email ?? json(me!).user?.email).toBe('lambda@example.com');

    expect(dataLayer!.statusCode, dataLayer!.body).toBe(200);
    const { components } = json(dataLayer!);
    expect(components.database).toEqual({ status: 'ok' });
    expect(components.blob_store).toEqual({ status: 'ok' });
    // The probe went to the artifacts bucket over S3's API, and was cleaned up.
    const probe = s3!.requests.filter((r) => r.bucket === BUCKET && r.key.startsWith('health/probe-'));
    expect(probe.map((r) => `${r.operation} ${r.status}`)).toEqual(['PutObject 200', 'GetObject 200', 'DeleteObject 204']);
    expect(s3!.objects(BUCKET).size).toBe(0);
  });

  it('limits sign-ins per address by the one the function URL saw (requestContext.http.sourceIp), never a client-written X-Forwarded-For', async () => {
    // Refresh is on the sign-in budget and answers at once (a password check takes long enough for the budget to refill).
    const login = (i: number, sourceIp = '198.51.100.7') => {
      const event = functionUrlEvent('POST', '/api/auth/refresh', {
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${i}, ${sourceIp}` },
        body: JSON.stringify({ refresh_token: `not-a-token-${i}` }),
      });
      event.requestContext.http.sourceIp = sourceIp;
      return event;
    };
    // 30 sign-in attempts (sign-up, login, refresh) a minute per address on AWS; a new X-Forwarded-For each time changes nothing.
    const answers = await container([...Array.from({ length: 31 }, (_, i) => login(i + 1)), login(99, '198.51.100.8')]);
    expect(answers.slice(0, 30).map((a) => a.statusCode), logs).toEqual(Array(30).fill(401));
    expect(answers[30]!.statusCode).toBe(429);
    expect(json(answers[30]!).error.code).toBe('RATE_LIMITED');
    // Another address has its own budget.
    expect(answers[31]!.statusCode).toBe(401);
  });

  it('publishes test.created to the bus infra names, and counts it at /metrics behind the token', async () => {
    const metricsToken = 'bundle-metrics-token-0123456789';
    const signup = JSON.stringify({ email: 'events@example.com', password: 'correct horse battery', organization_name: 'Events Org' });
    const [signedUp] = await container([functionUrlEvent('POST', '/api/auth/signup', { headers: { 'content-type': 'application/json' }, body: signup })]);
    expect(signedUp!.statusCode, `${signedUp!.body}\n${logs}`).toBe(201);
    const session = json(signedUp!);
    const orgId: string = session.organization.id;
    // The project is put straight into the table: only the test's creation is under test.
    const project = await createStore(new DynamoDbTable({ tableName: TABLE, client: ddbClient! }), systemClock).projects.create(orgId, { name: 'shop' });

    const auth = { authorization: `Bearer ${session.access_token}`, 'x-organization-id': orgId };
    const before = eventBridge!.requests.length;
    const [created, refused, anonymous, metrics] = await container(
      [
        functionUrlEvent('POST', '/api/tests', {
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ project_id: project.id, name: 'checkout', type: 'ui', steps: [{ type: 'goto', url: '/' }] }),
        }),
        functionUrlEvent('GET', '/metrics', { headers: { accept: 'text/plain' } }),
        functionUrlEvent('GET', '/metrics', { headers: { accept: 'text/plain', authorization: 'Bearer wrong-token-0123456789' } }),
        functionUrlEvent('GET', '/metrics', { headers: { accept: 'text/plain', authorization: `Bearer ${metricsToken}` } }),
      ],
      { SVC_METRICS_TOKEN: metricsToken },
    );
    expect(created!.statusCode, `${created!.body}\n${logs}`).toBe(201);
    const test = json(created!);

    const puts = eventBridge!.requests.slice(before);
    expect(puts.map((r) => r.target)).toEqual(['AWSEvents.PutEvents']);
    // Signed with the function's credentials, for EventBridge in the function's region.
    expect(String(puts[0]!.headers.authorization)).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${CREDENTIALS.accessKeyId}/\\d{8}/${REGION}/events/aws4_request`));
    expect(puts[0]!.body.Entries).toHaveLength(1);
    const [entry] = puts[0]!.body.Entries;
    expect(entry).toMatchObject({ EventBusName: BUS, Source: 'svc.api', DetailType: 'test.created' });
    const envelope = JSON.parse(entry.Detail);
    expect(checkEvent(envelope)).toEqual(envelope);
    expect(envelope).toMatchObject({
      event_type: 'test.created',
      source: 'svc.api',
      tenant_id: orgId,
      payload: { test_id: test.id, test_name: 'checkout', test_type: 'ui', project_id: project.id },
    });
    expect(entry.Time).toBe(Date.parse(envelope.timestamp) / 1000);

    expect(refused!.statusCode).toBe(401);
    expect(anonymous!.statusCode).toBe(401);
    expect(metrics!.statusCode, metrics!.body).toBe(200);
    expect(metrics!.body).toMatch(/^svc_events_published_total\{event_type="test\.created"\} 1$/m);
  });

  it('serves the agent tool gateway at /mcp: initialize, tools/list and a tool call forwarded to the API', async () => {
    const signup = JSON.stringify({ email: 'agent@example.com', password: 'correct horse battery', organization_name: 'Agent Org' });
    const [signedUp] = await container([functionUrlEvent('POST', '/api/auth/signup', { headers: { 'content-type': 'application/json' }, body: signup })]);
    expect(signedUp!.statusCode, `${signedUp!.body}\n${logs}`).toBe(201);
    const session = json(signedUp!);
    const project = await createStore(new DynamoDbTable({ tableName: TABLE, client: ddbClient! }), systemClock).projects.create(session.organization.id, { name: 'agent shop' });
    const rpc = (id: number, method: string, params: object, extra: Record<string, string> = {}) =>
      functionUrlEvent('POST', '/mcp', {
        headers: { authorization: `Bearer ${session.access_token}`, 'x-organization-id': session.organization.id, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      });
    const version = { 'mcp-protocol-version': '2025-06-18' };
    const [init, list, called] = await container([
      rpc(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bundle-test', version: '1' } }),
      rpc(2, 'tools/list', {}, version),
      rpc(3, 'tools/call', { name: 'svc_list_projects', arguments: {} }, version),
    ]);
    expect(init!.statusCode, `${init!.body}\n${logs}`).toBe(200);
    expect(json(init!).result.serverInfo).toMatchObject({ name: 'svc' });
    expect(json(list!).result.tools.map((t: { name: string }) => t.name)).toContain('svc_test');
    const result = json(called!).result;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.items.map((p: { id: string }) => p.id)).toEqual([project.id]);
  });

  it('checks and drops events when no bus is named', async () => {
    const signup = JSON.stringify({ email: 'nobus@example.com', password: 'correct horse battery', organization_name: 'No Bus Org' });
    const [signedUp] = await container([functionUrlEvent('POST', '/api/auth/signup', { headers: { 'content-type': 'application/json' }, body: signup })]);
    const session = json(signedUp!);
    const orgId: string = session.organization.id;
    const project = await createStore(new DynamoDbTable({ tableName: TABLE, client: ddbClient! }), systemClock).projects.create(orgId, { name: 'shop' });
    const before = eventBridge!.requests.length;
    const [created, metrics] = await container(
      [
        functionUrlEvent('POST', '/api/tests', {
          headers: { authorization: `Bearer ${session.access_token}`, 'x-organization-id': orgId, 'content-type': 'application/json' },
          body: JSON.stringify({ project_id: project.id, name: 'checkout', type: 'api' }),
        }),
        functionUrlEvent('GET', '/metrics', { headers: { accept: 'text/plain' } }),
      ],
      { SVC_EVENT_BUS_NAME: undefined },
    );
    expect(created!.statusCode, `${created!.body}\n${logs}`).toBe(201);
    expect(eventBridge!.requests.length).toBe(before);
    // No token configured: /metrics is open. Nothing reached a bus, so nothing is counted.
    expect(metrics!.statusCode).toBe(200);
    expect(metrics!.body).not.toMatch(/^svc_events_published_total\{/m);
  });

  it('starts a run as an execution of the state machine infra names, and has no run graph without it', async () => {
    const signup = JSON.stringify({ email: 'rungraph@example.com', password: 'correct horse battery', organization_name: 'Run Graph Org' });
    const [signedUp] = await container([functionUrlEvent('POST', '/api/auth/signup', { headers: { 'content-type': 'application/json' }, body: signup })]);
    expect(signedUp!.statusCode, `${signedUp!.body}\n${logs}`).toBe(201);
    const session = json(signedUp!);
    const orgId: string = session.organization.id;
    const project = await createStore(new DynamoDbTable({ tableName: TABLE, client: ddbClient! }), systemClock).projects.create(orgId, { name: 'shop' });
    const start = () =>
      functionUrlEvent('POST', '/api/v1/test/run', {
        headers: { authorization: `Bearer ${session.access_token}`, 'x-organization-id': orgId, 'content-type': 'application/json' },
        body: JSON.stringify({ project_id: project.id }),
      });

    const before = stepFunctions!.requests.length;
    const [started] = await container([start()]);
    expect(started!.statusCode, `${started!.body}\n${logs}`).toBe(201);
    const starts = stepFunctions!.requests.slice(before);
    expect(starts.map((r) => r.target)).toEqual(['AWSStepFunctions.StartExecution']);
    expect(starts[0]!.body).toMatchObject({ stateMachineArn: STATE_MACHINE_ARN, input: JSON.stringify({ thread_id: json(started!).thread_id }) });
    expect(String(starts[0]!.headers.authorization)).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${CREDENTIALS.accessKeyId}/\\d{8}/${REGION}/states/aws4_request`));

    const [unconfigured] = await container([start()], { SVC_STATE_MACHINE_ARN: undefined });
    expect(unconfigured!.statusCode, unconfigured!.body).toBe(501);
    expect(json(unconfigured!).error.code).toBe('NOT_CONFIGURED');
    expect(stepFunctions!.requests.length).toBe(before + 1);
  });

  it('a signed GitHub pull_request at /webhooks/vcs starts an execution of the state machine and publishes integration.vcs.pr', async () => {
    const signup = JSON.stringify({ email: 'vcs@example.com', password: 'correct horse battery', organization_name: 'VCS Org' });
    const [signedUp] = await container([functionUrlEvent('POST', '/api/auth/signup', { headers: { 'content-type': 'application/json' }, body: signup })]);
    expect(signedUp!.statusCode, `${signedUp!.body}\n${logs}`).toBe(201);
    const session = json(signedUp!);
    const orgId: string = session.organization.id;
    const store = createStore(new DynamoDbTable({ tableName: TABLE, client: ddbClient! }), systemClock);
    const project = await store.projects.create(orgId, { name: 'shop' });
    await store.tests.create(orgId, { project_id: project.id, name: 'home', type: 'api', description: null, steps: [], assertions: [], priority: 'medium', tags: [] });
    const [created] = await container([functionUrlEvent('POST', '/api/integrations/vcs', {
      headers: { authorization: `Bearer ${session.access_token}`, 'x-organization-id': orgId, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: project.id, provider: 'github', repository: 'acme/bundle-shop' }),
    })]);
    expect(created!.statusCode, `${created!.body}\n${logs}`).toBe(201);
    const { secret } = json(created!);

    const payload = JSON.stringify({ action: 'opened', number: 7, pull_request: { html_url: 'https://github.com/acme/bundle-shop/pull/7', head: { ref: 'feat', sha: 'a'.repeat(40) }, base: { ref: 'main', sha: 'b'.repeat(40) } }, repository: { full_name: 'acme/bundle-shop', default_branch: 'main' } });
    const deliveryId = '72d3162e-cc78-11e3-81ab-4c9367dc0958';
    const webhook = (signature: string) => functionUrlEvent('POST', '/webhooks/vcs', {
      headers: { 'content-type': 'application/json', 'user-agent': 'GitHub-Hookshot/044aadd', 'x-github-event': 'pull_request', 'x-github-delivery': deliveryId, 'x-hub-signature-256': signature },
      body: payload,
    });
    const beforeStarts = stepFunctions!.requests.length;
    const beforePuts = eventBridge!.requests.length;
    const [refused, accepted] = await container([webhook('sha256=' + '0'.repeat(64)), webhook(`sha256=${createHmac('sha256', secret).update(payload).digest('hex')}`)]);
    expect(refused!.statusCode).toBe(401);
    expect(accepted!.statusCode, `${accepted!.body}\n${logs}`).toBe(202);
    const [run] = json(accepted!).runs;
    const starts = stepFunctions!.requests.slice(beforeStarts);
    expect(starts.map((r) => r.target)).toEqual(['AWSStepFunctions.StartExecution']);
    expect(starts[0]!.body).toMatchObject({ stateMachineArn: STATE_MACHINE_ARN });
    const stored = await store.testRuns.get(orgId, run.run_id);
    expect(stored).toMatchObject({ trigger: 'vcs', project_id: project.id });
    expect(starts[0]!.body.input).toBe(JSON.stringify({ thread_id: stored!.thread_id }));
    const published = eventBridge!.requests.slice(beforePuts).flatMap((r) => r.body.Entries).map((e: { Detail: string }) => JSON.parse(e.Detail));
    expect(published.find((e: { event_type: string }) => e.event_type === 'integration.vcs.pr')).toMatchObject({ source: 'svc.webhooks', tenant_id: orgId, payload: { repository: 'acme/bundle-shop', pr_number: 7, action: 'opened' } });
  });

  it('a signed Slack slash command at /webhooks/chat starts an execution of the state machine, its response_url sealed with KMS', async () => {
    const signup = JSON.stringify({ email: 'chatops@example.com', password: 'correct horse battery', organization_name: 'ChatOps Org' });
    const [signedUp] = await container([functionUrlEvent('POST', '/api/auth/signup', { headers: { 'content-type': 'application/json' }, body: signup })]);
    expect(signedUp!.statusCode, `${signedUp!.body}\n${logs}`).toBe(201);
    const session = json(signedUp!);
    const orgId: string = session.organization.id;
    const table = new DynamoDbTable({ tableName: TABLE, client: ddbClient! });
    const store = createStore(table, systemClock);
    const project = await store.projects.create(orgId, { name: 'chat shop' });
    await store.tests.create(orgId, { project_id: project.id, name: 'home', type: 'api', description: null, steps: [], assertions: [], priority: 'medium', tags: [] });
    const signingSecret = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';
    const [created] = await container([functionUrlEvent('POST', '/api/integrations/chat', {
      headers: { authorization: `Bearer ${session.access_token}`, 'x-organization-id': orgId, 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'slack', project_id: project.id, signing_secret: signingSecret, team_id: 'T0BUNDLE' }),
    })]);
    expect(created!.statusCode, `${created!.body}\n${logs}`).toBe(201);

    const form = new URLSearchParams({ team_id: 'T0BUNDLE', user_id: 'U0ADA', user_name: 'ada', channel_id: 'C0QA', command: '/svc', text: 'run', response_url: 'https://hooks.slack.com/commands/T0BUNDLE/1/abc' }).toString();
    const timestamp = Math.floor(Date.now() / 1000);
    const command = (signature: string) => functionUrlEvent('POST', '/webhooks/chat', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)', 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature },
      body: form,
      base64: true,
    });
    const beforeStarts = stepFunctions!.requests.length;
    const [refused, accepted] = await container([command('v0=' + '0'.repeat(64)), command(`v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${form}`).digest('hex')}`)]);
    expect(refused!.statusCode).toBe(401);
    expect(accepted!.statusCode, `${accepted!.body}\n${logs}`).toBe(200);
    const answer = json(accepted!);
    expect(answer).toEqual({ response_type: 'ephemeral', text: expect.stringMatching(/^Started run [0-9a-f-]{36}: 1 test of \*chat shop\*/) });
    const runId = /Started run ([0-9a-f-]{36})/.exec(answer.text)![1]!;
    const starts = stepFunctions!.requests.slice(beforeStarts);
    expect(starts.map((r) => r.target)).toEqual(['AWSStepFunctions.StartExecution']);
    const stored = await store.testRuns.get(orgId, runId);
    expect(stored).toMatchObject({ trigger: 'chat', project_id: project.id, thread_id: expect.stringMatching(/^chat-/) });
    expect(starts[0]!.body.input).toBe(JSON.stringify({ thread_id: stored!.thread_id }));
    const reply = await table.get(keys.chatRunReply(orgId, stored!.thread_id));
    expect(reply).toMatchObject({ status: 'pending', user_id: 'U0ADA', response_url: { svc_sealed: 1, kid: WIRE_KMS_KEY_ARN } });
    expect(JSON.stringify(reply)).not.toContain('hooks.slack.com');
  });

  it('a signed run.requested at /webhooks/automation starts an execution of the state machine, its callback_url sealed with KMS', async () => {
    const [signedUp] = await container([functionUrlEvent('POST', '/api/auth/signup', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'automation@example.com', password: 'correct horse battery', organization_name: 'Automation Org' }) })]);
    expect(signedUp!.statusCode, `${signedUp!.body}\n${logs}`).toBe(201);
    const session = json(signedUp!);
    const orgId: string = session.organization.id;
    const table = new DynamoDbTable({ tableName: TABLE, client: ddbClient! });
    const store = createStore(table, systemClock);
    const project = await store.projects.create(orgId, { name: 'automation shop' });
    await store.tests.create(orgId, { project_id: project.id, name: 'home', type: 'api', description: null, steps: [], assertions: [], priority: 'medium', tags: [] });
    const [created] = await container([functionUrlEvent('POST', '/api/integrations/automation', {
      headers: { authorization: `Bearer ${session.access_token}`, 'x-organization-id': orgId, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'n8n', project_ids: [project.id] }),
    })]);
    expect(created!.statusCode, `${created!.body}\n${logs}`).toBe(201);
    const integration = json(created!);

    const body = JSON.stringify({ event: 'run.requested', project: 'automation shop', callback_url: 'https://hooks.zapier.com/hooks/catch/1/abc' });
    const timestamp = Math.floor(Date.now() / 1000);
    const event = (signature: string) => functionUrlEvent('POST', '/webhooks/automation', {
      headers: { 'content-type': 'application/json', 'x-svc-integration': integration.id, 'x-svc-timestamp': String(timestamp), 'x-svc-signature': signature, 'x-svc-delivery': 'zap-1' },
      body,
    });
    const beforeStarts = stepFunctions!.requests.length;
    const [refused, accepted] = await container([event('sha256=' + '0'.repeat(64)), event(`sha256=${createHmac('sha256', integration.secret).update(`${timestamp}.${body}`).digest('hex')}`)]);
    expect(refused!.statusCode).toBe(401);
    expect(accepted!.statusCode, `${accepted!.body}\n${logs}`).toBe(202);
    const answer = json(accepted!);
    expect(answer).toMatchObject({ event: 'run.requested', delivery_id: 'zap-1', project_id: project.id, tests: 1 });
    const starts = stepFunctions!.requests.slice(beforeStarts);
    expect(starts.map((r) => r.target)).toEqual(['AWSStepFunctions.StartExecution']);
    const stored = await store.testRuns.get(orgId, answer.run_id);
    expect(stored).toMatchObject({ trigger: 'automation', project_id: project.id, thread_id: `automation-${integration.id}-zap-1` });
    const callback = await table.get(keys.automationCallback(orgId, stored!.thread_id));
    expect(callback).toMatchObject({ status: 'pending', delivery_id: 'zap-1', callback_url: { svc_sealed: 1, kid: WIRE_KMS_KEY_ARN } });
    expect(JSON.stringify(callback)).not.toContain('hooks.zapier.com');
    expect(JSON.stringify(await table.get(keys.automationIntegration(orgId, integration.id)))).not.toContain(integration.secret);
  });

  it('seals an environment secret with KMS in DynamoDB, and opens it where runs and deliveries read it', async () => {
    const signup = JSON.stringify({ email: 'kms@example.com', password: 'correct horse battery', organization_name: 'KMS Org' });
    const [signedUp] = await container([functionUrlEvent('POST', '/api/auth/signup', { headers: { 'content-type': 'application/json' }, body: signup })]);
    expect(signedUp!.statusCode, `${signedUp!.body}\n${logs}`).toBe(201);
    const session = json(signedUp!);
    const orgId: string = session.organization.id;
    const headers = { authorization: `Bearer ${session.access_token}`, 'x-organization-id': orgId, 'content-type': 'application/json' };
    const table = new DynamoDbTable({ tableName: TABLE, client: ddbClient! });
    // The store a run's task function builds (lambda-tasks.ts): the same table, the same key.
    const kmsClient = new KMSClient({ endpoint: kms!.endpoint, region: REGION, credentials: CREDENTIALS });
    const store = createStore(table, systemClock, { cipher: envelopeCipher(kmsDataKeys({ client: kmsClient, keyId: WIRE_KMS_KEY_ARN })) });
    const project = await store.projects.create(orgId, { name: 'kms shop' });

    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    const received: { headers: IncomingHttpHeaders; body: string }[] = [];
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const before = kms!.requests.length;
      const [set, created] = await container([
        functionUrlEvent('PUT', `/api/v1/projects/${project.id}/environment/API_TOKEN`, { headers, body: JSON.stringify({ value: 'tok-kms-9d3e51', secret: true }) }),
        functionUrlEvent('POST', '/api/notifications/channels', { headers, body: JSON.stringify({ name: 'hook', kind: 'webhook', url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/kms-hook`, events: ['run_failed'] }) }),
      ]);
      expect(set!.statusCode, `${set!.body}\n${logs}`).toBe(200);
      expect(created!.statusCode, `${created!.body}\n${logs}`).toBe(201);

      const item = await table.get(keys.environmentVariable(orgId, project.id, 'API_TOKEN'));
      expect(item!.value).toMatchObject({ svc_sealed: 1, alg: 'AES-256-GCM', kid: WIRE_KMS_KEY_ARN });
      expect(JSON.stringify(item)).not.toContain('tok-kms-9d3e51');
      const generated = kms!.requests.slice(before).filter((r) => r.target === 'TrentService.GenerateDataKey');
      expect(generated[0]!.body).toMatchObject({ KeyId: WIRE_KMS_KEY_ARN, KeySpec: 'AES_256', EncryptionContext: { 'svc:organization': orgId, 'svc:field': 'value' } });
      expect(String(generated[0]!.headers.authorization)).toMatch(/\/eu-west-1\/kms\/aws4_request/);

      // What a run reads ({{secrets.API_TOKEN}}), opened under the key by a store like the task functions'.
      expect((await store.environment.resolve(orgId, project.id)).secrets).toEqual({ API_TOKEN: 'tok-kms-9d3e51' });
      // And a route of the bundled function opens the channel's sealed URL and secret to send a signed test message.
      const [sent] = await container([functionUrlEvent('POST', `/api/notifications/channels/${json(created!).id}/test`, { headers })]);
      expect(json(sent!), logs).toMatchObject({ status: 'delivered' });
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(received.at(-1)!.headers['x-svc-signature']))!;
      expect(v1).toBe(createHmac('sha256', json(created!).signing_secret).update(`${t}.${received.at(-1)!.body}`).digest('hex'));
      expect(kms!.requests.slice(before).map((r) => r.target)).toContain('TrentService.Decrypt');
    } finally {
      kmsClient.destroy();
      await new Promise((r) => receiver.close(r));
    }
  });

  it('does not start without the secrets key', async () => {
    const outcome = await container([functionUrlEvent('GET', '/health')], { SVC_KMS_KEY_ID: undefined }).then((r) => `${r[0]!.statusCode} ${r[0]!.body}\n${logs}`, (e: Error) => e.message);
    expect(outcome).toMatch(/SVC_KMS_KEY_ID: must be set/);
    expect(outcome).not.toMatch(/^200/);
  });

  it('keeps the dashboard files out of the bundle itself', async () => {
    const bundle = await readFile(handlerFile, 'utf8');
    expect(bundle).not.toContain(await readFile(fromRoot('packages/web/public/index.html'), 'utf8'));
    expect(path.relative(packageDir, handlerFile)).toBe(path.join('packages', 'functions', 'src', 'aws', 'api-handler.mjs'));
  });
});
