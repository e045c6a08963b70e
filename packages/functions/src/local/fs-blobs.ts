import { mkdir, readFile, writeFile, rm, readdir, rename, stat } from 'node:fs/promises';
import { join, resolve, sep, relative } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { BlobEntry, Blobs } from '@svc/core/ports/blobs';

/** The Blobs port on a local folder: one file per key, content type beside it. */
export class FsBlobs implements Blobs {
  readonly root: string;
  constructor(root: string) {
    this.root = resolve(root);
  }

  private pathOf(key: string): string {
    const p = resolve(this.root, key);
    if (!p.startsWith(this.root + sep) || key.includes('\0')) throw new Error(`blob key escapes the blob folder: ${key}`);
    return p;
  }

  async put(key: string, body: Uint8Array | string, contentType?: string) {
    const p = this.pathOf(key);
    await mkdir(join(p, '..'), { recursive: true });
    // A temp file of this put's own: two puts of one key at once (the same image by its
    // hash, from two tests) must not write into each other's.
    const tmp = `${p}.${randomUUID()}.tmp`;
    await writeFile(tmp, body);
    await rename(tmp, p); // readers never see a half-written artifact
    // A put replaces the whole blob, its content type included.
    if (contentType) await writeFile(`${p}.content-type`, contentType);
    else await rm(`${p}.content-type`, { force: true });
  }

  async get(key: string) {
    const p = this.pathOf(key);
    try {
      const body = new Uint8Array(await readFile(p));
      const contentType = await readFile(`${p}.content-type`, 'utf8').catch(() => undefined);
      return { body, contentType };
    } catch (err) {
      // A key that is only a prefix of others is a folder on disk: absent, as on S3.
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EISDIR') return undefined;
      throw err;
    }
  }

  async delete(key: string) {
    const p = this.pathOf(key);
    await rm(p, { force: true });
    await rm(`${p}.content-type`, { force: true });
  }

  async list(prefix: string): Promise<string[]> {
    return (await this.listModified(prefix)).map((e) => e.key);
  }

  /** Every file under the prefix (but the content-type sidecars and unfinished writes), with its mtime. */
  async listModified(prefix: string): Promise<BlobEntry[]> {
    const out: BlobEntry[] = [];
    const walk = async (dir: string) => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const full = join(dir, e.name);
        if (e.isDirectory()) await walk(full);
        else if (!e.name.endsWith('.content-type') && !e.name.endsWith('.tmp')) {
          const key = relative(this.root, full).split(sep).join('/');
          if (key.startsWith(prefix)) {
            // A file removed between readdir and stat (a concurrent delete) is simply not listed.
            const info = await stat(full).catch(() => undefined);
            if (info) out.push({ key, modified: info.mtime.toISOString() });
          }
        }
      }
    };
    await walk(this.root);
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
}
