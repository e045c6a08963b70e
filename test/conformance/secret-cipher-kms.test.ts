import { KMSClient } from '@aws-sdk/client-kms';
import { describe, expect, it } from 'vitest';
import { envelopeCipher } from '@svc/core/secrets/envelope';
import { kmsDataKeys } from '../../packages/functions/src/secrets/kms-data-keys.ts';
import { startKmsDouble, type KmsDouble } from '../support/kms-double.ts';
import { secretCipherConformance } from './secret-cipher.conformance.ts';

const KEY_A = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const KEY_B = 'arn:aws:kms:eu-west-1:123456789012:key/0987dcba-09fe-87dc-65ba-ab0987654321';

let kms: KmsDouble;
let clients: KMSClient[] = [];
const cipher = (keyId: string) => {
  const client = new KMSClient(kms.clientConfig);
  clients.push(client);
  return envelopeCipher(kmsDataKeys({ client, keyId }));
};

// Through the real SDK client, against the KMS wire-format double (two keys of one account).
secretCipherConformance('AWS KMS (wire-format double)', async () => {
  kms = await startKmsDouble([KEY_A, KEY_B]);
  return {
    a: cipher(KEY_A),
    b: cipher(KEY_B),
    cleanup: async () => {
      for (const c of clients) c.destroy();
      clients = [];
      await kms.close();
    },
  };
});

describe('KMS adapter on the wire', () => {
  it('calls GenerateDataKey and Decrypt with the key, AES_256 and the record as EncryptionContext, in AWS JSON 1.1', async () => {
    kms = await startKmsDouble([KEY_A]);
    try {
      const c = cipher(KEY_A);
      const context = { organizationId: 'org-1', record: 'ORG#org-1/NOTIFYCH#c1', field: 'url' };
      expect(await c.open(await c.seal('https://hooks.slack.com/services/T0/B0/XYZ', context), context)).toBe('https://hooks.slack.com/services/T0/B0/XYZ');
      expect(kms.requests.map((r) => r.target)).toEqual(['TrentService.GenerateDataKey', 'TrentService.Decrypt']);
      const encryptionContext = { 'svc:organization': 'org-1', 'svc:record': 'ORG#org-1/NOTIFYCH#c1', 'svc:field': 'url' };
      expect(kms.requests[0]!.body).toEqual({ KeyId: KEY_A, KeySpec: 'AES_256', EncryptionContext: encryptionContext });
      expect(kms.requests[1]!.body).toMatchObject({ KeyId: KEY_A, EncryptionContext: encryptionContext });
      for (const r of kms.requests) {
        expect(r.headers['content-type']).toBe('application/x-amz-json-1.1');
        expect(String(r.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDLOCAL\/\d{8}\/eu-west-1\/kms\/aws4_request/);
        expect(JSON.stringify(r.body)).not.toContain('hooks.slack.com');
      }
    } finally {
      for (const c of clients) c.destroy();
      clients = [];
      await kms.close();
    }
  });
});
