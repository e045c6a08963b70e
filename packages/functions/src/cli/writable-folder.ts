import { access, constants, mkdir } from 'node:fs/promises';

/** Why a folder cannot be created or written (a file in the way, no permission), or undefined when it can. */
export async function unwritableFolder(dir: string): Promise<string | undefined> {
  try {
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK);
    return undefined;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return e.code === 'EEXIST' || e.code === 'ENOTDIR' ? 'a file is in the way (not a folder)' : e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS' ? 'no permission to write there' : e.message;
  }
}
