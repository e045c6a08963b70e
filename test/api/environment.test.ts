/**
 * A project's environment variables and secrets over real HTTP: who may read and set them,
 * what the API shows (never a secret's value), and a run that uses them — an API test that
 * sends a secret token to a server checking it, and a SQL test whose connection URL is a
 * secret, against this machine's PostgreSQL.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ENVIRONMENT_VARIABLES } from '@svc/core/contracts/environment';
import { client, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';

const TOKEN = 'tok-5f2c9e1a7b';
const DB_URL = 'postgres://postgres:pw-8d41e0c3@127.0.0.1:5432/test'; // trust auth: the password is not checked, only masked

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let app: Server;
let appUrl: string;
let admin: Client;
let orgId: string;
let projectId: string;

beforeAll(async () => {
  // The app under test answers only a request carrying the token, and echoes a header.
  app = createServer((req, res) => {
    const ok = req.headers.authorization === `Bearer ${TOKEN}`;
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end(JSON.stringify({ ok, greeting: req.headers['x-greeting'] ?? null }));
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  server = await startRunGraphServer();
  const user = await signUp(server.url, 'env-admin@example.com');
  orgId = user.orgId;
  admin = client(server.url, { token: user.token, org: orgId });
  projectId = (await admin.post('/api/v1/projects', { name: 'env', app_url: appUrl })).body.id;
});
afterAll(async () => {
  await server?.stop();
  await new Promise((r) => app?.close(r));
});

const path = (name = '') => `/api/v1/projects/${projectId}/environment${name ? `/${name}` : ''}`;

async function until(runId: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await admin.get(`/api/v1/test/status/${runId}`);
    if (['completed', 'failed', 'cancelled'].includes(res.body.run.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${res.body.run.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('project environment variables', () => {
  it('sets, lists (a secret without its value), replaces and deletes; the audit log names the variable, never the value', async () => {
    expect((await admin.put(path('GREETING'), { value: 'hello' })).body).toMatchObject({ name: 'GREETING', secret: false, value: 'hello' });
    const secret = await admin.put(path('API_TOKEN'), { value: TOKEN, secret: true });
    expect(secret.status).toBe(200);
    expect(secret.body).toMatchObject({ name: 'API_TOKEN', secret: true, value: null });
    const listed = await admin.get(path());
    expect(listed.body.items.map((v: { name: string; value: string | null }) => [v.name, v.value])).toEqual([['API_TOKEN', null], ['GREETING', 'hello']]);
    expect(JSON.stringify(listed.body)).not.toContain(TOKEN);
    // Project reads never carry them either.
    expect(JSON.stringify((await admin.get(`/api/v1/projects/${projectId}`)).body)).not.toContain(TOKEN);

    expect((await admin.put(path('TEMP'), { value: 'x' })).status).toBe(200);
    expect((await admin.put(path('TEMP'), { value: 'y', secret: true })).body).toMatchObject({ secret: true, value: null });
    expect((await admin.delete(path('TEMP'))).status).toBe(204);
    expect((await admin.delete(path('TEMP'))).status).toBe(404);

    const audit = await admin.get('/api/audit-logs?limit=100');
    const actions = audit.body.items.filter((a: { action: string }) => a.action.startsWith('environment.'));
    expect(actions.map((a: { action: string; metadata: { name: string } }) => [a.action, a.metadata.name])).toEqual(expect.arrayContaining([['environment.set', 'API_TOKEN'], ['environment.delete', 'TEMP']]));
    expect(JSON.stringify(audit.body)).not.toContain(TOKEN);
  });

  it('bad input names the field; other organizations see 404; API keys (the agent gateway) get 403', async () => {
    const badName = await admin.put(path('1BAD-NAME'), { value: 'x' });
    expect(badName.status).toBe(400);
    expect(badName.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['name']);
    const badBody = await admin.put(path('OK'), { value: 42, secret: 'yes' });
    expect(badBody.status).toBe(400);
    expect(badBody.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['secret', 'value']);

    const stranger = await signUp(server.url, 'env-stranger@example.com');
    const other = client(server.url, { token: stranger.token, org: stranger.orgId });
    expect((await other.get(path())).status).toBe(404);
    expect((await other.put(path('X'), { value: 'x' })).status).toBe(404);

    const key = (await admin.post('/api/api-keys', { name: 'agent', permissions: ['read', 'write', 'admin'] })).body.key;
    const agent = client(server.url, { token: key });
    expect((await agent.get(path())).status).toBe(403);
    expect((await agent.put(path('X'), { value: 'x' })).status).toBe(403);
  });

  it(`holds at most ${MAX_ENVIRONMENT_VARIABLES} variables per project; replacing one at the cap still works`, async () => {
    const project = (await admin.post('/api/v1/projects', { name: 'full' })).body.id;
    for (let i = 0; i < MAX_ENVIRONMENT_VARIABLES; i++) await server.runtime.deps.store.environment.set(orgId, project, `V${i}`, { value: String(i), secret: false }, 'u');
    const over = await admin.put(`/api/v1/projects/${project}/environment/ONE_MORE`, { value: 'x' });
    expect(over.status).toBe(409);
    expect(over.body.error.message).toMatch(new RegExp(`at most ${MAX_ENVIRONMENT_VARIABLES}`));
    expect((await admin.put(`/api/v1/projects/${project}/environment/V0`, { value: 'replaced' })).status).toBe(200);
  });

  it('a run reads them: {{secrets.NAME}} and {{env.NAME}} in an API test, a secret connection URL for SQL; no secret reaches the results', async () => {
    await admin.put(path('GREETING'), { value: 'hello' });
    await admin.put(path('API_TOKEN'), { value: TOKEN, secret: true });
    await admin.put(path('DATABASE_URL'), { value: DB_URL, secret: true });
    const mk = async (body: Record<string, unknown>) => {
      const res = await admin.post('/api/tests', { project_id: projectId, type: 'api', ...body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const apiTest = await mk({
      name: 'token is accepted',
      steps: [{ type: 'request', method: 'GET', url: `${appUrl}/me`, headers: { authorization: 'Bearer {{secrets.API_TOKEN}}', 'x-greeting': '{{env.GREETING}}' } }],
      assertions: [{ type: 'status', equals: 200 }, { type: 'json', path: '$.greeting', equals: 'hello' }],
    });
    const sqlTest = await mk({
      name: 'database answers',
      type: 'db',
      steps: [{ type: 'sql', connection: { driver: 'postgres', url_env: 'DATABASE_URL' }, statement: 'select 1 as one' }],
      assertions: [{ type: 'row_count', equals: 1 }],
    });
    const misused = await mk({ name: 'secret read as env', steps: [{ type: 'request', method: 'GET', url: `${appUrl}/me`, headers: { authorization: 'Bearer {{env.API_TOKEN}}' } }] });

    const started = await admin.post('/api/v1/test/run', { project_id: projectId, test_ids: [apiTest, sqlTest, misused] });
    expect(started.status).toBe(201);
    const status = await until(started.body.run.id);
    const results = (await admin.get(`/api/v1/tests/${started.body.run.id}/results`)).body;
    const byTest = new Map(results.items.map((r: { test_id: string }) => [r.test_id, r]));
    expect(byTest.get(apiTest), JSON.stringify(byTest.get(apiTest))).toMatchObject({ status: 'passed' });
    expect(byTest.get(sqlTest), JSON.stringify(byTest.get(sqlTest))).toMatchObject({ status: 'passed' });
    expect(byTest.get(misused)).toMatchObject({ status: 'failed', error_message: expect.stringContaining('API_TOKEN is a secret: write {{secrets.API_TOKEN}}') });
    expect(status.run).toMatchObject({ passed_tests: 2, failed_tests: 1 });
    const everything = JSON.stringify(results) + JSON.stringify((await admin.get(`/api/reports/${started.body.run.id}`)).text);
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain('pw-8d41e0c3');
  });
});
