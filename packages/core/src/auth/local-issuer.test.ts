import { calculateJwkThumbprint, createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import type { Clock } from '../ports/clock.ts';
import { createLocalIssuer, ecJwkThumbprint, generateSigningKey } from './local-issuer.ts';

const ISSUER = 'https://svc.example.test';
const AUDIENCE = 'svc-api';

async function rejection(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => {
      throw new Error('expected the promise to reject');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe('INVALID_TOKEN');
  return err as AppError;
}

function fixedClock(initial: Date): Clock & { set(d: Date): void } {
  let now = initial;
  return { now: () => now, set: (d) => (now = d) };
}

describe('generateSigningKey', () => {
  it('returns a private ES256 JWK whose kid is its RFC 7638 thumbprint', async () => {
    const jwk = await generateSigningKey();
    expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    expect(typeof jwk.d).toBe('string');
    expect(typeof jwk.x).toBe('string');
    expect(typeof jwk.y).toBe('string');
    expect(jwk.kid).toBe(await calculateJwkThumbprint(jwk, 'sha256'));
    expect(ecJwkThumbprint(jwk)).toBe(jwk.kid);
    const other = await generateSigningKey();
    expect(other.kid).not.toBe(jwk.kid);
    expect(other.d).not.toBe(jwk.d);
  });
});

describe('createLocalIssuer', () => {
  let privateJwk: JWK;
  beforeAll(async () => {
    privateJwk = await generateSigningKey();
  });

  it('issues ES256 access tokens that it can verify', async () => {
    const issuer = createLocalIssuer({ privateJwk, issuer: ISSUER, audience: AUDIENCE });
    expect(issuer.issuer).toBe(ISSUER);
    const before = Math.floor(Date.now() / 1000);
    const { token, expiresAt } = await issuer.issueAccessToken({ sub: 'user-1', email: 'a@example.com', name: 'Ada' });

    const header = decodeProtectedHeader(token);
    expect(header).toMatchObject({ alg: 'ES256', kid: privateJwk.kid, typ: 'JWT' });
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ iss: ISSUER, aud: AUDIENCE, sub: 'user-1', email: 'a@example.com', name: 'Ada' });
    expect(claims.exp! - claims.iat!).toBe(900);
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(typeof claims.jti).toBe('string');
    expect(expiresAt.getTime()).toBe(claims.exp! * 1000);

    await expect(issuer.verify(token)).resolves.toEqual({
      userId: 'user-1',
      email: 'a@example.com',
      name: 'Ada',
      issuer: ISSUER,
    });
  });

  it('omits name when not given and honours accessTtlSeconds', async () => {
    const issuer = createLocalIssuer({ privateJwk, issuer: ISSUER, audience: AUDIENCE, accessTtlSeconds: 60 });
    const { token } = await issuer.issueAccessToken({ sub: 'user-2', email: 'b@example.com' });
    const claims = decodeJwt(token);
    expect(claims.exp! - claims.iat!).toBe(60);
    expect('name' in claims).toBe(false);
    expect(await issuer.verify(token)).toEqual({ userId: 'user-2', email: 'b@example.com', issuer: ISSUER });
  });

  it('publishes only the public key, usable by any JOSE library', async () => {
    const issuer = createLocalIssuer({ privateJwk, issuer: ISSUER, audience: AUDIENCE });
    const jwks = issuer.publicJwks();
    expect(jwks.keys).toHaveLength(1);
    const [key] = jwks.keys;
    expect(key).toEqual({
      kty: 'EC',
      crv: 'P-256',
      x: privateJwk.x,
      y: privateJwk.y,
      kid: privateJwk.kid,
      alg: 'ES256',
      use: 'sig',
    });
    expect('d' in key).toBe(false);
    // Mutating the returned object must not affect the issuer.
    key.kid = 'mutated';
    expect(issuer.publicJwks().keys[0].kid).toBe(privateJwk.kid);

    const { token } = await issuer.issueAccessToken({ sub: 'user-3', email: 'c@example.com' });
    const { payload } = await jwtVerify(token, createLocalJWKSet(issuer.publicJwks()), {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['ES256'],
    });
    expect(payload.sub).toBe('user-3');
  });

  it('derives the kid from the thumbprint when the JWK has none', async () => {
    const { kid, ...withoutKid } = privateJwk;
    const issuer = createLocalIssuer({ privateJwk: withoutKid, issuer: ISSUER, audience: AUDIENCE });
    expect(issuer.publicJwks().keys[0].kid).toBe(kid);
    const { token } = await issuer.issueAccessToken({ sub: 'u', email: 'u@example.com' });
    expect(decodeProtectedHeader(token).kid).toBe(kid);
  });

  it('rejects expired tokens (beyond clock tolerance) using the injected clock', async () => {
    const clock = fixedClock(new Date('2030-01-01T00:00:00Z'));
    const issuer = createLocalIssuer({ privateJwk, issuer: ISSUER, audience: AUDIENCE, accessTtlSeconds: 60, clock });
    const { token, expiresAt } = await issuer.issueAccessToken({ sub: 'user-4', email: 'd@example.com' });
    expect(expiresAt.toISOString()).toBe('2030-01-01T00:01:00.000Z');

    clock.set(new Date('2030-01-01T00:01:20Z')); // within the 30 s tolerance
    await expect(issuer.verify(token)).resolves.toMatchObject({ userId: 'user-4' });

    clock.set(new Date('2030-01-01T00:02:00Z'));
    const err = await rejection(issuer.verify(token));
    expect(err.message).toBe('Token has expired');
  });

  it('rejects tokens from a different key, issuer or audience', async () => {
    const issuer = createLocalIssuer({ privateJwk, issuer: ISSUER, audience: AUDIENCE });
    const otherKey = createLocalIssuer({ privateJwk: await generateSigningKey(), issuer: ISSUER, audience: AUDIENCE });
    const otherIss = createLocalIssuer({ privateJwk, issuer: 'https://evil.example', audience: AUDIENCE });
    const otherAud = createLocalIssuer({ privateJwk, issuer: ISSUER, audience: 'other-api' });
    const claims = { sub: 'user-5', email: 'e@example.com' };

    expect((await rejection(issuer.verify((await otherKey.issueAccessToken(claims)).token))).message).toBe(
      'Token was signed by an unknown key',
    );
    expect((await rejection(issuer.verify((await otherIss.issueAccessToken(claims)).token))).message).toBe(
      'Token issuer is not trusted',
    );
    expect((await rejection(issuer.verify((await otherAud.issueAccessToken(claims)).token))).message).toBe(
      'Token audience is not accepted',
    );
    await rejection(issuer.verify('not-a-token'));
    await rejection(issuer.verify(''));
  });

  it('validates its configuration', async () => {
    const { d: _d, ...publicOnly } = privateJwk;
    expect(() => createLocalIssuer({ privateJwk: publicOnly, issuer: ISSUER, audience: AUDIENCE })).toThrow(TypeError);
    expect(() =>
      createLocalIssuer({ privateJwk: { ...privateJwk, crv: 'P-384' }, issuer: ISSUER, audience: AUDIENCE }),
    ).toThrow(TypeError);
    expect(() =>
      createLocalIssuer({ privateJwk: { ...privateJwk, alg: 'HS256' }, issuer: ISSUER, audience: AUDIENCE }),
    ).toThrow(TypeError);
    expect(() => createLocalIssuer({ privateJwk, issuer: '', audience: AUDIENCE })).toThrow(TypeError);
    expect(() => createLocalIssuer({ privateJwk, issuer: ISSUER, audience: '' })).toThrow(TypeError);
    expect(() => createLocalIssuer({ privateJwk, issuer: ISSUER, audience: AUDIENCE, accessTtlSeconds: 0 })).toThrow(
      TypeError,
    );
    const issuer = createLocalIssuer({ privateJwk, issuer: ISSUER, audience: AUDIENCE });
    await expect(issuer.issueAccessToken({ sub: '', email: 'x@example.com' })).rejects.toBeInstanceOf(AppError);
  });
});
