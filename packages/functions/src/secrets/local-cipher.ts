import type { SecretCipher } from '@svc/core/ports/secret-cipher';
import { envelopeCipher } from '@svc/core/secrets/envelope';
import { createSecretKeyFile, readSecretKeyFile, SecretKeyFileError } from './key-file.ts';
import { localDataKeys } from './local-data-keys.ts';

/** Where the data folder records the id of the key its secrets are sealed with (system settings). */
export const SECRET_KEY_ID_SETTING = 'secret-key-id';

interface Settings {
  get<T>(name: string): Promise<T | undefined>;
  getOrCreate<T>(name: string, make: () => Promise<T>): Promise<T>;
}

/**
 * The local runtime's cipher, from the key file at `path`. The data folder records the
 * key's id on first start, which is what tells a first start (no key yet: the file is
 * created, mode 600) from a lost or swapped key file (a boot error naming the file and the
 * key the data needs — making a new key would leave every stored secret unreadable).
 */
export async function localSecretCipher(path: string, settings: Settings): Promise<SecretCipher> {
  const recorded = await settings.get<string>(SECRET_KEY_ID_SETTING);
  let key = await readSecretKeyFile(path);
  if (!key && recorded) {
    throw new SecretKeyFileError(`the secret key file ${path} is missing, and this data folder's secrets are sealed with key ${recorded}: restore that file, or set SVC_SECRET_KEY_FILE to where it is`);
  }
  key ??= await createSecretKeyFile(path);
  const keys = localDataKeys(key);
  const expected = await settings.getOrCreate(SECRET_KEY_ID_SETTING, async () => keys.keyId);
  if (expected !== keys.keyId) {
    throw new SecretKeyFileError(`the secret key file ${path} holds key ${keys.keyId}, but this data folder's secrets are sealed with key ${expected}: restore the file that holds ${expected}`);
  }
  return envelopeCipher(keys);
}
