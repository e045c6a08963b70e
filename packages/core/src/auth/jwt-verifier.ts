/**
 * Verifies bearer JWTs from the built-in local issuer and/or one external OIDC-style
 * issuer (whose keys are fetched from its JWKS URL and cached).
 *
 * The unverified `iss` claim is read only to pick which key set to check the signature
 * against; the issuer is then verified again by jose together with the signature, `aud`,
 * `exp` and `nbf`. Only asymmetric algorithms are accepted: `alg: none` and HS* are
 * rejected explicitly (HS* would let anyone holding a public key forge tokens if a key
 * set ever exposed one as a secret).
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { AppError } from '../errors.ts';
import type { Clock } from '../ports/clock.ts';
import type { LocalIssuer } from './local-issuer.ts';

export interface VerifiedIdentity {
  /** The token's `sub`. */
  userId: string;
  email?: string;
  name?: string;
  /** The (verified) `iss` the token came from. */
  issuer: string;
  /** The agent the user let act for them (`svc_agent`: a device-flow token); such a token is an agent credential. */
  agent?: string;
  /** The grant the person gave that agent (`svc_grant`): revoking it ends the token. */
  agentGrant?: string;
}

/** The claim naming the agent of a device-flow token. Private (not `client_id`: other issuers put that on every token). */
export const agentClaim = 'svc_agent';
export const agentGrantClaim = 'svc_grant';

/** Asymmetric JWS algorithms we accept from any issuer. Never `none`, never HS*. */
export const allowedJwtAlgorithms = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

export const defaultClockToleranceSeconds = 30;

/** Tokens longer than this are rejected before any parsing. */
const MAX_TOKEN_LENGTH = 16 * 1024;

export interface ExternalIssuerConfig {
  /** Where the issuer publishes its JWKS. Must be https, except on loopback (local dev/tests). */
  jwksUrl: string;
  /** Expected `iss`, exactly. */
  issuer: string;
  /** Expected `aud`. When omitted the audience is not checked (some IdPs' access tokens carry none). */
  audience?: string;
}

export interface JwtVerifierOptions {
  localIssuer?: LocalIssuer;
  external?: ExternalIssuerConfig;
  /** Allowed clock skew for exp/nbf/iat. Default 30. */
  clockToleranceSeconds?: number;
  /** Time source for exp/nbf checks; defaults to the system clock. */
  clock?: Clock;
}

export interface JwtVerifier {
  verify(token: string): Promise<VerifiedIdentity>;
}

export function invalidToken(message: string): AppError {
  return new AppError('INVALID_TOKEN', message);
}

/** Options for {@link verifyJwtWithKeys}; shared by the verifier and the local issuer. */
export interface VerifyJwtOptions {
  issuer: string;
  audience?: string;
  algorithms: readonly string[];
  clockToleranceSeconds: number;
  clock?: Clock;
  /** Drop `email` when the token says `email_verified: false`. */
  ignoreUnverifiedEmail?: boolean;
}

/**
 * Parses the protected header and rejects unsigned/symmetric/unknown algorithms before
 * any key lookup happens. Throws INVALID_TOKEN.
 */
function checkHeader(token: string, algorithms: readonly string[]): void {
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    throw invalidToken('Token is malformed');
  }
  if (typeof alg !== 'string') throw invalidToken('Token is malformed');
  if (alg.toLowerCase() === 'none') throw invalidToken('Unsigned tokens are not accepted');
  if (/^HS\d+$/i.test(alg)) throw invalidToken('Symmetrically signed (HS*) tokens are not accepted');
  if (!algorithms.includes(alg)) throw invalidToken('Token signing algorithm is not accepted');
}

/** Translates jose's errors into INVALID_TOKEN with messages that say what, not how. */
function translateError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof errors.JWTExpired) return invalidToken('Token has expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    switch (err.claim) {
      case 'iss':
        return invalidToken('Token issuer is not trusted');
      case 'aud':
        return invalidToken('Token audience is not accepted');
      case 'nbf':
        return invalidToken('Token is not yet valid');
      case 'iat':
        return invalidToken('Token issue time is invalid');
      case 'exp':
        return invalidToken('Token has no valid expiry');
      case 'sub':
        return invalidToken('Token has no subject');
      default:
        return invalidToken('Token claims are invalid');
    }
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) return invalidToken('Token signature is invalid');
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) {
    return invalidToken('Token was signed by an unknown key');
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return invalidToken('Token signing algorithm is not accepted');
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid) return invalidToken('Token is malformed');
  // Key-set fetch failures, timeouts, unsupported keys, anything else: don't leak details.
  return invalidToken('Token could not be verified');
}

