/**
 * Slack slash commands end to end on the local runtime: an admin registers a Slack app's
 * signing secret, and signed commands (Slack's form encoding and signature, over the raw
 * bytes) start real runs through the run graph against the fixture app; the ephemeral
 * answer comes back at once, and the run's outcome is POSTed when it ends to a double of
 * Slack's response_url on 127.0.0.1, with what changed against the project's previous run
 * when it had one. Also: status, score, help, refused signatures and
 * timestamps, an unknown workspace, a user not allowed, a paused integration, the audit
 * log, who may manage integrations, and the signing secret never shown or logged.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { client, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { slashCommand, startResponseUrlDouble, type ResponseUrlDouble, type SlashFields } from './support/slack.ts';

const SIGNING_SECRET = '8f742231b10e8888abcd99aa7b2c85a5';
const TEAM = 'T0ACME';
const PUBLIC_URL = 'https://svc.example.com';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let app: FixtureApp;
let slack: ResponseUrlDouble;
let api: Client;
let orgId: string;
let shop: string;
let admin: string;
let integrationId: string;
let replies = 0;
const logged: string[] = [];

/** Each command gets its own response_url, as Slack's are. */
const responsePath = () => `/commands/${TEAM}/${++replies}/x${replies}`;
const command = (text: string, extra: Partial<SlashFields> = {}, opts: Partial<Parameters<typeof slashCommand>[2]> = {}) => {
  const path = responsePath();
  return slashCommand(server.url, { team_id: TEAM, user_id: 'U0ADA', text, response_url: `${slack.url}${path}`, ...extra }, { secret: SIGNING_SECRET, ...opts }).then((res) => ({ ...res, path }));
};
const runsOf = async (projectId: string) => (await server.runtime.deps.store.testRuns.listForProject(projectId, 200)).items.length;
const test = (name: string, url: string, tags: string[]) => ({
  name, type: 'api', tags, priority: 'medium',
  steps: [{ type: 'request', method: 'GET', url }],
  assertions: [{ type: 'status', equals: 200 }],
});

beforeAll(async () => {
  // Everything the server logs, to show the signing secret is never in it.
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
      logged.push(String(chunk));
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write);
  }
  app = await startFixtureApp();
  slack = await startResponseUrlDouble();
  server = await startRunGraphServer({ env: { SVC_PUBLIC_URL: PUBLIC_URL, SVC_LOG_LEVEL: 'DEBUG' } });
  const owner = await signUp(server.url, 'chatops-admin@example.com');
  orgId = owner.orgId;
  api = client(server.url, { token: owner.token, org: owner.orgId });
  shop = (await api.post('/api/v1/projects', { name: 'Shop', app_url: app.url })).body.id;
  admin = (await api.post('/api/v1/projects', { name: 'Admin panel', app_url: app.url })).body.id;
  for (const [project, t] of [
    [shop, test('lists the items', '/api/items', ['smoke'])],
    [shop, test('opens item 999', '/api/items/999', ['checkout'])],
    [shop, test('opens the html api', '/api/html', ['slow'])],
    [admin, test('admin lists the items', '/api/items', [])],
  ] as const) {
    const created = await api.post('/api/tests', { ...t, project_id: project });
    expect(created.status, created.text).toBe(201);
  }
});
afterAll(async () => {
  vi.restoreAllMocks();
  await server?.stop();
  await app?.close();
  await slack?.stop();
});

