import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import { KeyUnwrapError, type DataKeys } from '@svc/core/ports/secret-cipher';

/**
 * DataKeys on AWS KMS: GenerateDataKey (AES_256) for each sealed value, Decrypt to open
 * it, the record's context as KMS EncryptionContext (so KMS itself refuses a data key
 * copied to another record, and CloudTrail shows which record each call was for).
 *
 * Envelope, not Encrypt/Decrypt of the value itself: values may exceed KMS's 4 KB
 * plaintext limit (a secret variable holds a certificate or a JSON key file), and the
 * sealed format is then the same as the local runtime's. Either way it is one KMS call per
 * seal and per open.
 *
 * `keyId` must be the key's ARN (infra passes it): it is what GenerateDataKey answers as
 * KeyId, so the `kid` a value records compares equal to it. Decrypt names the key
 * (KeyId), so a blob from another key fails there too (IncorrectKeyException).
 */
export function kmsDataKeys({ client, keyId }: { client: KMSClient; keyId: string }): DataKeys {
  return {
    keyId,
    async generate(context) {
      const out = await client.send(new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: context }));
      if (!out.Plaintext || !out.CiphertextBlob) throw new Error('KMS GenerateDataKey answered without a key');
      return { plaintext: out.Plaintext, wrapped: Buffer.from(out.CiphertextBlob).toString('base64'), keyId: out.KeyId ?? keyId };
    },
    async unwrap(wrapped, kid, context) {
      if (kid !== keyId) throw new KeyUnwrapError(`it was sealed under KMS key ${kid}, and this function is configured with ${keyId}`);
      try {
        const out = await client.send(new DecryptCommand({ CiphertextBlob: Buffer.from(wrapped, 'base64'), KeyId: kid, EncryptionContext: context }));
        if (!out.Plaintext) throw new Error('KMS Decrypt answered without a key');
        return out.Plaintext;
      } catch (err) {
        // The error's name says what KMS refused (InvalidCiphertextException, IncorrectKeyException, AccessDeniedException...).
        throw new KeyUnwrapError(`KMS refused its data key (${(err as Error).name})`);
      }
    },
  };
}
