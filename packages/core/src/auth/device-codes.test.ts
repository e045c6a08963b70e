import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateDeviceCode, generateUserCode, hashDeviceCode, normalizeUserCode, userCodeAlphabet } from './device-codes.ts';

describe('device codes', () => {
  it('a device code is 32 random bytes, stored as its SHA-256', () => {
    const { code, hash } = generateDeviceCode();
    expect(Buffer.from(code, 'base64url')).toHaveLength(32);
    expect(hash).toBe(createHash('sha256').update(code).digest('hex'));
    expect(hashDeviceCode(code)).toBe(hash);
    expect(new Set(Array.from({ length: 50 }, () => generateDeviceCode().code)).size).toBe(50);
  });

  it('a user code is two groups of four letters without vowels or look-alikes', () => {
    for (let i = 0; i < 200; i++) {
      const code = generateUserCode();
      expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    }
    expect(userCodeAlphabet).not.toMatch(/[AEIOUY01]/);
  });

  it('what a person types is read forgivingly: case, spaces and dashes do not matter', () => {
    expect(normalizeUserCode('bcdf-ghjk')).toBe('BCDF-GHJK');
    expect(normalizeUserCode(' BCDF GHJK ')).toBe('BCDF-GHJK');
    expect(normalizeUserCode('bcdfghjk')).toBe('BCDF-GHJK');
    expect(normalizeUserCode('BCDF-GHJ')).toBeUndefined(); // too short
    expect(normalizeUserCode('BCDF-GHJA')).toBeUndefined(); // a vowel is never in a code
    expect(normalizeUserCode('')).toBeUndefined();
  });
});
