import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { startAwsDouble, type AwsRequest } from '../events/support/aws-double.ts';

/**
 * A local HTTP endpoint speaking KMS's JSON wire protocol (AWS JSON 1.1,
 * `X-Amz-Target: TrentService.<Operation>`, base64 blobs), with real encryption: each key
 * ARN has its own random AES-256 key, GenerateDataKey returns a fresh data key and that
 * key encrypted under the named key (AES-GCM, the EncryptionContext as AAD, the key ARN
 * inside the blob as real KMS does), and Decrypt undoes it — so a blob from one key, or
 * with another context, or changed, fails as KMS would (IncorrectKeyException,
 * InvalidCiphertextException). Reached through the SDK's endpoint override.
 */
export async function startKmsDouble(keyArns: string[]) {
  const masters = new Map(keyArns.map((arn) => [arn, randomBytes(32)]));
  const error = (type: string, message: string) => ({ status: 400, body: { __type: type, message } });
  const contextAad = (context: Record<string, string> | undefined) => Buffer.from(JSON.stringify(Object.entries(context ?? {}).sort(([a], [b]) => a.localeCompare(b))));

  const generateDataKey = (req: AwsRequest) => {
    const arn = req.body.KeyId as string;
    const master = masters.get(arn);
    if (!master) return error('NotFoundException', `Key '${arn}' does not exist`);
    if (req.body.KeySpec !== 'AES_256') return error('ValidationException', 'KeySpec must be AES_256 here');
    const plaintext = randomBytes(32);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', master, iv);
    cipher.setAAD(contextAad(req.body.EncryptionContext));
    const sealed = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    const arnBytes = Buffer.from(arn, 'utf8');
    const blob = Buffer.concat([Buffer.from([arnBytes.length]), arnBytes, iv, sealed]);
    return { body: { CiphertextBlob: blob.toString('base64'), Plaintext: plaintext.toString('base64'), KeyId: arn } };
  };

  const decrypt = (req: AwsRequest) => {
    const blob = Buffer.from(req.body.CiphertextBlob as string, 'base64');
    const arn = blob.subarray(1, 1 + blob[0]!).toString('utf8');
    const master = masters.get(arn);
    if (!master) return error('InvalidCiphertextException', 'the ciphertext names no key of this account');
    if (req.body.KeyId && req.body.KeyId !== arn) return error('IncorrectKeyException', 'The key ID in the request does not identify a KMS key that can perform this operation.');
    const rest = blob.subarray(1 + blob[0]!);
    try {
      const decipher = createDecipheriv('aes-256-gcm', master, rest.subarray(0, 12));
      decipher.setAAD(contextAad(req.body.EncryptionContext));
      decipher.setAuthTag(rest.subarray(rest.length - 16));
      const plaintext = Buffer.concat([decipher.update(rest.subarray(12, rest.length - 16)), decipher.final()]);
      return { body: { Plaintext: plaintext.toString('base64'), KeyId: arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' } };
    } catch {
      return error('InvalidCiphertextException', '');
    }
  };

  const double = await startAwsDouble((req) => {
    if (req.headers['content-type'] !== 'application/x-amz-json-1.1') return error('UnsupportedMediaType', String(req.headers['content-type']));
    if (req.target === 'TrentService.GenerateDataKey') return generateDataKey(req);
    if (req.target === 'TrentService.Decrypt') return decrypt(req);
    return error('UnknownOperationException', req.target);
  });
  return double;
}

export type KmsDouble = Awaited<ReturnType<typeof startKmsDouble>>;
