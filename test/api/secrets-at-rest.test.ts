/**
 * Secrets at rest through the real local runtime: a project's secret variable, a
 * notification channel's URL and signing secret and a source-control integration's
 * secret are stored sealed (the raw table items, and every file of the data folder, hold
 * no plaintext) and still work: a run reads {{secrets.NAME}}, a test message is signed
 * and delivered, a signed GitHub delivery verifies. Values written in plaintext before
 * encryption at rest (inserted raw here) still work and are sealed by the record's next
 * write. A value that no longer opens fails what needs it with SECRET_UNREADABLE and
 * nothing else.
 */
import { createHmac } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '@svc/core/store/keys';
import type { Item } from '@svc/core/ports/table';
import { client, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { deliverGithub, githubPing, githubPush } from '../vcs/support/hosts.ts';

const TOKEN = 'tok-at-rest-71c9d2e4';
const LEGACY_TOKEN = 'tok-legacy-3b8f0a16';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let app: Server;
let appUrl: string;
const received: { path: string; headers: IncomingMessage['headers']; body: string }[] = [];
let admin: Client;
let orgId: string;
let projectId: string;

beforeAll(async () => {
  // One loopback server is both the app under test (it wants the token) and the channels' endpoint.
  app = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', headers: req.headers, body });
      const wanted = req.url === '/legacy' ? LEGACY_TOKEN : TOKEN;
      if (req.url?.startsWith('/hooks/')) return void res.writeHead(204).end();
      res.writeHead(req.headers.authorization === `Bearer ${wanted}` ? 200 : 401).end();
    });
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  server = await startRunGraphServer();
  const user = await signUp(server.url, 'at-rest@example.com');
  orgId = user.orgId;
  admin = client(server.url, { token: user.token, org: orgId });
  projectId = (await admin.post('/api/v1/projects', { name: 'at-rest', app_url: appUrl })).body.id;
});
afterAll(async () => {
  await server?.stop();
  await new Promise((r) => app?.close(r));
});

const table = () => server.runtime.deps.store.table;
const raw = (key: { pk: string; sk: string }) => table().get(key);
const sealed = (value: unknown) => expect(value).toMatchObject({ svc_sealed: 1, alg: 'AES-256-GCM', kid: expect.stringMatching(/^local:[0-9a-f]{16}$/) });

/** Every file under the data folder, as text: the table's journal, blobs, checkpoints, reports. */
async function dataFolderText(): Promise<string> {
  const entries = await readdir(server.dataDir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile() && e.name !== 'secret-key').map((e) => join(e.parentPath, e.name));
  return (await Promise.all(files.map((f) => readFile(f, 'latin1')))).join('\n');
}

