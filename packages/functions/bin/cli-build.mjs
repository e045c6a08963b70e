// Where the built CLI lives and whether it is still up to date. Shared by build.mjs (writes
// the manifest) and svc.js (reads it on every start, so this stays dependency-free and cheap:
// a few hundred stat calls, ~2 ms).
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const REPO_ROOT = join(import.meta.dirname, '..', '..', '..');
export const DIST_DIR = join(import.meta.dirname, '..', 'dist');
export const ENTRY = 'packages/functions/src/cli/main.ts';
export const manifestOf = (distDir) => join(distDir, 'manifest.json');
export const mainOf = (distDir) => join(distDir, 'cli', 'main.js');

/** Files that change what the bundle would be without being bundled sources themselves. */
const BUILD_INPUTS = [
  'packages/functions/bin/build.mjs',
  'packages/functions/bin/cli-build.mjs',
  'tsconfig.json',
  'package.json',
  'packages/core/package.json',
  'packages/functions/package.json',
  'packages/web/package.json',
];

/** size + mtime of each file (relative to the repo root); a missing file is recorded as such. */
export function inputsOf(paths) {
  const out = {};
  for (const p of new Set([...paths, ...BUILD_INPUTS])) {
    const s = statSync(join(REPO_ROOT, p), { throwIfNoEntry: false });
    out[p] = s ? [s.size, s.mtimeMs] : null;
  }
  return out;
}

/**
 * True when dist was built from exactly the files on disk now: every bundled source,
 * external dependency file and build input has the size and mtime it had at build time.
 * Any edit (or a moved/changed dependency) makes dist stale, and svc.js runs the sources.
 */
export function distIsFresh(distDir = DIST_DIR) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestOf(distDir), 'utf8'));
  } catch {
    return false;
  }
  const inputs = manifest?.inputs;
  if (!inputs || typeof inputs !== 'object') return false;
  for (const [p, recorded] of Object.entries(inputs)) {
    const s = statSync(join(REPO_ROOT, p), { throwIfNoEntry: false });
    if (recorded === null ? s !== undefined : !s || s.size !== recorded[0] || s.mtimeMs !== recorded[1]) return false;
  }
  return statSync(mainOf(distDir), { throwIfNoEntry: false }) !== undefined;
}
