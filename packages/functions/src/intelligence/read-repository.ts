import { lstat, open, opendir, realpath } from 'node:fs/promises';
import { delimiter, join, relative, sep } from 'node:path';
import { blockedReason } from '@svc/core/intelligence/analysis/blocked';
import type { SkippedFile, SourceFile } from '@svc/core/intelligence/analysis/types';

/**
 * Reads a local directory for the code analyser, read-only and bounded: it never opens a
 * blocked file (spec rule 7), never follows a symbolic link, stops at the file, byte and
 * time limits, and says what it left out instead of failing.
 */

export interface ReadLimits {
  /** Files read at most (default 5000). */
  maxFiles: number;
  /** Largest file read (default 1 MiB); bigger files are skipped. */
  maxFileBytes: number;
  /** Bytes read in total (default 50 MiB). */
  maxTotalBytes: number;
  /** Wall-clock budget for the walk (default 30 s): a slow disk gives a partial result, never a hang. */
  timeoutMs: number;
  /** At most this many skipped entries are listed one by one (default 1000); the rest are counted. */
  maxSkippedListed: number;
}

export const defaultReadLimits: ReadLimits = { maxFiles: 5000, maxFileBytes: 1024 * 1024, maxTotalBytes: 50 * 1024 * 1024, timeoutMs: 30_000, maxSkippedListed: 1000 };

/** Folders that hold dependencies, build output or VCS data, never sources to analyse. */
const ignoredDirs = new Set(['node_modules', '.git', '.hg', '.svn', 'dist', 'build', 'out', '.next', '.nuxt', '.svelte-kit', '.turbo', '.cache', 'coverage', '.svc-data', 'bower_components', 'vendor', '__pycache__', '.venv', 'venv', 'target']);

/** Extensions that are binary whatever their bytes say; skipped without opening. */
const binaryExt = /\.(png|jpe?g|gif|webp|ico|bmp|tiff?|avif|pdf|zip|gz|tgz|bz2|xz|7z|rar|jar|war|class|exe|dll|so|dylib|o|a|wasm|woff2?|ttf|otf|eot|mp[34]|mov|avi|webm|ogg|wav|flac|sqlite3?|db|bin|dat|psd|node)$/i;

export interface RepositoryRead {
  root: string;
  files: SourceFile[];
  skipped: SkippedFile[];
  /** Entries skipped beyond the listed ones. */
  skipped_unlisted: number;
  /** True when a limit stopped the read early. */
  partial: boolean;
  bytes: number;
}

export class RepositoryReadError extends Error {
  constructor(readonly reason: 'not_found' | 'not_a_directory' | 'unreadable', message: string) {
    super(message);
    this.name = 'RepositoryReadError';
  }
}

