import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { BaselineStore } from '@svc/core/visual/baseline-store';
import { screenshotHash } from '@svc/core/visual/compare';
import { fileSafe as safe } from '@svc/core/file-safe';

/**
 * Baselines for `svc run`: <dir>/<test id>/<baseline name>.png, plain files a team
 * commits beside its tests (as Playwright's snapshot folders), so a review shows the
 * image that changed. A test id that is not file-name safe gets a short hash suffix.
 */
export class FileBaselineStore implements BaselineStore {
  constructor(readonly dir: string) {}

  /** The file a test's baseline lives in (also for messages). */
  path(testId: string, name: string): string {
    return join(this.dir, folderOf(testId), `${safe(name)}.png`);
  }

  async get(testId: string, name: string): Promise<{ png: Uint8Array; hash: string } | undefined> {
    try {
      const png = new Uint8Array(await readFile(this.path(testId, name)));
      return { png, hash: screenshotHash(png) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async put(testId: string, name: string, png: Uint8Array): Promise<{ hash: string }> {
    const path = this.path(testId, name);
    await mkdir(join(this.dir, folderOf(testId)), { recursive: true });
    const tmp = `${path}.${randomUUID()}.tmp`; // parallel workers may write the same baseline
    await writeFile(tmp, png);
    await rename(tmp, path); // a reader never sees half an image
    return { hash: screenshotHash(png) };
  }
}


function folderOf(testId: string): string {
  const clean = safe(testId).slice(0, 100);
  return clean === testId && clean !== '.' && clean !== '..' ? clean : `${clean}-${createHash('sha256').update(testId).digest('hex').slice(0, 8)}`;
}
