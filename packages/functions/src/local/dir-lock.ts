/**
 * An advisory lock on a FileTable data folder: a LOCK file holding the owner's pid.
 * Two processes appending to one journal would interleave and corrupt it, so a second
 * opener must fail loudly. A lock whose pid is dead is stale (the owner crashed) and is
 * taken over. Node has no flock(), so this is detection, not a kernel-enforced lock.
 */
import { readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { processAlive } from '../shared/process-alive.ts';
import { join, resolve } from 'node:path';

const LOCK_FILE = 'LOCK';
/** A lock file still empty after this long was left by a crash between create and write. */
const UNWRITTEN_LOCK_GRACE_MS = 5_000;

/** Folders this process holds: a pid check cannot tell our own lock from a stale one with a reused pid. */
const heldHere = new Set<string>();

export class DirLockedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DirLockedError';
  }
}

interface LockOwner {
  pid: number;
  host?: string;
  since?: string;
}

const pidAlive = processAlive;

function readOwner(path: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(path, 'utf8')) as LockOwner;
    return Number.isInteger(owner.pid) ? owner : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the lock on `dir` or throws DirLockedError naming the holder. Returns the release function. */
export function acquireDirLock(dir: string): () => void {
  const folder = resolve(dir);
  if (heldHere.has(folder)) {
    throw new DirLockedError(`Data folder ${folder} is already open in this process (pid ${process.pid})`);
  }
  const path = join(folder, LOCK_FILE);
  const mine: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, JSON.stringify(mine), { flag: 'wx' }); // O_EXCL: fails if it exists
      heldHere.add(folder);
      return () => releaseDirLock(folder, path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = readOwner(path);
    if (!owner) {
      // Unreadable: either being written right now or abandoned mid-write.
      let ageMs = Infinity;
      try {
        ageMs = Date.now() - statSync(path).mtimeMs;
      } catch {
        continue; // vanished: retry
      }
      if (ageMs < UNWRITTEN_LOCK_GRACE_MS) {
        throw new DirLockedError(`Data folder ${folder} is being opened by another process (${path})`);
      }
    } else if (owner.pid !== process.pid && pidAlive(owner.pid)) {
      throw new DirLockedError(
        `Data folder ${folder} is in use by process ${owner.pid}${owner.host ? ` on ${owner.host}` : ''} ` +
          `since ${owner.since ?? '?'}; stop it first (or delete ${path} if that process is not using it)`,
      );
    }
    // Stale: the owner is dead, or it had our pid in an earlier life (pid reuse in containers).
    try {
      unlinkSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  throw new DirLockedError(`Could not lock data folder ${folder}: the lock keeps changing hands`);
}

function releaseDirLock(folder: string, path: string): void {
  if (!heldHere.delete(folder)) return;
  // Only remove the file if it is still ours; someone may have (wrongly) taken it over.
  if (readOwner(path)?.pid === process.pid) {
    try {
      unlinkSync(path);
    } catch {
      // already gone: nothing to release
    }
  }
}
