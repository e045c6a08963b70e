import { AppError } from '../errors.ts';
import type { SecretCipher } from '../ports/secret-cipher.ts';

/**
 * The store's cipher when its caller gave none (a CLI or test store that never touches
 * secrets). It refuses to seal — svc never falls back to writing a secret in plaintext —
 * and to open; plaintext values from before encryption at rest still read, since reading
 * them needs no key (store/secret-fields.ts).
 */
export const noSecretCipher: SecretCipher = {
  keyId: 'none',
  seal: async () => {
    throw new AppError('NOT_CONFIGURED', 'storing a secret needs a secret key, and this store was built without one');
  },
  open: async (_sealed, context) => {
    throw new AppError('NOT_CONFIGURED', `the stored secret ${context.field} of ${context.record} needs a secret key, and this store was built without one`);
  },
};
