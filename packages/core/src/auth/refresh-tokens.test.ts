import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateRefreshToken, hashRefreshToken } from './refresh-tokens.ts';

describe('generateRefreshToken', () => {
  it('returns 32 random bytes base64url and the SHA-256 hex of it', () => {
    const { token, hash } = generateRefreshToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(hashRefreshToken(token)).toBe(hash);
  });

  it('is opaque (not a JWT) and unique', () => {
    const tokens = new Set(Array.from({ length: 100 }, () => generateRefreshToken().token));
    expect(tokens.size).toBe(100);
    for (const t of tokens) expect(t.includes('.')).toBe(false);
  });
});