async function runTests(testIds: string[]) {
  const started = await admin.post('/api/v1/test/run', { project_id: projectId, test_ids: testIds });
  expect(started.status, started.text).toBe(201);
  const runId = started.body.run.id as string;
  for (const deadline = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 100))) {
    const status = (await admin.get(`/api/v1/test/status/${runId}`)).body;
    if (['completed', 'failed', 'cancelled'].includes(status.run.status)) break;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not finish`);
  }
  return (await admin.get(`/api/v1/tests/${runId}/results`)).body.items as { test_id: string; status: string; error_message: string | null }[];
}

const tokenTest = async (name: string, secret: string, path = '/me') =>
  (await admin.post('/api/tests', { project_id: projectId, type: 'api', name, steps: [{ type: 'request', method: 'GET', url: `${appUrl}${path}`, headers: { authorization: `Bearer {{secrets.${secret}}}` } }], assertions: [{ type: 'status', equals: 200 }] })).body.id as string;

describe('secrets are sealed at rest', () => {
  it('stores a secret variable, a channel URL and signing secret and an integration secret sealed; they still work; no file holds them', async () => {
    expect((await admin.put(`/api/v1/projects/${projectId}/environment/API_TOKEN`, { value: TOKEN, secret: true })).status).toBe(200);
    expect((await admin.put(`/api/v1/projects/${projectId}/environment/GREETING`, { value: 'hello-plain' })).status).toBe(200);
    const variable = await raw(keys.environmentVariable(orgId, projectId, 'API_TOKEN'));
    sealed(variable!.value);
    expect((await raw(keys.environmentVariable(orgId, projectId, 'GREETING')))!.value).toBe('hello-plain'); // plain variables stay plain

    const hookUrl = `${appUrl}/hooks/T0SECRET/B0SECRET/xoxSECRETPATH`;
    const channel = (await admin.post('/api/notifications/channels', { name: 'ci', kind: 'webhook', url: hookUrl, events: ['run_failed'] })).body;
    expect(channel.signing_secret).toMatch(/^whsec_/);
    const channelItem = (await raw(keys.notificationChannel(orgId, channel.id)))!;
    sealed(channelItem.url);
    sealed(channelItem.signing_secret);
    expect(channelItem.url_hint).toBe(appUrl); // the origin only, as before

    const integration = (await admin.post('/api/integrations/vcs', { project_id: projectId, provider: 'github', repository: 'acme/at-rest' })).body;
    sealed((await raw(keys.vcsIntegration(orgId, integration.id)))!.secret);

    // They work: a run reads the secret, a test message is signed with the channel's secret, a delivery verifies.
    const results = await runTests([await tokenTest('sealed token', 'API_TOKEN')]);
    expect(results[0], JSON.stringify(results[0])).toMatchObject({ status: 'passed' });
    const sent = await admin.post(`/api/notifications/channels/${channel.id}/test`);
    expect(sent.body, sent.text).toMatchObject({ status: 'delivered' });
    const hook = received.filter((r) => r.path === '/hooks/T0SECRET/B0SECRET/xoxSECRETPATH').at(-1)!;
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(hook.headers['x-svc-signature']))!;
    expect(v1).toBe(createHmac('sha256', channel.signing_secret).update(`${t}.${hook.body}`).digest('hex'));
    const ping = await deliverGithub(server.url, 'ping', githubPing('acme/at-rest', `${server.url}/webhooks/vcs`), { secret: integration.secret });
    expect(ping.status, JSON.stringify(ping.body)).toBe(202);
    expect((await deliverGithub(server.url, 'ping', githubPing('acme/at-rest', `${server.url}/webhooks/vcs`), { secret: 'whsec_wrong' })).status).toBe(401);

    // Nothing the API answers, and no file of the data folder, holds a secret.
    const text = await dataFolderText();
    expect(text, 'the scan reads the table files').toContain('hello-plain');
    for (const secret of [TOKEN, 'xoxSECRETPATH', channel.signing_secret, integration.secret]) {
      expect(text.includes(secret), `a file of the data folder holds ${secret.slice(0, 8)}…`).toBe(false);
      expect(text.includes(Buffer.from(secret).toString('base64')), 'in base64').toBe(false);
    }
    const shown = JSON.stringify([(await admin.get(`/api/v1/projects/${projectId}/environment`)).body, (await admin.get(`/api/notifications/channels/${channel.id}`)).body, (await admin.get(`/api/integrations/vcs/${integration.id}`)).body, (await admin.get('/api/audit-logs?limit=100')).body]);
    for (const secret of [TOKEN, 'xoxSECRETPATH', channel.signing_secret, integration.secret]) expect(shown).not.toContain(secret);
  });

  it('reads values stored in plaintext before, and seals them on the next write', async () => {
    const now = new Date().toISOString();
    // As the store wrote them before encryption at rest: the secret as given.
    const varKey = keys.environmentVariable(orgId, projectId, 'LEGACY_TOKEN');
    await table().put({ ...varKey, entity: 'environment_variable', name: 'LEGACY_TOKEN', value: LEGACY_TOKEN, secret: true, updated_at: now, updated_by: 'u' });
    const channelId = '01970000-0000-7000-8000-00000000c0de';
    const channelKey = keys.notificationChannel(orgId, channelId);
    await table().put({ ...channelKey, entity: 'notification_channel', organization_id: orgId, id: channelId, name: 'old hook', kind: 'webhook', url: `${appUrl}/hooks/legacy`, url_hint: appUrl, signing_secret: 'whsec_legacy', project_id: null, events: ['run_failed'], enabled: true, created_at: now, updated_at: now });
    const integrationId = '01970000-0000-7000-8000-0000000001c5';
    const integrationKey = keys.vcsIntegration(orgId, integrationId);
    await table().put({ ...integrationKey, entity: 'vcs_integration', organization_id: orgId, gsi1pk: keys.vcsIntegrationsOfProject(projectId), gsi1sk: integrationId, gsi2pk: keys.vcsIntegrationsOfRepository('github', 'acme/legacy'), gsi2sk: `${orgId}#${integrationId}`, id: integrationId, project_id: projectId, provider: 'github', repository: 'acme/legacy', events: ['push', 'pull_request'], branches: [], tags: [], healing_enabled: null, enabled: true, created_by: null, secret: 'whsec_legacy_vcs', created_at: now, updated_at: now });

    // Read as they are.
    const legacyTest = await tokenTest('legacy token', 'LEGACY_TOKEN', '/legacy');
    expect((await runTests([legacyTest]))[0]).toMatchObject({ status: 'passed' });
    expect((await admin.post(`/api/notifications/channels/${channelId}/test`)).body).toMatchObject({ status: 'delivered' });
    const legacyHook = received.filter((r) => r.path === '/hooks/legacy').at(-1)!;
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(legacyHook.headers['x-svc-signature']))!;
    expect(v1).toBe(createHmac('sha256', 'whsec_legacy').update(`${t}.${legacyHook.body}`).digest('hex'));
    const ping = () => deliverGithub(server.url, 'ping', githubPing('acme/legacy', `${server.url}/webhooks/vcs`), { secret: 'whsec_legacy_vcs' });
    expect((await ping()).status).toBe(202);

    // The next write of each record seals it — also a write that does not touch the secret.
    expect((await admin.put(`/api/v1/projects/${projectId}/environment/LEGACY_TOKEN`, { value: LEGACY_TOKEN, secret: true })).status).toBe(200);
    expect((await admin.patch(`/api/notifications/channels/${channelId}`, { name: 'renamed hook' })).status).toBe(200);
    expect((await admin.patch(`/api/integrations/vcs/${integrationId}`, { branches: ['main'] })).status).toBe(200);
    sealed((await raw(varKey))!.value);
    const channelItem = (await raw(channelKey)) as Item;
    sealed(channelItem.url);
    sealed(channelItem.signing_secret);
    expect(channelItem.name).toBe('renamed hook');
    sealed((await raw(integrationKey))!.secret);

    // And still work, sealed.
    expect((await runTests([legacyTest]))[0]).toMatchObject({ status: 'passed' });
    expect((await admin.post(`/api/notifications/channels/${channelId}/test`)).body).toMatchObject({ status: 'delivered' });
    expect((await ping()).status).toBe(202);
    expect((await deliverGithub(server.url, 'push', githubPush('acme/legacy', 'main', [{ modified: ['a.ts'] }]), { secret: 'whsec_legacy_vcs' })).status).toBe(202);
  });

  it('a value that does not open fails what needs it with SECRET_UNREADABLE, naming it, and nothing else', async () => {
    const project = (await admin.post('/api/v1/projects', { name: 'broken', app_url: appUrl })).body.id as string;
    await admin.put(`/api/v1/projects/${project}/environment/BROKEN`, { value: TOKEN, secret: true });
    await admin.put(`/api/v1/projects/${project}/environment/SHOWN`, { value: 'fine' });
    // A sealed value moved to another record (as a restore gone wrong or a tampering would) does not open there.
    const good = (await raw(keys.environmentVariable(orgId, projectId, 'API_TOKEN')))!;
    const brokenKey = keys.environmentVariable(orgId, project, 'BROKEN');
    await table().put({ ...(await raw(brokenKey))!, value: good.value });

    const test = (await admin.post('/api/tests', { project_id: project, type: 'api', name: 'needs BROKEN', steps: [{ type: 'request', method: 'GET', url: `${appUrl}/me`, headers: { authorization: 'Bearer {{secrets.BROKEN}}' } }] })).body.id;
    const started = await admin.post('/api/v1/test/run', { project_id: project, test_ids: [test] });
    let run: { status: string; error: string | null } = { status: 'pending', error: null };
    for (const deadline = Date.now() + 30_000; !['completed', 'failed', 'cancelled'].includes(run.status) && Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      run = (await admin.get(`/api/v1/test/status/${started.body.run.id}`)).body.run;
    }
    const results = (await admin.get(`/api/v1/tests/${started.body.run.id}/results`)).body.items;
    const said = `${run.error ?? ''} ${results.map((r: { error_message: string | null }) => r.error_message).join(' ')}`;
    expect(said).toMatch(/stored secret value of ORG#.*#ENV\/VAR#BROKEN could not be opened/);
    expect(said).not.toContain(TOKEN);
    expect(said).not.toContain((good.value as { ct: string }).ct);

    // The rest of the project, and the API, are untouched.
    expect((await admin.get(`/api/v1/projects/${project}/environment`)).body.items.map((v: { name: string }) => v.name)).toEqual(['BROKEN', 'SHOWN']);
    expect((await admin.get(`/api/v1/projects/${project}`)).status).toBe(200);

    // A channel whose URL does not open: its deliveries fail, logged with the reason; it can still be read, fixed or deleted.
    const channel = (await admin.post('/api/notifications/channels', { name: 'broken', kind: 'slack', url: `${appUrl}/hooks/broken`, events: ['run_failed'] })).body;
    const channelKey = keys.notificationChannel(orgId, channel.id);
    const item = (await raw(channelKey))!;
    await table().put({ ...item, url: { ...(item.url as object), ct: Buffer.from('tampered').toString('base64') } });
    const failed = await admin.post(`/api/notifications/channels/${channel.id}/test`);
    expect(failed.body).toMatchObject({ status: 'failed', attempts: 0, error: expect.stringMatching(/stored secret url of .*NOTIFYCH#.* could not be opened/) });
    expect((await admin.get(`/api/notifications/channels/${channel.id}`)).status).toBe(200);
    expect((await admin.patch(`/api/notifications/channels/${channel.id}`, { url: `${appUrl}/hooks/fixed` })).status).toBe(200);
    expect((await admin.post(`/api/notifications/channels/${channel.id}/test`)).body).toMatchObject({ status: 'delivered' });
  });
});

describe('the built-in issuer\'s signing key', () => {
  it('is sealed in the table, and tokens it signed still verify', async () => {
    const item = (await raw(keys.systemSetting('jwt-signing-key'))) as Item;
    expect(item.value).toMatchObject({ svc_sealed: 1 });
    // A private JWK in the clear would carry its private exponent "d".
    expect(JSON.stringify(item)).not.toMatch(/"d":/);
    expect((await admin.get('/api/v1/users/me')).status).toBe(200);
  });

  it('a credential setting stored in the clear before sealing is read, and sealed in place', async () => {
    const settings = server.runtime.deps.store.settings;
    const legacy = { kty: 'EC', d: 'legacy-private-part' };
    await table().put({ ...keys.systemSetting('legacy-credential'), value: legacy });
    expect(await settings.getOrCreateSealed('legacy-credential', async () => ({ kty: 'EC', d: 'new' }))).toEqual(legacy);
    const item = (await raw(keys.systemSetting('legacy-credential'))) as Item;
    expect(item.value).toMatchObject({ svc_sealed: 1 });
    expect(JSON.stringify(item)).not.toContain('legacy-private-part');
    expect(await settings.getOrCreateSealed('legacy-credential', async () => ({ kty: 'EC', d: 'new' }))).toEqual(legacy);
  });
});
