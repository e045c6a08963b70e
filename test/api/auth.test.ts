import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPair, exportJWK, SignJWT } from 'jose';
import { startTestServer, client, signUp, type TestServer } from '../support/server.ts';

/** The built-in issuer's flows, cookies, and JWTs from an external issuer (a JWKS served here). */
let server: TestServer;
let jwksServer: Server;
let externalKey: CryptoKey;
const EXTERNAL_ISSUER = 'https://idp.example.test/';

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  externalKey = privateKey as CryptoKey;
  const jwk = { ...(await exportJWK(publicKey)), kid: 'ext-1', alg: 'RS256', use: 'sig' };
  jwksServer = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((r) => jwksServer.listen(0, '127.0.0.1', r));
  const { port } = jwksServer.address() as AddressInfo;
  server = await startTestServer({
    env: { SVC_JWKS_URL: `http://127.0.0.1:${port}/jwks.json`, SVC_JWT_ISSUER: EXTERNAL_ISSUER, SVC_JWT_AUDIENCE: 'svc-api' },
  });
});
afterAll(async () => {
  await server?.stop();
  await new Promise((r) => jwksServer?.close(r));
});

const externalToken = (claims: Record<string, unknown>, opts: { exp?: string; iss?: string; aud?: string; key?: CryptoKey } = {}) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: 'ext-1' })
    .setIssuer(opts.iss ?? EXTERNAL_ISSUER)
    .setAudience(opts.aud ?? 'svc-api')
    .setIssuedAt()
    .setExpirationTime(opts.exp ?? '5m')
    .sign(opts.key ?? externalKey);

describe('built-in issuer', () => {
  it('signs up, logs in, refreshes with rotation and logs out', async () => {
    const anon = client(server.url);
    const up = await signUp(server.url, 'flow@example.com', 'Flow Org');
    expect(up.session.user.email).toBe('flow@example.com');
    expect(up.session.organization.name).toBe('Flow Org');
    expect((await anon.post('/api/auth/signup', { email: 'FLOW@example.com', password: 'another password' })).status).toBe(409);

    const login = await anon.post('/api/auth/login', { email: 'flow@example.com', password: 'correct horse battery' });
    expect(login.status).toBe(200);
    const me = await client(server.url, { token: login.body.access_token }).get('/api/v1/users/me');
    expect(me.body.memberships).toEqual([expect.objectContaining({ organization_name: 'Flow Org', role: 'admin' })]);

    const refreshed = await anon.post('/api/auth/refresh', { refresh_token: login.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(login.body.refresh_token);
    const reused = await anon.post('/api/auth/refresh', { refresh_token: login.body.refresh_token });
    expect(reused.status).toBe(401);

    expect((await anon.post('/api/auth/logout', { refresh_token: refreshed.body.refresh_token })).status).toBe(204);
    expect((await anon.post('/api/auth/refresh', { refresh_token: refreshed.body.refresh_token })).status).toBe(401);
  });

  it('rejects a wrong password and an unknown email alike', async () => {
    const anon = client(server.url);
    const wrong = await anon.post('/api/auth/login', { email: server.admin.email, password: 'not the password' });
    const unknown = await anon.post('/api/auth/login', { email: 'nobody@example.com', password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
  });

  it('authenticates browsers with HttpOnly cookies', async () => {
    const res = await fetch(`${server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: server.admin.email, password: server.admin.password }),
    });
    const cookies = res.headers.getSetCookie();
    const session = cookies.find((c) => c.startsWith('svc_session='))!;
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Lax/i);
    expect(cookies.find((c) => c.startsWith('svc_refresh='))).toMatch(/Path=\/api\/auth/);
    const cookie = session.split(';')[0];
    const me = await fetch(`${server.url}/api/v1/users/me`, { headers: { cookie } });
    expect(me.status).toBe(200);
    const projects = await fetch(`${server.url}/api/v1/projects`, { headers: { cookie, 'x-organization-id': server.admin.organizationId } });
    expect(projects.status).toBe(200);
  });

  it('publishes its public keys', async () => {
    const jwks = await client(server.url).get('/.well-known/jwks.json');
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    expect(jwks.body.keys[0].d).toBeUndefined();
  });
});

describe('external issuer (JWKS served by the test)', () => {
  it('accepts its JWT, creates the profile, and scopes by membership', async () => {
    const token = await externalToken({ sub: 'ext|alice', email: 'alice@corp.example', email_verified: true });
    const alice = client(server.url, { token });
    const me = await alice.get('/api/v1/users/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user_id: 'ext|alice', email: 'alice@corp.example', memberships: [] });
    // Not a member of anything yet: the admin's organization is invisible.
    expect((await alice.get('/api/v1/projects', { org: server.admin.organizationId })).status).toBe(404);
    const org = await alice.post('/api/organizations', { name: 'Alice Corp' });
    expect(org.status).toBe(201);
    expect(org.body.role).toBe('admin');
    const project = await alice.post('/api/v1/projects', { name: 'alice app' }, { org: org.body.id });
    expect(project.status).toBe(201);
  });

  it('refuses tokens with the wrong issuer, audience, key, or expiry', async () => {
    const { privateKey: stranger } = await generateKeyPair('RS256');
    const bad = [
      await externalToken({ sub: 'x' }, { iss: 'https://evil.example/' }),
      await externalToken({ sub: 'x' }, { aud: 'someone-else' }),
      await externalToken({ sub: 'x' }, { key: stranger as CryptoKey }),
      await externalToken({ sub: 'x' }, { exp: '-10m' }),
    ];
    for (const token of bad) {
      const res = await client(server.url, { token }).get('/api/v1/users/me');
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('INVALID_TOKEN');
    }
  });
});

describe('missing and forged credentials', () => {
  it('401 without a credential, with a malformed header, and with a forged JWT', async () => {
    const anon = client(server.url);
    const none = await anon.get('/api/v1/projects');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('UNAUTHENTICATED');
    expect((await anon.get('/api/v1/projects', { headers: { authorization: 'Basic abc' } })).status).toBe(401);
    const login = await anon.post('/api/auth/login', { email: server.admin.email, password: server.admin.password });
    const [h, p, s] = login.body.access_token.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forgedPayload = Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url');
    const forged = await client(server.url, { token: `${h}.${forgedPayload}.${s}` }).get('/api/v1/users/me');
    expect(forged.status).toBe(401);
    const noneAlg = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}.`;
    expect((await client(server.url, { token: noneAlg }).get('/api/v1/users/me')).status).toBe(401);
  });
});
