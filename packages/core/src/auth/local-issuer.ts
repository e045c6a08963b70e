/**
 * The built-in JWT issuer for self-hosted installs: short-lived ES256 access tokens,
 * signed with a key the operator generates once ({@link generateSigningKey}) and keeps
 * secret. Its public half is published via {@link LocalIssuer.publicJwks} so anything
 * can verify our tokens. Refresh tokens are opaque (see refresh-tokens.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  importJWK,
  SignJWT,
  type JWK,
} from 'jose';
import { AppError } from '../errors.ts';
import { systemClock, type Clock } from '../ports/clock.ts';
import {
  defaultClockToleranceSeconds,
  verifyJwtWithKeys,
  agentClaim,
  agentGrantClaim,
  type VerifiedIdentity,
  type VerifyJwtOptions,
} from './jwt-verifier.ts';

export type { JWK } from 'jose';

export const localIssuerAlgorithm = 'ES256';
export const defaultAccessTtlSeconds = 900;

export interface LocalIssuerOptions {
  /** Private P-256 JWK (from {@link generateSigningKey}). A missing `kid` is derived as its thumbprint. */
  privateJwk: JWK;
  /** Value of `iss`, e.g. the public base URL of this install. */
  issuer: string;
  /** Value of `aud`. */
  audience: string;
  /** Access-token lifetime. Default 900 (15 minutes). */
  accessTtlSeconds?: number;
  /** Time source for `iat`/`exp` and for verification; defaults to the system clock. */
  clock?: Clock;
}

export interface AccessTokenClaims {
  sub: string;
  email: string;
  name?: string;
  /** The agent acting for the user (OAuth device flow) and its grant: the `svc_agent` and `svc_grant` claims. */
  agent?: { clientId: string; grantId: string };
}

export interface IssuedAccessToken {
  token: string;
  expiresAt: Date;
}

export interface LocalIssuer {
  readonly issuer: string;
  readonly audience: string;
  issueAccessToken(claims: AccessTokenClaims): Promise<IssuedAccessToken>;
  /** The public verification key(s), suitable for serving at /.well-known/jwks.json. */
  publicJwks(): { keys: JWK[] };
  verify(token: string): Promise<VerifiedIdentity>;
}

/** A fresh ES256 signing key as a private JWK, with `kid` = its RFC 7638 thumbprint. */
export async function generateSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(localIssuerAlgorithm, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk, 'sha256');
  return { ...jwk, kid, alg: localIssuerAlgorithm, use: 'sig' };
}

/** RFC 7638 SHA-256 thumbprint of an EC public key (same result as jose's calculateJwkThumbprint). */
export function ecJwkThumbprint(jwk: Pick<JWK, 'crv' | 'kty' | 'x' | 'y'>): string {
  // Required members only, in lexicographic order, no whitespace.
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical, 'utf8').digest('base64url');
}

function assertPrivateEcJwk(jwk: JWK): asserts jwk is JWK & { crv: string; x: string; y: string; d: string } {
  const ok =
    jwk !== null &&
    typeof jwk === 'object' &&
    jwk.kty === 'EC' &&
    jwk.crv === 'P-256' &&
    typeof jwk.x === 'string' &&
    typeof jwk.y === 'string' &&
    typeof jwk.d === 'string' &&
    (jwk.alg === undefined || jwk.alg === localIssuerAlgorithm);
  if (!ok) throw new TypeError('privateJwk must be a private EC P-256 (ES256) JWK');
}

export function createLocalIssuer(opts: LocalIssuerOptions): LocalIssuer {
  const { privateJwk, issuer, audience } = opts;
  assertPrivateEcJwk(privateJwk);
  if (typeof issuer !== 'string' || issuer.length === 0) throw new TypeError('issuer is required');
  if (typeof audience !== 'string' || audience.length === 0) throw new TypeError('audience is required');
  const ttl = opts.accessTtlSeconds ?? defaultAccessTtlSeconds;
  if (!Number.isInteger(ttl) || ttl <= 0) throw new TypeError('accessTtlSeconds must be a positive integer');
  const clock = opts.clock ?? systemClock;

  const kid = typeof privateJwk.kid === 'string' && privateJwk.kid.length > 0 ? privateJwk.kid : ecJwkThumbprint(privateJwk);
  // Only public members: never let `d` (or anything else unexpected) leak into the JWKS.
  const publicJwk: JWK = {
    kty: 'EC',
    crv: privateJwk.crv,
    x: privateJwk.x,
    y: privateJwk.y,
    kid,
    alg: localIssuerAlgorithm,
    use: 'sig',
  };
  const keySet = createLocalJWKSet({ keys: [publicJwk] });
  const verifyOptions: VerifyJwtOptions = {
    issuer,
    audience,
    algorithms: [localIssuerAlgorithm],
    clockToleranceSeconds: defaultClockToleranceSeconds,
    clock,
  };

  // importJWK is async; import once, on first use.
  let signingKey: ReturnType<typeof importJWK> | undefined;
  const getSigningKey = () => {
    signingKey ??= importJWK({ ...privateJwk, alg: localIssuerAlgorithm }, localIssuerAlgorithm);
    return signingKey;
  };

  return {
    issuer,
    audience,

    async issueAccessToken(claims: AccessTokenClaims): Promise<IssuedAccessToken> {
      if (typeof claims?.sub !== 'string' || claims.sub.length === 0) {
        throw new AppError('INTERNAL', 'Cannot issue an access token without a subject');
      }
      const iat = Math.floor(clock.now().getTime() / 1000);
      const exp = iat + ttl;
      const payload: Record<string, string> = { email: claims.email };
      if (claims.name !== undefined) payload.name = claims.name;
      if (claims.agent !== undefined) {
        payload[agentClaim] = claims.agent.clientId;
        payload[agentGrantClaim] = claims.agent.grantId;
      }
      const token = await new SignJWT(payload)
        .setProtectedHeader({ alg: localIssuerAlgorithm, kid, typ: 'JWT' })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(claims.sub)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .setJti(randomUUID())
        .sign(await getSigningKey());
      return { token, expiresAt: new Date(exp * 1000) };
    },

    publicJwks(): { keys: JWK[] } {
      return { keys: [{ ...publicJwk }] };
    },

    verify(token: string): Promise<VerifiedIdentity> {
      return verifyJwtWithKeys(token, keySet, verifyOptions);
    },
  };
}