describe('setting up', () => {
  it('registers a Slack app; the signing secret is never returned, only that it is set and its hint', async () => {
    const res = await api.post('/api/integrations/chat', { provider: 'slack', project_id: shop, signing_secret: SIGNING_SECRET, team_id: TEAM, allowed_user_ids: ['U0ADA', 'U0BOB'] });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ provider: 'slack', project_id: shop, team_id: TEAM, allowed_user_ids: ['U0ADA', 'U0BOB'], enabled: true, signing_secret_set: true, signing_secret_hint: '…85a5', request_path: '/webhooks/chat' });
    integrationId = res.body.id;
    const one = await api.get(`/api/integrations/chat/${integrationId}`);
    const list = await api.get('/api/integrations/chat');
    expect(one.status).toBe(200);
    expect(list.body.items.map((i: { id: string }) => i.id)).toEqual([integrationId]);
    for (const text of [res.text, one.text, list.text]) {
      expect(text).not.toContain(SIGNING_SECRET);
      expect(text).not.toContain('"signing_secret"');
    }
  });

  it('bad input names the field', async () => {
    const good = { provider: 'slack', project_id: shop, signing_secret: SIGNING_SECRET };
    for (const [body, field] of [
      [{ ...good, provider: 'teams' }, 'provider'],
      [{ ...good, signing_secret: 'short' }, 'signing_secret'],
      [{ ...good, signing_secret: 'has a space in the middle of it' }, 'signing_secret'],
      [{ provider: 'slack', project_id: shop }, 'signing_secret'],
      [{ ...good, team_id: 'acme' }, 'team_id'],
      [{ ...good, allowed_user_ids: ['U0ADA', 'U0ADA'] }, 'allowed_user_ids'],
      [{ ...good, allowed_user_ids: ['ada'] }, 'allowed_user_ids.0'],
      [{ ...good, project_id: 'shop' }, 'project_id'],
      [{ ...good, secret: 'mine' }, 'secret'],
    ] as const) {
      const res = await api.post('/api/integrations/chat', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path), JSON.stringify(body)).toContain(field);
    }
    const patch = await api.patch(`/api/integrations/chat/${integrationId}`, {});
    expect(patch.status).toBe(400);
  });
});

