import { mkdir, writeFile, readFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { ArtifactSink } from '@svc/core/execution/types';

/** Run artifacts in a folder: keys are paths relative to it, so reports can link them. */
export class FsArtifacts implements ArtifactSink {
  readonly root: string;
  constructor(root: string) {
    this.root = resolve(root);
  }
  async put(name: string, body: Uint8Array | string): Promise<string> {
    const p = resolve(this.root, name);
    if (!p.startsWith(this.root + sep)) throw new Error(`artifact name escapes the artifact folder: ${name}`);
    await mkdir(dirname(p), { recursive: true });
    await writeFile(p, body);
    return name;
  }
  async read(name: string): Promise<Uint8Array | undefined> {
    return readFile(join(this.root, name)).then((b) => new Uint8Array(b), () => undefined);
  }
}
