import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { createJwtVerifier, type JwtVerifier } from './jwt-verifier.ts';
import { createLocalIssuer, generateSigningKey, type LocalIssuer } from './local-issuer.ts';

const EXT_ISSUER = 'https://idp.example.test/';
const EXT_AUDIENCE = 'svc-external';
const EXT_KID = 'ext-key-1';
const LOCAL_ISSUER = 'https://svc.example.test';
const LOCAL_AUDIENCE = 'svc-api';

async function rejection(p: Promise<unknown>, message?: string): Promise<AppError> {
  const err = await p.then(
    () => {
      throw new Error('expected the promise to reject');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  const appError = err as AppError;
  expect(appError.code).toBe('INVALID_TOKEN');
  expect(appError.status).toBe(401);
  // No library internals in what the client will see.
  expect(appError.message).not.toMatch(/jose|ERR_|JWKS|http:|127\.0\.0\.1|stack/i);
  if (message !== undefined) expect(appError.message).toBe(message);
  return appError;
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('createJwtVerifier', () => {
  let server: Server;
  let jwksUrl: string;
  let jwksRequests = 0;
  let serveStatus = 200;
  let rsaPrivate: CryptoKey;
  let rsaPublicJwk: JWK;
  let localIssuer: LocalIssuer;
  let verifier: JwtVerifier;

  /** Signs an RS256 token with the key the JWKS server publishes. */
  function signExternal(
    claims: JWTPayload = {},
    opts: { key?: CryptoKey; kid?: string; iss?: string | null; aud?: string | null; exp?: number | null; sub?: string | null } = {},
  ): Promise<string> {
    let jwt = new SignJWT({ email: 'ext@example.com', name: 'Ext User', ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: opts.kid ?? EXT_KID })
      .setIssuedAt();
    if (opts.iss !== null) jwt = jwt.setIssuer(opts.iss ?? EXT_ISSUER);
    if (opts.aud !== null) jwt = jwt.setAudience(opts.aud ?? EXT_AUDIENCE);
    if (opts.sub !== null) jwt = jwt.setSubject(opts.sub ?? 'ext-user-1');
    if (opts.exp !== null) jwt = jwt.setExpirationTime(opts.exp ?? nowSeconds() + 300);
    return jwt.sign(opts.key ?? rsaPrivate);
  }

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    rsaPrivate = pair.privateKey;
    rsaPublicJwk = { ...(await exportJWK(pair.publicKey)), kid: EXT_KID, alg: 'RS256', use: 'sig' };

    server = createServer((req, res) => {
      if (req.url !== '/.well-known/jwks.json') {
        res.writeHead(404).end();
        return;
      }
      jwksRequests++;
      if (serveStatus !== 200) {
        res.writeHead(serveStatus).end('nope');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [rsaPublicJwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    jwksUrl = `http://127.0.0.1:${port}/.well-known/jwks.json`;

    localIssuer = createLocalIssuer({ privateJwk: await generateSigningKey(), issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE });
    verifier = createJwtVerifier({
      localIssuer,
      external: { jwksUrl, issuer: EXT_ISSUER, audience: EXT_AUDIENCE },
    });
  });

  afterAll(async () => {
    await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
  });

  describe('external issuer (remote JWKS)', () => {
    it('verifies an RS256 token against the JWKS served over HTTP, and caches the key set', async () => {
      const before = jwksRequests;
      const token = await signExternal();
      await expect(verifier.verify(token)).resolves.toEqual({
        userId: 'ext-user-1',
        email: 'ext@example.com',
        name: 'Ext User',
        issuer: EXT_ISSUER,
      });
      expect(jwksRequests).toBe(before + 1);
      await verifier.verify(await signExternal({}, { sub: 'ext-user-2' }));
      expect(jwksRequests).toBe(before + 1);
    });

    it('rejects a token from an untrusted issuer', async () => {
      await rejection(verifier.verify(await signExternal({}, { iss: 'https://evil.example.test/' })), 'Token issuer is not trusted');
      await rejection(verifier.verify(await signExternal({}, { iss: null })), 'Token issuer is not trusted');
    });

    it('rejects a token for the wrong audience or with no audience', async () => {
      await rejection(verifier.verify(await signExternal({}, { aud: 'someone-else' })), 'Token audience is not accepted');
      await rejection(verifier.verify(await signExternal({}, { aud: null })), 'Token audience is not accepted');
    });

    it('rejects an expired token and one with no exp', async () => {
      await rejection(verifier.verify(await signExternal({}, { exp: nowSeconds() - 120 })), 'Token has expired');
      await rejection(verifier.verify(await signExternal({}, { exp: null })), 'Token has no valid expiry');
    });

    it('accepts a token just past exp within clock tolerance, rejects it with zero tolerance', async () => {
      const token = await signExternal({}, { exp: nowSeconds() - 5 });
      await expect(verifier.verify(token)).resolves.toMatchObject({ userId: 'ext-user-1' });
      const strict = createJwtVerifier({ external: { jwksUrl, issuer: EXT_ISSUER, audience: EXT_AUDIENCE }, clockToleranceSeconds: 0 });
      await rejection(strict.verify(token), 'Token has expired');
    });

    it('rejects a token that is not yet valid (nbf)', async () => {
      await rejection(verifier.verify(await signExternal({ nbf: nowSeconds() + 600 })), 'Token is not yet valid');
    });

    it('rejects a token with no subject', async () => {
      await rejection(verifier.verify(await signExternal({}, { sub: null })), 'Token has no subject');
    });

    it('rejects a tampered signature or payload', async () => {
      const token = await signExternal();
      const [header, payload, signature] = token.split('.');
      const sigBytes = Buffer.from(signature, 'base64url');
      sigBytes[10] ^= 0xff;
      await rejection(verifier.verify(`${header}.${payload}.${sigBytes.toString('base64url')}`), 'Token signature is invalid');

      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const forged = b64url({ ...claims, sub: 'admin-user' });
      await rejection(verifier.verify(`${header}.${forged}.${signature}`), 'Token signature is invalid');
      await rejection(verifier.verify(`${header}.${payload}.`));
    });

    it('rejects a token signed by an unknown key', async () => {
      const stranger = await generateKeyPair('RS256');
      // Unknown kid: not in the set (even after the verifier refetches it).
      await rejection(verifier.verify(await signExternal({}, { key: stranger.privateKey, kid: 'unknown-kid' })), 'Token was signed by an unknown key');
      // Known kid, wrong key.
      await rejection(verifier.verify(await signExternal({}, { key: stranger.privateKey })), 'Token signature is invalid');
      // The local issuer's key cannot vouch for the external issuer.
      const localSigned = await new SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: localIssuer.publicJwks().keys[0].kid })
        .setIssuer(EXT_ISSUER)
        .setAudience(EXT_AUDIENCE)
        .setSubject('x')
        .setExpirationTime('5m')
        .sign((await generateKeyPair('ES256')).privateKey);
      await rejection(verifier.verify(localSigned));
    });

    it('rejects alg: none', async () => {
      const payload = { iss: EXT_ISSUER, aud: EXT_AUDIENCE, sub: 'ext-user-1', exp: nowSeconds() + 300 };
      const msg = 'Unsigned tokens are not accepted';
      await rejection(verifier.verify(`${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(payload)}.`), msg);
      await rejection(verifier.verify(`${b64url({ alg: 'NONE' })}.${b64url(payload)}.`), msg);
      await rejection(verifier.verify(`${b64url({ alg: 'none', kid: EXT_KID })}.${b64url(payload)}.c2ln`), msg);
      const localPayload = { ...payload, iss: LOCAL_ISSUER, aud: LOCAL_AUDIENCE };
      await rejection(verifier.verify(`${b64url({ alg: 'none' })}.${b64url(localPayload)}.`), msg);
    });

    it('rejects HS256 tokens, including ones keyed with the public key (algorithm confusion)', async () => {
      const msg = 'Symmetrically signed (HS*) tokens are not accepted';
      const secret = new TextEncoder().encode('a-shared-secret-that-is-long-enough-for-hs256');
      const hs = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256', kid: EXT_KID })
        .setIssuer(EXT_ISSUER)
        .setAudience(EXT_AUDIENCE)
        .setSubject('ext-user-1')
        .setExpirationTime('5m')
        .sign(secret);
      await rejection(verifier.verify(hs), msg);

      const confused = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS512' })
        .setIssuer(EXT_ISSUER)
        .setAudience(EXT_AUDIENCE)
        .setSubject('ext-user-1')
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(JSON.stringify(rsaPublicJwk)));
      await rejection(verifier.verify(confused), msg);
    });

    it('does not report an email the issuer marks unverified', async () => {
      const identity = await verifier.verify(await signExternal({ email_verified: false }));
      expect(identity.email).toBeUndefined();
      expect((await verifier.verify(await signExternal({ email_verified: true }))).email).toBe('ext@example.com');
    });

    it('skips the audience check when no audience is configured', async () => {
      const lenient = createJwtVerifier({ external: { jwksUrl, issuer: EXT_ISSUER } });
      await expect(lenient.verify(await signExternal({}, { aud: 'anything' }))).resolves.toMatchObject({ userId: 'ext-user-1' });
      await expect(lenient.verify(await signExternal({}, { aud: null }))).resolves.toMatchObject({ userId: 'ext-user-1' });
    });

    it('fails closed with INVALID_TOKEN when the JWKS cannot be fetched', async () => {
      serveStatus = 500;
      try {
        const fresh = createJwtVerifier({ external: { jwksUrl, issuer: EXT_ISSUER, audience: EXT_AUDIENCE } });
        await rejection(fresh.verify(await signExternal()), 'Token could not be verified');
      } finally {
        serveStatus = 200;
      }
      const unreachable = createJwtVerifier({
        external: { jwksUrl: 'http://127.0.0.1:1/jwks.json', issuer: EXT_ISSUER, audience: EXT_AUDIENCE },
      });
      await rejection(unreachable.verify(await signExternal()), 'Token could not be verified');
    });
  });

  describe('local issuer', () => {
    it('routes tokens with the local iss to the local key set', async () => {
      const { token } = await localIssuer.issueAccessToken({ sub: 'local-1', email: 'l@example.com', name: 'Lo' });
      await expect(verifier.verify(token)).resolves.toEqual({
        userId: 'local-1',
        email: 'l@example.com',
        name: 'Lo',
        issuer: LOCAL_ISSUER,
      });
    });

    it('rejects a local-iss token signed with the external key', async () => {
      const token = await signExternal({}, { iss: LOCAL_ISSUER, aud: LOCAL_AUDIENCE });
      await rejection(verifier.verify(token), 'Token signing algorithm is not accepted');
    });

    it('rejects a local-iss token signed by another ES256 key', async () => {
      const impostor = createLocalIssuer({ privateJwk: await generateSigningKey(), issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE });
      const { token } = await impostor.issueAccessToken({ sub: 'local-1', email: 'l@example.com' });
      await rejection(verifier.verify(token), 'Token was signed by an unknown key');
    });

    it('rejects external tokens when only the local issuer is configured', async () => {
      const localOnly = createJwtVerifier({ localIssuer });
      await rejection(localOnly.verify(await signExternal()), 'Token issuer is not trusted');
    });

    it('rejects an expired local token using the injected clock', async () => {
      const { token, expiresAt } = await localIssuer.issueAccessToken({ sub: 'local-2', email: 'm@example.com' });
      const later = createJwtVerifier({
        localIssuer,
        clockToleranceSeconds: 0,
        clock: { now: () => new Date(expiresAt.getTime() + 1000) },
      });
      await rejection(later.verify(token), 'Token has expired');
    });
  });

  describe('input and configuration', () => {
    it('rejects garbage input', async () => {
      for (const token of ['', 'abc', 'a.b.c', 'a.b', '...', 'x'.repeat(20_000), `${b64url({ alg: 'RS256' })}.notjson.sig`]) {
        await rejection(verifier.verify(token));
      }
      await rejection(verifier.verify(undefined as unknown as string));
    });

    it('rejects everything when no issuer is configured', async () => {
      await rejection(createJwtVerifier({}).verify(await signExternal()), 'Token issuer is not trusted');
    });

    it('validates configuration', () => {
      expect(() => createJwtVerifier({ external: { jwksUrl: 'http://idp.example.com/jwks', issuer: EXT_ISSUER } })).toThrow(
        /https/,
      );
      expect(() => createJwtVerifier({ external: { jwksUrl: 'not a url', issuer: EXT_ISSUER } })).toThrow(TypeError);
      expect(() => createJwtVerifier({ external: { jwksUrl: 'https://idp.example.com/jwks', issuer: '' } })).toThrow(TypeError);
      expect(() => createJwtVerifier({ localIssuer, external: { jwksUrl, issuer: LOCAL_ISSUER } })).toThrow(TypeError);
      expect(() => createJwtVerifier({ localIssuer, clockToleranceSeconds: -1 })).toThrow(TypeError);
      expect(() => createJwtVerifier({ external: { jwksUrl: 'https://idp.example.com/jwks', issuer: EXT_ISSUER } })).not.toThrow();
    });
  });
});
