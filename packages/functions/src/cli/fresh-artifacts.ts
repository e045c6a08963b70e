import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Written into an artifact folder svc made: only such a folder is ever emptied. */
const MARKER = '.svc-artifacts';

/**
 * The artifact folder of a new `svc run` into `out`, emptied of an earlier run's files so
 * what CI uploads is this run's screenshots and traces only (a test that passed now left
 * the failure.png and trace.zip of when it failed). Only a folder with svc's marker is
 * emptied: `--out .` beside a folder of the user's own named artifacts never loses it.
 * A resumed run keeps the folder (its first part's artifacts are there).
 */
export async function freshArtifactFolder(out: string, resuming: boolean): Promise<string> {
  const dir = join(out, 'artifacts');
  const ours = await stat(join(dir, MARKER)).then(() => true, () => false);
  if (ours && !resuming) await rm(dir, { recursive: true, force: true });
  const existed = !ours && (await stat(dir).then(() => true, () => false));
  await mkdir(dir, { recursive: true });
  // A folder that was there without the marker is not ours: it is written into, never emptied.
  if (!existed) await writeFile(join(dir, MARKER), 'svc run artifacts: this folder is emptied by the next svc run into the same --out\n');
  return dir;
}
