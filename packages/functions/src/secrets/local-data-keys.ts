import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { KeyUnwrapError, type DataKeys } from '@svc/core/ports/secret-cipher';
import { aad } from '@svc/core/secrets/envelope';

/** Length of the key-encryption key: AES-256. */
export const KEY_BYTES = 32;

/**
 * The local runtime's DataKeys: each data key is 32 random bytes, wrapped under the key
 * file's key-encryption key with AES-256-GCM, the record's context as AAD (so a wrapped
 * key copied to another record does not unwrap). The wrapped form is iv ‖ ciphertext ‖ tag.
 * The key id is a fingerprint of the key, so a value names the key it needs without the
 * file having to record anything.
 */
export function localDataKeys(kek: Uint8Array): DataKeys {
  if (kek.length !== KEY_BYTES) throw new Error(`a local secret key is ${KEY_BYTES} bytes, not ${kek.length}`);
  const keyId = localKeyId(kek);
  return {
    keyId,
    async generate(context) {
      const plaintext = randomBytes(KEY_BYTES);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', kek, iv);
      cipher.setAAD(aad(context, keyId));
      const wrapped = Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
      return { plaintext, wrapped: wrapped.toString('base64'), keyId };
    },
    async unwrap(wrapped, kid, context) {
      if (kid !== keyId) throw new KeyUnwrapError(`it was sealed under key ${kid}, and this server's secret key is ${keyId}`);
      const blob = Buffer.from(wrapped, 'base64');
      try {
        const decipher = createDecipheriv('aes-256-gcm', kek, blob.subarray(0, 12));
        decipher.setAAD(aad(context, keyId));
        decipher.setAuthTag(blob.subarray(blob.length - 16));
        return Buffer.concat([decipher.update(blob.subarray(12, blob.length - 16)), decipher.final()]);
      } catch {
        throw new KeyUnwrapError('its data key does not unwrap for this record (changed, or sealed for another record)');
      }
    },
  };
}

/** `local:` and 16 hex digits of a domain-separated SHA-256 of the key: names it, reveals nothing of it. */
export function localKeyId(kek: Uint8Array): string {
  return `local:${createHash('sha256').update('svc secret key id\0').update(kek).digest('hex').slice(0, 16)}`;
}
