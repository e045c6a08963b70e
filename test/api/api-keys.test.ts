import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHash } from 'node:crypto';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';

/** The API key lifecycle: create (shown once), use, last_used, scopes, revoke. */
let server: TestServer;
let admin: Client;

beforeAll(async () => {
  server = await startTestServer();
  admin = client(server.url, { token: server.admin.apiKey });
  // Key management is dashboard-only: use the admin's session, not their key.
  const login = await client(server.url).post('/api/auth/login', { email: server.admin.email, password: server.admin.password });
  admin = client(server.url, { token: login.body.access_token, org: server.admin.organizationId });
});
afterAll(async () => server?.stop());

describe('API key lifecycle', () => {
  it('is shown once, stored only as a hash, works as Bearer and X-API-Key, and records last_used', async () => {
    const created = await admin.post('/api/api-keys', { name: 'ci', permissions: ['read', 'write'] });
    expect(created.status).toBe(201);
    const { key, id, prefix } = created.body;
    expect(key).toMatch(/^svc_sk_[A-Za-z0-9_-]{43}$/);
    expect(key.startsWith(prefix)).toBe(true);

    // The listing never carries the secret or its hash.
    const listed = await admin.get('/api/api-keys');
    const row = listed.body.items.find((k: { id: string }) => k.id === id);
    expect(row).toMatchObject({ name: 'ci', permissions: ['read', 'write'], last_used: null, revoked_at: null });
    expect(JSON.stringify(listed.body)).not.toContain(key);
    expect(JSON.stringify(listed.body)).not.toContain(createHash('sha256').update(key).digest('hex'));

    // The store holds the hash, never the key.
    const table = server.runtime.deps.store.table;
    const stored = await table.get({ pk: `ORG#${server.admin.organizationId}`, sk: `APIKEY#${id}` });
    expect(stored?.key_hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(key);

    const viaBearer = await client(server.url, { token: key }).get('/api/v1/projects');
    expect(viaBearer.status).toBe(200);
    const viaHeader = await client(server.url, { headers: { 'x-api-key': key } }).get('/api/v1/projects');
    expect(viaHeader.status).toBe(200);

    await expect.poll(async () => (await admin.get('/api/api-keys')).body.items.find((k: { id: string }) => k.id === id).last_used).not.toBeNull();
  });

  it('a key restricted to one project is refused (400 naming project_id) and nothing is issued: no route would enforce it', async () => {
    const project = (await admin.post('/api/v1/projects', { name: 'restricted' })).body.id;
    const before = (await admin.get('/api/api-keys?limit=200')).body.items.length;
    const res = await admin.post('/api/api-keys', { name: 'one project', permissions: ['read'], project_id: project });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues).toEqual([{ path: 'project_id', message: expect.stringMatching(/^keys restricted to one project are not issued yet/) }]);
    expect((await admin.get('/api/api-keys?limit=200')).body.items.length).toBe(before);
  });

  it('scopes bound what a key may do', async () => {
    const read = (await admin.post('/api/api-keys', { name: 'ro', permissions: ['read'] })).body.key;
    const ro = client(server.url, { token: read });
    expect((await ro.get('/api/v1/projects')).status).toBe(200);
    const denied = await ro.post('/api/v1/projects', { name: 'x' });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('INSUFFICIENT_ROLE');

    const write = (await admin.post('/api/api-keys', { name: 'rw', permissions: ['write'] })).body.key;
    expect((await client(server.url, { token: write }).post('/api/v1/projects', { name: 'by key' })).status).toBe(201);
  });

  it('keys cannot manage keys, even with admin scope (dashboard only)', async () => {
    const adminKey = client(server.url, { token: server.admin.apiKey });
    for (const res of [await adminKey.post('/api/api-keys', { name: 'x' }), await adminKey.get('/api/api-keys'), await adminKey.get('/api/audit-logs')]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
  });

  it("a key sees its creator's profile with the key's organization only, not the creator's other organizations", async () => {
    const key = (await admin.post('/api/api-keys', { name: 'whoami', permissions: ['read'] })).body.key;
    // The admin also belongs to a second organization.
    const bob = await signUp(server.url, 'bob-keys@example.com', 'Bob Co');
    const invite = await client(server.url, { token: bob.token, org: bob.orgId }).post('/api/teams/invitations', { email: server.admin.email, role: 'member' });
    expect(invite.status, invite.text).toBe(201);
    expect((await admin.post('/api/teams/invitations/accept', { token: invite.body.token })).status).toBeLessThan(300);
    const asPerson = await admin.get('/api/v1/users/me');
    expect(asPerson.body.memberships.map((m: { organization_id: string }) => m.organization_id).sort()).toEqual([server.admin.organizationId, bob.orgId].sort());
    const asKey = await client(server.url, { token: key }).get('/api/v1/users/me');
    expect(asKey.status).toBe(200);
    expect(asKey.body.email).toBe(server.admin.email);
    expect(asKey.body.memberships.map((m: { organization_id: string }) => m.organization_id)).toEqual([server.admin.organizationId]);
    expect(asKey.text).not.toContain('Bob Co');
  });

  it('a revoked key stops working at once, and revoking is audited', async () => {
    const created = await admin.post('/api/api-keys', { name: 'short-lived', permissions: ['read'] });
    const user = client(server.url, { token: created.body.key });
    expect((await user.get('/api/v1/projects')).status).toBe(200);
    const revoked = await admin.delete(`/api/api-keys/${created.body.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    const after = await user.get('/api/v1/projects');
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('INVALID_TOKEN');
    const audit = await admin.get('/api/audit-logs?action=api_key.revoke');
    expect(audit.body.items.some((l: { resource: string }) => l.resource === `api_key:${created.body.id}`)).toBe(true);
  });

  it('an expired key is refused', async () => {
    const soon = new Date(Date.now() + 1500).toISOString();
    const created = await admin.post('/api/api-keys', { name: 'expiring', expires_at: soon });
    expect(created.status).toBe(201);
    const user = client(server.url, { token: created.body.key });
    expect((await user.get('/api/v1/projects')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1700));
    expect((await user.get('/api/v1/projects')).status).toBe(401);
  });

  it('forged and malformed keys are refused with 401', async () => {
    for (const token of ['svc_sk_' + 'A'.repeat(43), 'svc_sk_short', 'svc_sk_' + '!'.repeat(43)]) {
      const res = await client(server.url, { token }).get('/api/v1/projects');
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('INVALID_TOKEN');
    }
  });
});