export async function readRepository(path: string, limits: Partial<ReadLimits> = {}): Promise<RepositoryRead> {
  const lim = { ...defaultReadLimits, ...limits };
  let root: string;
  try {
    root = await realpath(path);
  } catch {
    throw new RepositoryReadError('not_found', `path does not exist: ${path}`);
  }
  const st = await lstat(root);
  if (!st.isDirectory()) throw new RepositoryReadError('not_a_directory', `path is not a directory: ${path}`);

  const deadline = Date.now() + lim.timeoutMs;
  const result: RepositoryRead = { root, files: [], skipped: [], skipped_unlisted: 0, partial: false, bytes: 0 };
  const skip = (p: string, reason: string) => {
    if (result.skipped.length < lim.maxSkippedListed) result.skipped.push({ path: p, reason });
    else result.skipped_unlisted++;
  };
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let stopReason: string | undefined;

  // Breadth-first, sorted per folder, so a partial read keeps the shallow (most telling) files.
  const queue: string[] = [''];
  while (queue.length) {
    const relDir = queue.shift()!;
    let dir;
    try {
      dir = await opendir(join(root, relDir));
    } catch (err) {
      skip(relDir || '.', `folder not readable: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
      continue;
    }
    const entries: Array<{ name: string; isDir: boolean; isFile: boolean; isLink: boolean }> = [];
    for await (const e of dir) entries.push({ name: e.name, isDir: e.isDirectory(), isFile: e.isFile(), isLink: e.isSymbolicLink() });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const rel = relDir ? `${relDir}/${e.name}` : e.name;
      if (e.isLink) {
        skip(rel, 'symbolic link (not followed)');
        continue;
      }
      const blocked = blockedReason(rel);
      if (blocked) {
        skip(rel, blocked);
        continue;
      }
      if (e.isDir) {
        if (ignoredDirs.has(e.name)) skip(rel + '/', 'dependency, build or VCS folder');
        else queue.push(rel);
        continue;
      }
      if (!e.isFile) {
        skip(rel, 'not a regular file');
        continue;
      }
      if (stopReason) {
        skip(rel, stopReason);
        continue;
      }
      if (Date.now() > deadline) {
        stopReason = `not read: time limit of ${lim.timeoutMs} ms reached`;
        result.partial = true;
        skip(rel, stopReason);
        continue;
      }
      if (result.files.length >= lim.maxFiles) {
        stopReason = `not read: file limit of ${lim.maxFiles} reached`;
        result.partial = true;
        skip(rel, stopReason);
        continue;
      }
      if (binaryExt.test(e.name)) {
        skip(rel, 'binary file (by extension)');
        continue;
      }
      const read = await readText(join(root, rel), root, lim.maxFileBytes, decoder);
      if ('skip' in read) {
        skip(rel, read.skip);
        continue;
      }
      if (result.bytes + read.bytes > lim.maxTotalBytes) {
        stopReason = `not read: total size limit of ${lim.maxTotalBytes} bytes reached`;
        result.partial = true;
        skip(rel, stopReason);
        continue;
      }
      result.bytes += read.bytes;
      result.files.push({ path: rel, content: read.text });
    }
  }
  return result;
}

/** Opens with O_NOFOLLOW semantics checked by lstat, sniffs for NUL bytes, decodes strict UTF-8. */
async function readText(abs: string, root: string, maxBytes: number, decoder: TextDecoder): Promise<{ text: string; bytes: number } | { skip: string }> {
  const rel = relative(root, abs);
  if (rel.startsWith('..') || rel.split(sep).includes('..')) return { skip: 'outside the root' };
  let st;
  try {
    st = await lstat(abs);
  } catch {
    return { skip: 'vanished while reading' };
  }
  if (!st.isFile()) return { skip: 'not a regular file' };
  if (st.size > maxBytes) return { skip: `larger than ${maxBytes} bytes (${st.size})` };
  let fh;
  try {
    fh = await open(abs, 'r');
    const buf = Buffer.alloc(st.size);
    const { bytesRead } = await fh.read(buf, 0, st.size, 0);
    const bytes = buf.subarray(0, bytesRead);
    if (bytes.subarray(0, 8192).includes(0)) return { skip: 'binary file (NUL bytes)' };
    try {
      return { text: decoder.decode(bytes), bytes: bytesRead };
    } catch {
      return { skip: 'not UTF-8 text' };
    }
  } catch (err) {
    return { skip: `not readable: ${(err as NodeJS.ErrnoException).code ?? 'error'}` };
  } finally {
    await fh?.close();
  }
}

/**
 * The real path of `path` when it lies inside one of `roots` (also resolved), else an
 * explanation. Symbolic links and `..` are resolved first, so neither can escape a root.
 */
export async function resolveAllowedPath(path: string, roots: string[]): Promise<{ path: string } | { error: string; reason: 'not_allowed' | 'not_found' }> {
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    return { error: 'path does not exist on the server', reason: 'not_found' };
  }
  for (const r of roots) {
    let root: string;
    try {
      root = await realpath(r);
    } catch {
      continue; // a configured root that does not exist allows nothing
    }
    const rel = relative(root, real);
    if (rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel))) return { path: real };
  }
  return { error: 'path is outside the folders this server may read (SVC_ANALYZE_ROOTS)', reason: 'not_allowed' };
}

const SCOPED_ROOT = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})=(.+)$/i;

/**
 * The roots one organization may read: every plain folder (open to the whole installation)
 * and the folders given as `<organization id>=<folder>` for it. A server that hosts several
 * organizations scopes each team's code to its own organization this way; a plain folder is
 * readable by every member of every organization on the server.
 */
export function rootsOf(roots: string[], organizationId: string): string[] {
  return roots.flatMap((root) => {
    const scoped = SCOPED_ROOT.exec(root);
    if (!scoped) return [root];
    return scoped[1].toLowerCase() === organizationId.toLowerCase() ? [scoped[2]] : [];
  });
}

/** SVC_ANALYZE_ROOTS: folders separated by the platform's path delimiter or commas, each plain or `<organization id>=<folder>`. */
export const parseAnalyzeRoots = (value: string | undefined): string[] => (value ?? '').split(new RegExp(`[,${delimiter}]`)).map((s) => s.trim()).filter(Boolean);
