/**
 * The behaviour every SecretCipher adapter must show (packages/core/src/ports/
 * secret-cipher.ts): the local key file's and KMS's, each through core's envelope. The
 * factory gives two ciphers under two different keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@svc/core/errors';
import type { SealedSecret, SecretCipher, SecretContext } from '@svc/core/ports/secret-cipher';

export interface CipherFixture {
  /** A cipher under one key … */
  a: SecretCipher;
  /** … and one under another. */
  b: SecretCipher;
  cleanup(): Promise<void>;
}

const context: SecretContext = { organizationId: 'org-1', record: 'ORG#org-1#PROJECT#p1#ENV/VAR#DB_PASSWORD', field: 'value' };
const VALUE = 'pässwörd ✓ s3cr3t-value';

/** Opening must fail with SECRET_UNREADABLE naming the field and record, and never echo the value or the ciphertext. */
async function expectUnreadable(open: Promise<string>, sealed: SealedSecret, reason?: RegExp, openedAs: SecretContext = context) {
  const err = await open.then(() => undefined, (e: unknown) => e);
  expect(err, 'opening should have failed').toBeInstanceOf(AppError);
  const e = err as AppError;
  expect(e.code).toBe('SECRET_UNREADABLE');
  expect(e.message).toContain(openedAs.field);
  expect(e.message).toContain(openedAs.record);
  if (reason) expect(e.message).toMatch(reason);
  for (const part of [VALUE, sealed.ct, sealed.dk, sealed.tag]) expect(e.message).not.toContain(part);
}

const flip = (b64: string) => {
  const bytes = Buffer.from(b64, 'base64');
  bytes[bytes.length - 1]! ^= 0x01;
  return bytes.toString('base64');
};

export function secretCipherConformance(name: string, make: () => Promise<CipherFixture>): void {
  describe(`SecretCipher conformance: ${name}`, () => {
    let f: CipherFixture;
    beforeAll(async () => {
      f = await make();
    });
    afterAll(async () => f?.cleanup());

    it('opens what it sealed, and the sealed form carries the version and key id but not the value', async () => {
      const sealed = await f.a.seal(VALUE, context);
      expect(sealed).toMatchObject({ svc_sealed: 1, alg: 'AES-256-GCM', kid: f.a.keyId });
      expect(JSON.stringify(sealed)).not.toContain(VALUE);
      expect(JSON.stringify(sealed)).not.toContain(Buffer.from(VALUE).toString('base64'));
      expect(await f.a.open(sealed, context)).toBe(VALUE);
    });

    it('seals the same value differently each time (a fresh data key and IV)', async () => {
      const [one, two] = await Promise.all([f.a.seal(VALUE, context), f.a.seal(VALUE, context)]);
      expect(one.ct).not.toBe(two.ct);
      expect(one.dk).not.toBe(two.dk);
      expect(one.iv).not.toBe(two.iv);
    });

    it('does not open a value under another organization, record or field', async () => {
      const sealed = await f.a.seal(VALUE, context);
      for (const other of [{ organizationId: 'org-2' }, { record: 'ORG#org-1#PROJECT#p1#ENV/VAR#OTHER' }, { field: 'url' }]) {
        const openedAs = { ...context, ...other };
        await expectUnreadable(f.a.open(sealed, openedAs), sealed, undefined, openedAs);
      }
    });

    it('does not open a value whose ciphertext, tag, IV or wrapped data key was changed', async () => {
      const sealed = await f.a.seal(VALUE, context);
      for (const part of ['ct', 'tag', 'iv', 'dk'] as const) {
        await expectUnreadable(f.a.open({ ...sealed, [part]: flip(sealed[part]) }, context), sealed);
      }
    });

    it('does not open a value sealed under another key, even when its key id is rewritten', async () => {
      const sealed = await f.a.seal(VALUE, context);
      expect(f.a.keyId).not.toBe(f.b.keyId);
      await expectUnreadable(f.b.open(sealed, context), sealed, new RegExp(escape(sealed.kid)));
      // The id check aside, the other key really cannot unwrap the data key.
      await expectUnreadable(f.b.open({ ...sealed, kid: f.b.keyId }, context), sealed);
    });

    it('refuses a sealed format it does not know', async () => {
      const sealed = await f.a.seal(VALUE, context);
      await expectUnreadable(f.a.open({ ...sealed, svc_sealed: 2 as 1 }, context), sealed, /format/);
    });

    it('round-trips the empty string and a 1 MB value', async () => {
      const empty = await f.a.seal('', context);
      expect(await f.a.open(empty, context)).toBe('');
      const large = 'x'.repeat(512 * 1024) + 'é'.repeat(256 * 1024); // 1 MiB of UTF-8
      expect(Buffer.byteLength(large)).toBe(1024 * 1024);
      const sealed = await f.a.seal(large, context);
      expect(await f.a.open(sealed, context)).toBe(large);
    });
  });
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
