import { KMSClient } from '@aws-sdk/client-kms';
import type { SecretCipher } from '@svc/core/ports/secret-cipher';
import { envelopeCipher } from '@svc/core/secrets/envelope';
import { kmsDataKeys } from './kms-data-keys.ts';

/** The cipher of every AWS function (API, schedules, run graph tasks): envelope encryption under the configured KMS key. */
export function kmsSecretCipher(config: { region: string; kmsKeyId: string }): SecretCipher {
  return envelopeCipher(kmsDataKeys({ client: new KMSClient({ region: config.region }), keyId: config.kmsKeyId }));
}