function identityFrom(payload: JWTPayload, opts: VerifyJwtOptions): VerifiedIdentity {
  const { sub, iss } = payload;
  if (typeof sub !== 'string' || sub.length === 0) throw invalidToken('Token has no subject');
  if (typeof iss !== 'string') throw invalidToken('Token issuer is not trusted');
  const identity: VerifiedIdentity = { userId: sub, issuer: iss };
  const email = payload.email;
  if (typeof email === 'string' && email.length > 0) {
    if (!(opts.ignoreUnverifiedEmail && payload.email_verified === false)) identity.email = email;
  }
  const name = payload.name;
  if (typeof name === 'string' && name.length > 0) identity.name = name;
  const agent = payload[agentClaim];
  if (typeof agent === 'string' && agent.length > 0) identity.agent = agent;
  const grant = payload[agentGrantClaim];
  if (typeof grant === 'string' && grant.length > 0) identity.agentGrant = grant;
  return identity;
}

/**
 * Verifies `token` against `keys` (signature, algorithm allow-list, iss, aud, exp, nbf)
 * and maps it to a {@link VerifiedIdentity}. Every failure is an INVALID_TOKEN AppError.
 */
export async function verifyJwtWithKeys(
  token: string,
  keys: JWTVerifyGetKey,
  opts: VerifyJwtOptions,
): Promise<VerifiedIdentity> {
  if (typeof token !== 'string' || token.length === 0) throw invalidToken('Token is missing');
  if (token.length > MAX_TOKEN_LENGTH) throw invalidToken('Token is malformed');
  checkHeader(token, opts.algorithms);
  try {
    const { payload } = await jwtVerify(token, keys, {
      issuer: opts.issuer,
      audience: opts.audience,
      algorithms: [...opts.algorithms],
      clockTolerance: opts.clockToleranceSeconds,
      currentDate: opts.clock?.now(),
      requiredClaims: ['exp', 'sub'],
    });
    return identityFrom(payload, opts);
  } catch (err) {
    throw translateError(err);
  }
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function parseJwksUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TypeError('external.jwksUrl is not a valid URL');
  }
  const loopback = LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new TypeError('external.jwksUrl must use https (plain http is only allowed on loopback)');
  }
  return url;
}

export function createJwtVerifier(opts: JwtVerifierOptions): JwtVerifier {
  const clockToleranceSeconds = opts.clockToleranceSeconds ?? defaultClockToleranceSeconds;
  if (!Number.isFinite(clockToleranceSeconds) || clockToleranceSeconds < 0) {
    throw new TypeError('clockToleranceSeconds must be a non-negative number');
  }
  const { localIssuer, external, clock } = opts;
  if (localIssuer && external && localIssuer.issuer === external.issuer) {
    throw new TypeError('The local and external issuers must have different `iss` values');
  }
  if (external && (typeof external.issuer !== 'string' || external.issuer.length === 0)) {
    throw new TypeError('external.issuer is required');
  }

  const local = localIssuer && {
    keys: createLocalJWKSet(localIssuer.publicJwks()),
    options: {
      issuer: localIssuer.issuer,
      audience: localIssuer.audience,
      algorithms: ['ES256'],
      clockToleranceSeconds,
      clock,
    } satisfies VerifyJwtOptions,
  };

  // createRemoteJWKSet fetches lazily on first use, caches the set (10 min), and refetches
  // (rate-limited) when it sees an unknown `kid`, so key rotation at the IdP just works.
  const remote = external && {
    keys: createRemoteJWKSet(parseJwksUrl(external.jwksUrl)),
    options: {
      issuer: external.issuer,
      audience: external.audience,
      algorithms: allowedJwtAlgorithms,
      clockToleranceSeconds,
      clock,
      ignoreUnverifiedEmail: true,
    } satisfies VerifyJwtOptions,
  };

  return {
    async verify(token: string): Promise<VerifiedIdentity> {
      if (typeof token !== 'string' || token.length === 0) throw invalidToken('Token is missing');
      if (token.length > MAX_TOKEN_LENGTH) throw invalidToken('Token is malformed');
      // Unverified read, used only to route to the right key set.
      let iss: unknown;
      try {
        iss = decodeJwt(token).iss;
      } catch {
        throw invalidToken('Token is malformed');
      }
      if (local && iss === local.options.issuer) return verifyJwtWithKeys(token, local.keys, local.options);
      if (remote && iss === remote.options.issuer) return verifyJwtWithKeys(token, remote.keys, remote.options);
      throw invalidToken('Token issuer is not trusted');
    },
  };
}
