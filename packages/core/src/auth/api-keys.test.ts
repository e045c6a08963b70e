import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { apiKeyScopes, generateApiKey, hashApiKey, isApiKeyScope, looksLikeApiKey } from './api-keys.ts';

describe('generateApiKey', () => {
  it('returns svc_sk_ + 32 random bytes base64url, its SHA-256 hex, and a 12-char prefix', () => {
    const { key, hash, prefix } = generateApiKey();
    expect(key).toMatch(/^svc_sk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice('svc_sk_'.length), 'base64url')).toHaveLength(32);
    expect(hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(prefix).toBe(key.slice(0, 12));
    expect(prefix.startsWith('svc_sk_')).toBe(true);
  });

  it('generates distinct keys', () => {
    const keys = new Set(Array.from({ length: 100 }, () => generateApiKey().key));
    expect(keys.size).toBe(100);
  });
});

describe('hashApiKey', () => {
  it('is deterministic and matches the hash from generateApiKey', () => {
    const { key, hash } = generateApiKey();
    expect(hashApiKey(key)).toBe(hash);
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(hashApiKey(key + 'x')).not.toBe(hash);
  });
});

describe('looksLikeApiKey', () => {
  it('accepts generated keys', () => {
    expect(looksLikeApiKey(generateApiKey().key)).toBe(true);
  });

  it('rejects other strings', () => {
    const { key } = generateApiKey();
    for (const value of [
      '',
      'svc_sk_',
      key.slice(0, -1),
      key + 'A',
      key.replace('svc_sk_', 'svc_pk_'),
      key.slice(0, -1) + '+',
      'Bearer ' + key,
      'eyJhbGciOiJFUzI1NiJ9.e30.sig',
    ]) {
      expect(looksLikeApiKey(value)).toBe(false);
    }
    expect(looksLikeApiKey(undefined as unknown as string)).toBe(false);
  });
});

describe('apiKeyScopes', () => {
  it('lists read, write, admin', () => {
    expect(apiKeyScopes).toEqual(['read', 'write', 'admin']);
    expect(isApiKeyScope('write')).toBe(true);
    expect(isApiKeyScope('root')).toBe(false);
  });
});
