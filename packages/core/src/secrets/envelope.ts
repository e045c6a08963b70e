import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { AppError } from '../errors.ts';
import { KeyUnwrapError, SEALED_VERSION, type DataKeys, type SealedSecret, type SecretCipher, type SecretContext } from '../ports/secret-cipher.ts';

/**
 * The envelope both adapters share: a fresh data key per value from `keys`, the value
 * encrypted with it (AES-256-GCM, 96-bit random IV, 128-bit tag), the context as the
 * additional authenticated data. The data key's bytes are zeroed once used. Whatever
 * fails, the error names the field and the record and says why, never the value or the
 * ciphertext.
 */
export function envelopeCipher(keys: DataKeys): SecretCipher {
  return {
    keyId: keys.keyId,
    async seal(plaintext, context) {
      const pairs = contextPairs(context);
      const key = await keys.generate(pairs);
      try {
        const iv = randomBytes(12);
        const cipher = createCipheriv('aes-256-gcm', key.plaintext, iv);
        cipher.setAAD(aad(pairs, key.keyId));
        const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
        return { svc_sealed: SEALED_VERSION, alg: 'AES-256-GCM', kid: key.keyId, dk: key.wrapped, iv: iv.toString('base64'), ct: ct.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
      } finally {
        key.plaintext.fill(0);
      }
    },

    async open(sealed, context) {
      const fail = (reason: string) => secretUnreadable(context, reason);
      if (sealed.svc_sealed !== SEALED_VERSION || sealed.alg !== 'AES-256-GCM') throw fail(`sealed format ${String(sealed.svc_sealed)}/${String(sealed.alg)} is not one this version reads`);
      const pairs = contextPairs(context);
      let dataKey: Uint8Array;
      try {
        dataKey = await keys.unwrap(sealed.dk, sealed.kid, pairs);
      } catch (err) {
        throw fail(err instanceof KeyUnwrapError ? err.reason : `the key service failed (${(err as Error).name})`);
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', dataKey, Buffer.from(sealed.iv, 'base64'));
        decipher.setAAD(aad(pairs, sealed.kid));
        decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
        return Buffer.concat([decipher.update(Buffer.from(sealed.ct, 'base64')), decipher.final()]).toString('utf8');
      } catch {
        throw fail('the value does not authenticate (changed, or not sealed for this record)');
      } finally {
        dataKey.fill(0);
      }
    },
  };
}

/** The context as KMS EncryptionContext pairs (and, canonically ordered, the AAD). */
export function contextPairs(context: SecretContext): Record<string, string> {
  return { 'svc:organization': context.organizationId, 'svc:record': context.record, 'svc:field': context.field };
}

/** Canonical bytes of the context and key id: sorted pairs, JSON (names and values may hold any character). */
export function aad(pairs: Record<string, string>, keyId: string): Buffer {
  const sorted = Object.keys(pairs).sort().map((k) => [k, pairs[k]]);
  return Buffer.from(JSON.stringify([`svc-secret/${SEALED_VERSION}`, keyId, sorted]), 'utf8');
}

/** The one error for a value that does not open: names what, says why, and nothing of the value. */
export function secretUnreadable(context: SecretContext, reason: string): AppError {
  return new AppError('SECRET_UNREADABLE', `the stored secret ${context.field} of ${context.record} could not be opened: ${reason}`, { field: context.field, record: context.record });
}
