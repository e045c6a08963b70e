/**
 * API keys: `svc_sk_` + 32 random bytes (base64url). Only the hash is stored; the full
 * key is shown to the user once at creation. `prefix` is kept for display/identification.
 */
import { createHash, randomBytes } from 'node:crypto';

export const apiKeyScopes = ['read', 'write', 'admin'] as const;
export type ApiKeyScope = (typeof apiKeyScopes)[number];

export const apiKeyPrefix = 'svc_sk_';
const KEY_BYTES = 32;
/** 32 bytes base64url-encoded without padding is always 43 characters. */
const ENCODED_LENGTH = 43;
const DISPLAY_PREFIX_LENGTH = 12;
const API_KEY_PATTERN = new RegExp(`^${apiKeyPrefix}[A-Za-z0-9_-]{${ENCODED_LENGTH}}$`);

export interface GeneratedApiKey {
  /** The secret; return it to the caller once and never store it. */
  key: string;
  /** SHA-256 hex of `key`; this is what gets stored and looked up. */
  hash: string;
  /** First 12 characters of `key`, safe to display ("svc_sk_AbCd…"). */
  prefix: string;
}

export function generateApiKey(): GeneratedApiKey {
  const key = apiKeyPrefix + randomBytes(KEY_BYTES).toString('base64url');
  return { key, hash: hashApiKey(key), prefix: key.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/**
 * SHA-256 hex of the full key. A fast, unsalted hash is the right choice here (unlike
 * passwords): the key carries 256 bits of randomness, so brute-forcing a leaked hash is
 * infeasible no matter how fast the hash is, and salting buys nothing against a search
 * space that large. Being deterministic also lets us look a key up by its hash in O(1)
 * on every request, where a slow KDF would add ~100 ms of CPU per API call.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Cheap syntactic check (prefix + length + alphabet) before any lookup. */
export function looksLikeApiKey(value: string): boolean {
  return typeof value === 'string' && API_KEY_PATTERN.test(value);
}

export function isApiKeyScope(value: unknown): value is ApiKeyScope {
  return typeof value === 'string' && (apiKeyScopes as readonly string[]).includes(value);
}
