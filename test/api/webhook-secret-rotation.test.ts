/**
 * Rotating the signing secret of both kinds of inbound-webhook integration on the real
 * local runtime: POST /api/integrations/{vcs,automation}/{id}/rotate-secret answers the new
 * secret once; during the grace period deliveries signed with the new or the previous
 * secret are taken (signed here with node:crypto as GitHub, GitLab and an automation tool
 * sign, not with svc's code), and after it only the new one; rotating again keeps one
 * previous secret; grace_hours 0 stops the old one at once. Also: bad grace_hours (400
 * naming it), members and API keys (403), another organization (404), nothing secret in
 * list/get answers, the stored record or the audit log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '@svc/core/store/keys';
import { client, signUp, startTestServer, type Client, type TestServer } from '../support/server.ts';
import { deliverGithub, deliverGitlab, githubPing, gitlabPush } from '../vcs/support/hosts.ts';
import { sendEvent } from '../automation/support/events.ts';

let server: TestServer;
let api: Client;
let orgId: string;
let projectId: string;
let member: Client;
let viaKey: Client;
let stranger: Client;

beforeAll(async () => {
  server = await startTestServer();
  const owner = await signUp(server.url, 'rotate-admin@example.com');
  orgId = owner.orgId;
  api = client(server.url, { token: owner.token, org: orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'Shop', app_url: 'http://127.0.0.1:9/' })).body.id;

  const invite = await api.post('/api/teams/invitations', { email: 'rotate-member@example.com', role: 'member' });
  const joined = await signUp(server.url, 'rotate-member@example.com');
  expect((await client(server.url, { token: joined.token }).post('/api/teams/invitations/accept', { token: invite.body.token })).status).toBe(200);
  member = client(server.url, { token: joined.token, org: orgId });
  viaKey = client(server.url, { token: (await api.post('/api/api-keys', { name: 'ci', permissions: ['admin'] })).body.key });
  const other = await signUp(server.url, 'rotate-stranger@example.com');
  stranger = client(server.url, { token: other.token, org: other.orgId });
});
afterAll(async () => {
  await server?.stop();
});

const HOUR = 3_600_000;
const SECRET = /^whsec_[A-Za-z0-9_-]{43}$/;

/** What differs between the two kinds: where they are managed, how one is made, and a delivery signed with a given secret. */
interface Kind {
  name: 'vcs' | 'automation';
  path: string;
  notFound: string;
  create: () => Record<string, unknown>;
  /** The HTTP status of a delivery signed with `secret`: 202/201 when taken, 401 when refused. */
  deliver: (id: string, secret: string) => Promise<number>;
  taken: number;
  storeKey: (id: string) => { pk: string; sk: string };
}

const kinds: Kind[] = [
  {
    name: 'vcs',
    path: '/api/integrations/vcs',
    notFound: 'VCS integration not found',
    create: () => ({ project_id: projectId, provider: 'github', repository: 'acme/rotate' }),
    // GitHub's ping: the signature is checked, nothing runs.
    deliver: async (_id, secret) => (await deliverGithub(server.url, 'ping', githubPing('acme/rotate', `${server.url}/webhooks/vcs`), { secret })).status,
    taken: 202,
    storeKey: (id) => keys.vcsIntegration(orgId, id),
  },
  {
    name: 'automation',
    path: '/api/integrations/automation',
    notFound: 'automation integration not found',
    create: () => ({ name: 'n8n nightly' }),
    // A failure report turned into a generated test without executing it: real work, no browser.
    deliver: async (id, secret) => (await sendEvent(server.url, { id, secret }, { event: 'failure.reported', project: 'Shop', execute: false, failure: { message: 'Error: boom', url: 'http://127.0.0.1:9/cart' } })).status,
    taken: 201,
    storeKey: (id) => keys.automationIntegration(orgId, id),
  },
];

