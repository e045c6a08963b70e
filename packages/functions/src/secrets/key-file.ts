import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { KEY_BYTES } from './local-data-keys.ts';

/** The key file cannot be used; the message says which file and what to do, never any key material. */
export class SecretKeyFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretKeyFileError';
  }
}

/**
 * Reads the local runtime's key-encryption key: one line, 32 bytes in base64 (what
 * `openssl rand -base64 32` prints). Undefined when the file does not exist.
 */
export async function readSecretKeyFile(path: string): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SecretKeyFileError(`the secret key file ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const line = text.trim();
  const key = Buffer.from(line, 'base64');
  // Buffer.from skips characters that are not base64, so the round trip is what proves the text was a key.
  if (key.length !== KEY_BYTES || key.toString('base64') !== line) {
    throw new SecretKeyFileError(`the secret key file ${path} is not a secret key: it must hold ${KEY_BYTES} bytes in base64 on one line`);
  }
  return key;
}

/**
 * Creates the key file with a new random key, readable by its owner only (mode 600). 'wx'
 * fails if the file appeared meanwhile, and then that file's key is the one used, so two
 * starts never end up with two keys.
 */
export async function createSecretKeyFile(path: string): Promise<Buffer> {
  const key = randomBytes(KEY_BYTES);
  try {
    await writeFile(path, `${key.toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return (await readSecretKeyFile(path))!;
    throw new SecretKeyFileError(`the secret key file ${path} cannot be created (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}
