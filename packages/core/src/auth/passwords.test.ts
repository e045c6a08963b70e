import { randomBytes, scryptSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  hashPassword,
  passwordNeedsRehash,
  passwordPolicyIssues,
  scryptParams,
  verifyPassword,
} from './passwords.ts';

describe('hashPassword / verifyPassword', () => {
  let stored: string;
  beforeAll(async () => {
    stored = await hashPassword('correct horse battery staple');
  });

  it('produces a self-describing scrypt string with N=2^15, r=8, p=1', () => {
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(scryptParams).toEqual({ N: 32768, r: 8, p: 1 });
  });

  it('verifies the right password and rejects a wrong one', async () => {
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('uses a random salt, so equal passwords hash differently', async () => {
    const again = await hashPassword('correct horse battery staple');
    expect(again).not.toBe(stored);
    expect(again.split('$')[4]).not.toBe(stored.split('$')[4]);
    expect(await verifyPassword('correct horse battery staple', again)).toBe(true);
  });

  it('rejects a tampered hash or salt', async () => {
    const parts = stored.split('$');
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    const badHash = [...parts.slice(0, 5), flip(parts[5])].join('$');
    const badSalt = [...parts.slice(0, 4), flip(parts[4]), parts[5]].join('$');
    expect(await verifyPassword('correct horse battery staple', badHash)).toBe(false);
    expect(await verifyPassword('correct horse battery staple', badSalt)).toBe(false);
  });

  it('returns false, never throws, for malformed stored strings', async () => {
    const salt = randomBytes(16).toString('base64url');
    const hash = randomBytes(32).toString('base64url');
    const malformed: unknown[] = [
      '',
      'scrypt',
      'not-a-hash',
      `bcrypt$32768$8$1$${salt}$${hash}`,
      `scrypt$32768$8$1$${salt}`,
      `scrypt$32768$8$1$${salt}$${hash}$extra`,
      `scrypt$32767$8$1$${salt}$${hash}`, // N not a power of two
      `scrypt$1073741824$8$1$${salt}$${hash}`, // N absurdly large (DoS attempt)
      `scrypt$32768$0$1$${salt}$${hash}`,
      `scrypt$32768$8$0$${salt}$${hash}`,
      `scrypt$32768$8$1000$${salt}$${hash}`,
      `scrypt$32768$-8$1$${salt}$${hash}`,
      `scrypt$32768$8.5$1$${salt}$${hash}`,
      `scrypt$0x8000$8$1$${salt}$${hash}`,
      `scrypt$32768$8$1$$${hash}`,
      `scrypt$32768$8$1$${salt}$`,
      `scrypt$32768$8$1$not+base64/url$${hash}`,
      `scrypt$32768$8$1$${salt}$${randomBytes(4).toString('base64url')}`, // hash too short
      `scrypt$32768$8$1$AA$${hash}`, // salt too short
      'x'.repeat(100_000),
      undefined,
      null,
      42,
      {},
    ];
    for (const value of malformed) {
      await expect(verifyPassword('password123', value as string)).resolves.toBe(false);
    }
    await expect(verifyPassword(undefined as unknown as string, await hashPassword('password123'))).resolves.toBe(false);
  });

  it('verifies hashes made with other (weaker) parameters and flags them for rehash', async () => {
    const salt = randomBytes(16);
    const key = scryptSync('legacy-password', salt, 32, { N: 2 ** 14, r: 8, p: 1 });
    const legacy = `scrypt$${2 ** 14}$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
    expect(await verifyPassword('legacy-password', legacy)).toBe(true);
    expect(await verifyPassword('legacy-passwort', legacy)).toBe(false);
    expect(passwordNeedsRehash(legacy)).toBe(true);
    expect(passwordNeedsRehash(stored)).toBe(false);
    expect(passwordNeedsRehash('garbage')).toBe(true);
  });

  it('normalises Unicode so composed and decomposed forms match', async () => {
    const composed = 'pa\u00dfw\u00f6rd-\u00e9t\u00e9';
    const decomposed = composed.normalize('NFD');
    expect(decomposed).not.toBe(composed);
    const h = await hashPassword(composed);
    expect(await verifyPassword(decomposed, h)).toBe(true);
  });
});

describe('passwordPolicyIssues', () => {
  it('accepts 8..256 characters', () => {
    expect(passwordPolicyIssues('12345678')).toEqual([]);
    expect(passwordPolicyIssues('a'.repeat(256))).toEqual([]);
  });

  it('rejects passwords shorter than 8 characters', () => {
    expect(passwordPolicyIssues('')).toEqual(['Password must be at least 8 characters']);
    expect(passwordPolicyIssues('1234567')).toEqual(['Password must be at least 8 characters']);
  });

  it('rejects passwords longer than 256 characters', () => {
    expect(passwordPolicyIssues('a'.repeat(257))).toEqual(['Password must be at most 256 characters']);
  });

  it('counts code points, not UTF-16 units', () => {
    // 4 emoji = 8 UTF-16 code units but only 4 characters.
    expect(passwordPolicyIssues('\u{1F600}'.repeat(4))).toHaveLength(1);
    expect(passwordPolicyIssues('\u{1F600}'.repeat(8))).toEqual([]);
  });
});
