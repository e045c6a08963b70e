import { randomBytes } from 'node:crypto';
import { envelopeCipher } from '@svc/core/secrets/envelope';
import { localDataKeys } from '../../packages/functions/src/secrets/local-data-keys.ts';
import { secretCipherConformance } from './secret-cipher.conformance.ts';

// Two key-encryption keys, as two key files would hold.
secretCipherConformance('local key file (AES-256-GCM)', async () => ({
  a: envelopeCipher(localDataKeys(randomBytes(32))),
  b: envelopeCipher(localDataKeys(randomBytes(32))),
  cleanup: async () => {},
}));