describe.each(kinds)('$name integrations', (kind) => {
  let id = '';
  /** Every secret this integration has had, oldest first. */
  const secrets: string[] = [];
  const rotate = (body?: unknown, as: Client = api) => as.post(`${kind.path}/${id}/rotate-secret`, body);
  const statuses = async () => Promise.all(secrets.map((s) => kind.deliver(id, s)));

  it('rotates: the new secret is shown once, and both it and the previous one verify during the grace period', async () => {
    const created = await api.post(kind.path, kind.create());
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ secret_rotated_at: null, previous_secret_expires_at: null });
    id = created.body.id;
    secrets.push(created.body.secret);

    const before = Date.now();
    const res = await rotate(); // no body: the default grace, 24 hours
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id, secret: expect.stringMatching(SECRET), secret_rotated_at: expect.any(String) });
    expect(res.body.secret).not.toBe(secrets[0]);
    expect(res.body.webhook_path).toBeUndefined();
    const expires = Date.parse(res.body.previous_secret_expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 24 * HOUR - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 24 * HOUR + 1000);
    if (kind.name === 'automation') expect(res.body.secret_hint).toBe(`…${res.body.secret.slice(-4)}`);
    secrets.push(res.body.secret);

    expect(await statuses()).toEqual([kind.taken, kind.taken]);
    expect(await kind.deliver(id, 'whsec_not-the-secret')).toBe(401);
  });

  it('never lists, returns or stores in plaintext the current or the previous secret', async () => {
    const one = await api.get(`${kind.path}/${id}`);
    const list = await api.get(kind.path);
    expect(one.body).toMatchObject({ secret_rotated_at: expect.any(String), previous_secret_expires_at: expect.any(String) });
    for (const text of [one.text, list.text]) {
      for (const s of secrets) expect(text).not.toContain(s);
      expect(text).not.toContain('"secret"');
      expect(text).not.toContain('"previous_secret"');
    }
    const stored = await server.runtime.deps.store.table.get(kind.storeKey(id));
    expect(stored).toMatchObject({ secret: { svc_sealed: 1 }, previous_secret: { svc_sealed: 1 } });
    for (const s of secrets) expect(JSON.stringify(stored)).not.toContain(s);
  });

  it('rotating again during the grace period keeps only one previous secret: the one it replaces', async () => {
    const res = await rotate({ grace_hours: 2 });
    expect(res.status, res.text).toBe(200);
    const expires = Date.parse(res.body.previous_secret_expires_at);
    expect(Math.abs(expires - (Date.now() + 2 * HOUR))).toBeLessThan(5000);
    secrets.push(res.body.secret);
    // The first secret is gone; the second (now previous) and the third verify.
    expect(await statuses()).toEqual([401, kind.taken, kind.taken]);
  });

  it('after the grace period only the new secret verifies', async () => {
    // The server's clock is the system's: the grace period is made to end by moving its end
    // into the past, as two hours passing would.
    await server.runtime.deps.store.table.update({ key: kind.storeKey(id), set: { previous_secret_expires_at: new Date(Date.now() - 1000).toISOString() } });
    expect(await statuses()).toEqual([401, 401, kind.taken]);
  });

  it('grace_hours 0 stops the previous secret at once', async () => {
    const res = await rotate({ grace_hours: 0 });
    expect(res.status, res.text).toBe(200);
    expect(res.body.previous_secret_expires_at).toBeNull();
    secrets.push(res.body.secret);
    expect(await statuses()).toEqual([401, 401, 401, kind.taken]);
    const stored = await server.runtime.deps.store.table.get(kind.storeKey(id));
    expect(stored).toMatchObject({ previous_secret: null, previous_secret_expires_at: null });
  });

  it('bad input is 400 naming the field; a secret cannot be given (creation takes none either)', async () => {
    for (const [body, field] of [
      [{ grace_hours: -1 }, 'grace_hours'],
      [{ grace_hours: 169 }, 'grace_hours'],
      [{ grace_hours: 1.5 }, 'grace_hours'],
      [{ grace_hours: '24' }, 'grace_hours'],
      [{ secret: 'whsec_mine-mine-mine-mine-mine-mine' }, 'secret'],
    ] as const) {
      const res = await rotate(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path), JSON.stringify(body)).toContain(field);
    }
    expect((await rotate({ grace_hours: 168 })).status).toBe(200);
    const latest = await rotate({ grace_hours: 0 });
    secrets.push('', latest.body.secret); // the 168-hour one was never kept by anyone: it is replaced at once
    expect(await kind.deliver(id, latest.body.secret)).toBe(kind.taken);
  });

  it('members and API keys get 403, another organization 404, and the secret is unchanged', async () => {
    const current = secrets.at(-1)!;
    const rotatedAt = (await api.get(`${kind.path}/${id}`)).body.secret_rotated_at;
    for (const res of [await rotate({}, member), await rotate({}, viaKey)]) {
      expect(res.status, res.text).toBe(403);
      expect(res.text).not.toContain('whsec_');
    }
    const foreign = await rotate({}, stranger);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toEqual({ code: 'NOT_FOUND', message: kind.notFound });
    expect((await stranger.post(`${kind.path}/01900000-0000-7000-8000-000000000000/rotate-secret`)).status).toBe(404);
    expect((await api.get(`${kind.path}/${id}`)).body.secret_rotated_at).toBe(rotatedAt);
    expect(await kind.deliver(id, current)).toBe(kind.taken);
  });

  it('each rotation is in the audit log, with its grace period and no secret', async () => {
    const audit = (await api.get('/api/audit-logs?limit=200')).body.items as Array<{ action: string; resource: string; metadata: Record<string, unknown> }>;
    const rotations = audit.filter((a) => a.action === `${kind.name}_integration.rotate_secret`);
    expect(rotations.map((a) => a.metadata.grace_hours)).toEqual([0, 168, 0, 2, 24]); // newest first
    expect(rotations.every((a) => a.resource === `${kind.name}_integration:${id}`)).toBe(true);
    expect(rotations[3].metadata.previous_secret_expires_at).toEqual(expect.any(String));
    expect(rotations[0].metadata.previous_secret_expires_at).toBeNull();
    const text = JSON.stringify(audit);
    for (const s of secrets.filter(Boolean)) expect(text).not.toContain(s);
    expect(text).not.toContain('whsec_');
  });
});

describe('a GitLab integration', () => {
  it('takes the previous and the new token during the grace period (GitLab sends the secret itself)', async () => {
    const created = await api.post('/api/integrations/vcs', { project_id: projectId, provider: 'gitlab', repository: 'acme/tools/rotate', branches: ['release/*'] });
    expect(created.status, created.text).toBe(201);
    const rotated = await api.post(`/api/integrations/vcs/${created.body.id}/rotate-secret`, { grace_hours: 1 });
    expect(rotated.status, rotated.text).toBe(200);
    // A push to a branch the integration does not run on: verified, logged as ignored, nothing runs.
    const push = () => gitlabPush('acme/tools/rotate', 'feature/x', [{ modified: ['a.ts'] }]);
    for (const token of [created.body.secret, rotated.body.secret]) {
      const res = await deliverGitlab(server.url, 'Push Hook', push(), token);
      expect(res.status, res.text).toBe(202);
      expect(res.body.ignored).toEqual(expect.any(String));
    }
    expect((await deliverGitlab(server.url, 'Push Hook', push(), 'whsec_wrong')).status).toBe(401);
  });
});