describe('run', () => {
  it('starts a run (trigger chat) of the tagged tests, answers at once, and posts the outcome to the response_url', async () => {
    const res = await command('run #smoke #checkout');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ response_type: 'ephemeral', text: expect.stringMatching(/^Started run [0-9a-f-]{36}: 2 tests tagged #smoke, #checkout of \*Shop\*\. The outcome is posted here when it ends\.$/) });
    const runId = /Started run ([0-9a-f-]{36})/.exec(res.body.text)![1];

    const posted = await slack.delivered(res.path);
    expect(posted.headers['content-type']).toMatch(/^application\/json/);
    expect(posted.body).toMatchObject({ response_type: 'in_channel', replace_original: false, text: `svc: Shop run ${runId} failed — 1 passed, 1 failed of 2 tests` });
    const blocks = JSON.stringify(posted.body.blocks);
    expect(blocks).toContain('started by <@U0ADA>');
    expect(blocks).toContain('• *opens item 999*: assertion 1 (expect status 200): expected status 200, got 404');
    expect(blocks).not.toContain('lists the items');
    expect(JSON.stringify(posted.body)).not.toContain('vs previous run'); // the project's first run
    expect(posted.body.blocks.at(-1)).toEqual({ type: 'context', elements: [{ type: 'mrkdwn', text: `<${PUBLIC_URL}/api/reports/${runId}?format=html|HTML report>` }] });

    const run = (await api.get(`/api/v1/test/status/${runId}`)).body.run;
    expect(run).toMatchObject({ status: 'completed', trigger: 'chat', project_id: shop, total_tests: 2, passed_tests: 1, failed_tests: 1, thread_id: expect.stringMatching(new RegExp(`^chat-${integrationId}-`)) });
    const reply = await server.runtime.deps.store.chatReplies.get(orgId, run.thread_id);
    expect(reply).toMatchObject({ status: 'delivered', attempts: 1, http_status: 200, user_id: 'U0ADA', channel_id: 'C0QA' });
  });

  it('another project by name, every test of it, against another URL; a response_url that answers 500 is tried again', async () => {
    slack.answerNext(500);
    const res = await command('run admin PANEL --url <' + app.url + '/>');
    expect(res.status, res.text).toBe(200);
    expect(res.body.text).toMatch(new RegExp(`^Started run [0-9a-f-]{36}: 1 test of \\*Admin panel\\* against ${app.url}/\\.`));
    const posted = await slack.delivered(res.path);
    expect(posted.body.text).toMatch(/^svc: Admin panel run [0-9a-f-]{36} passed — 1 passed, 0 failed of 1 test$/);
    expect(slack.received.filter((p) => p.path === res.path).map((p) => p.answered)).toEqual([500, 200]);
    const runId = /Started run ([0-9a-f-]{36})/.exec(res.body.text)![1];
    const run = (await api.get(`/api/v1/test/status/${runId}`)).body.run;
    expect(await server.runtime.deps.store.chatReplies.get(orgId, run.thread_id)).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('says why nothing ran: no such project, no test with the tag, a bad option', async () => {
    const before = await runsOf(shop);
    expect((await command('run warehouse')).body.text).toBe('/svc run: no project named "warehouse" in this organization');
    expect((await command('run #nightly')).body.text).toBe('/svc run: no test of the project has one of the tags nightly');
    const bad = await command('run --fast');
    expect(bad.status).toBe(200);
    expect(bad.body.text).toMatch(/^unknown option --fast \(run takes --url\)\.\n`\/svc run \[project\]/);
    expect(await runsOf(shop)).toBe(before);
  });
});

describe('status, score, help', () => {
  it('status: the default project\'s latest run, or the run named', async () => {
    const latest = (await server.runtime.deps.store.testRuns.listForProject(shop, 1)).items[0];
    const res = await command('status');
    expect(res.status).toBe(200);
    expect(res.body.text).toBe(`Run ${latest.id} of *Shop* (chat): *completed* — 1 passed, 1 failed of 2 tests`);
    const adminRun = (await server.runtime.deps.store.testRuns.listForProject(admin, 1)).items[0];
    expect((await command(`status ${adminRun.id}`)).body.text).toBe(`Run ${adminRun.id} of *Admin panel* (chat): *completed* — 1 passed, 0 failed of 1 test`);
    expect((await command('status 00000000-0000-7000-8000-000000000000')).body.text).toBe('No run 00000000-0000-7000-8000-000000000000 in this organization.');
  });

  it('score: the quality score from the insights service', async () => {
    const expected = (await api.get(`/api/quality/score?project_id=${shop}`)).body;
    const res = await command('score');
    expect(res.body.text.split('\n')[0]).toBe(`Quality score of *Shop*: *${Math.round(expected.score)}* (grade ${expected.grade}) over its last 1 finished run.`);
    expect((await command('score nowhere')).body.text).toBe('/svc score: no project named "nowhere" in this organization');
  });

  it('help and anything unknown answer the usage', async () => {
    const help = await command('help', { command: '/qa' });
    expect(help.body.text).toMatch(/^`\/qa run \[project\] \[#tag …\] \[--url <app url>\]`/);
    const unknown = await command('deploy prod');
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ response_type: 'ephemeral', text: expect.stringMatching(/^Unknown command `deploy`\.\n`\/svc run/) });
  });
});

describe('against the previous run', () => {
  it("the outcome names what the run newly broke against the project's previous run", async () => {
    const created = await api.post('/api/tests', { ...test('admin pays', '/api/flaky/chat-compare', ['payment']), project_id: admin });
    expect(created.status, created.text).toBe(201);
    // The previous run, started through the API: call 1 of the flaky endpoint passes.
    const base = await api.post('/api/v1/test/run', { project_id: admin, test_ids: [created.body.id] });
    expect(base.status, base.text).toBe(201);
    await expect.poll(async () => (await api.get(`/api/v1/test/status/${base.body.run.id}`)).body.run.status, { timeout: 30_000 }).toBe('completed');

    const res = await command('run admin panel #payment');
    const runId = /Started run ([0-9a-f-]{36})/.exec(res.body.text)![1];
    const posted = await slack.delivered(res.path);
    // Call 2 fails: a new failure, named.
    expect(posted.body.text).toBe(`svc: Admin panel run ${runId} failed — 0 passed, 1 failed of 1 test\nvs previous run: 1 new failure (admin pays), 0 fixed`);
    expect(posted.body.blocks[1]).toEqual({ type: 'section', text: { type: 'mrkdwn', text: 'vs previous run: 1 new failure (admin pays), 0 fixed' } });
    expect(JSON.stringify(posted.body.blocks[2])).toContain('• *admin pays*');
  });
});

describe('refused', () => {
  it('a wrong, missing or replayed signature is 401; an unknown workspace answers the same as a wrong secret', async () => {
    const before = await runsOf(shop);
    const wrong = await command('run', {}, { secret: 'not-the-signing-secret-at-all' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('INVALID_SIGNATURE');
    const missing = await command('run', {}, { secret: null });
    expect(missing.status).toBe(401);
    expect(missing.body.error.message).toMatch(/X-Slack-Signature is missing/);
    const stale = await command('run', {}, { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });
    expect(stale.status).toBe(401);
    expect(stale.body.error).toEqual({ code: 'INVALID_SIGNATURE', message: expect.stringMatching(/more than 5 minutes/) });
    const unknownTeam = await command('run', { team_id: 'T0ELSEWHERE' });
    expect(unknownTeam.status).toBe(401);
    expect(unknownTeam.body).toEqual(wrong.body);
    expect(await runsOf(shop)).toBe(before);
  });

  it('what is not a slash command gets a clear error', async () => {
    const json = await command('run', {}, { contentType: 'application/json' });
    expect(json.status).toBe(415);
    const noTeam = await command('run', {}, { omit: ['team_id'] });
    expect(noTeam.status).toBe(400);
    expect(noTeam.body.error.details.issues).toEqual([{ path: 'team_id', message: 'required: svc takes Slack slash commands' }]);
    const badUrl = await command('run', { response_url: 'javascript:alert(1)' });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.error.details.issues[0].path).toBe('response_url');
    // The outcome is POSTed there: a metadata address is refused at once (found by QA).
    const imds = await command('run', { response_url: 'http://169.254.169.254/latest/slack' });
    expect(imds.status).toBe(400);
    expect(imds.body.error.details.issues).toEqual([{ path: 'response_url', message: '169.254.169.254 is a link-local / cloud metadata address, which svc never requests (server-side request forgery)' }]);
  });

  it('a user not in allowed_user_ids is refused, and nothing runs', async () => {
    const before = await runsOf(shop);
    const res = await command('run', { user_id: 'U0EVE', user_name: 'eve' });
    expect(res.status).toBe(200);
    expect(res.body.text).toBe('You are not allowed to use /svc: ask an svc admin to add your Slack user id (U0EVE) to the integration.');
    expect(await runsOf(shop)).toBe(before);
  });

  it('a paused integration answers that it is paused', async () => {
    expect((await api.patch(`/api/integrations/chat/${integrationId}`, { enabled: false })).body.enabled).toBe(false);
    const before = await runsOf(shop);
    expect((await command('run')).body.text).toMatch(/paused for this workspace/);
    expect(await runsOf(shop)).toBe(before);
    expect((await api.patch(`/api/integrations/chat/${integrationId}`, { enabled: true })).body.enabled).toBe(true);
  });
});

describe('the record', () => {
  it('every command is in the audit log with the Slack user id', async () => {
    const audit = (await api.get('/api/audit-logs?limit=200')).body.items as Array<{ action: string; user_id: string; resource: string; metadata: Record<string, unknown> }>;
    const started = audit.filter((a) => a.action === 'test_run.start' && a.metadata.trigger === 'chat');
    expect(started).toHaveLength(3);
    expect(started[0]).toMatchObject({ user_id: 'slack:U0ADA', resource: expect.stringMatching(/^test_run:/), metadata: { integration_id: integrationId, team_id: TEAM, outcome: 'started', command: '/svc', slack_user_id: 'U0ADA', channel_id: 'C0QA' } });
    expect(audit.find((a) => a.action === 'chat_command.run' && a.user_id === 'slack:U0EVE')).toMatchObject({ metadata: { outcome: 'refused', text: 'run' } });
    for (const action of ['chat_command.status', 'chat_command.score', 'chat_command.help', 'chat_integration.create', 'chat_integration.update']) expect(audit.map((a) => a.action), action).toContain(action);
    expect(JSON.stringify(audit)).not.toContain(SIGNING_SECRET);
  });
});

describe('who may', () => {
  it('members and API keys get 403; another organization gets 404', async () => {
    const invite = await api.post('/api/teams/invitations', { email: 'chatops-member@example.com', role: 'member' });
    const member = await signUp(server.url, 'chatops-member@example.com');
    expect((await client(server.url, { token: member.token }).post('/api/teams/invitations/accept', { token: invite.body.token })).status).toBe(200);
    const asMember = client(server.url, { token: member.token, org: orgId });
    expect((await asMember.get('/api/integrations/chat')).status).toBe(403);
    expect((await asMember.post('/api/integrations/chat', { provider: 'slack', project_id: shop, signing_secret: SIGNING_SECRET })).status).toBe(403);
    expect((await asMember.patch(`/api/integrations/chat/${integrationId}`, { enabled: false })).status).toBe(403);

    const key = await api.post('/api/api-keys', { name: 'ci', permissions: ['admin'] });
    const refused = await client(server.url, { token: key.body.key }).get('/api/integrations/chat');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');

    const other = await signUp(server.url, 'chatops-stranger@example.com');
    const stranger = client(server.url, { token: other.token, org: other.orgId });
    expect((await stranger.post('/api/integrations/chat', { provider: 'slack', project_id: shop, signing_secret: SIGNING_SECRET })).status).toBe(404);
    for (const res of [
      await stranger.get(`/api/integrations/chat/${integrationId}`),
      await stranger.patch(`/api/integrations/chat/${integrationId}`, { enabled: false }),
      await stranger.delete(`/api/integrations/chat/${integrationId}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({ code: 'NOT_FOUND', message: 'chat integration not found' });
    }
    expect((await stranger.get('/api/integrations/chat')).body.items).toEqual([]);
    expect((await api.get(`/api/integrations/chat/${integrationId}`)).body.enabled).toBe(true);
  });

  it('a new signing secret replaces the old one; delete refuses the commands from then on', async () => {
    const NEW_SECRET = 'a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5';
    const changed = await api.patch(`/api/integrations/chat/${integrationId}`, { signing_secret: NEW_SECRET });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ signing_secret_set: true, signing_secret_hint: '…c4d5' });
    expect((await command('help')).status).toBe(401);
    expect((await command('help', {}, { secret: NEW_SECRET })).status).toBe(200);
    expect((await api.delete(`/api/integrations/chat/${integrationId}`)).status).toBe(204);
    expect((await api.get(`/api/integrations/chat/${integrationId}`)).status).toBe(404);
    expect((await command('help', {}, { secret: NEW_SECRET })).status).toBe(401);
    expect((await api.get('/api/audit-logs?limit=200')).body.items.map((a: { action: string }) => a.action)).toContain('chat_integration.delete');
  });

  it('the signing secrets were never logged', () => {
    const text = logged.join('');
    expect(text.length).toBeGreaterThan(0);
    expect(text).not.toContain(SIGNING_SECRET);
    expect(text).not.toContain('a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5');
    // A refused signature is said in the log (for the admin setting Slack up), with the workspace and no secret.
    expect(text).toMatch(/a slash command was refused: no chat integration of its workspace verifies its signature.*T0ELSEWHERE/);
  });
});
