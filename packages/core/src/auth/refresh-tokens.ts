/**
 * Refresh tokens are opaque random strings, not JWTs: they are only ever checked by us,
 * against a stored hash, so they can be revoked by deleting the record. As with API keys,
 * the token has 256 bits of entropy, so a fast SHA-256 hash is sufficient for storage.
 */
import { createHash, randomBytes } from 'node:crypto';

const TOKEN_BYTES = 32;

export interface GeneratedRefreshToken {
  /** Give to the client once; never store. */
  token: string;
  /** SHA-256 hex of `token`; store and look up by this. */
  hash: string;
}

export function generateRefreshToken(): GeneratedRefreshToken {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  return { token, hash: hashRefreshToken(token) };
}

export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
