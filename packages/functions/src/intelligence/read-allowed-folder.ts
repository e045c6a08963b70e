import type { FolderRead } from '@svc/core/knowledge/knowledge-worker';
import { readRepository, resolveAllowedPath, type ReadLimits } from './read-repository.ts';

export type AllowedFolderRead = (FolderRead & { root: string }) | { reason: string; why: 'not_configured' | 'not_allowed' | 'not_found' };

/**
 * A folder read the way every analysis reads one: only inside the allowed roots
 * (SVC_ANALYZE_ROOTS; symbolic links and `..` resolved first), bounded, blocked files never
 * opened; the entries skipped beyond the listed ones counted as one more skipped line.
 */
export async function readAllowedFolder(path: string, roots: string[], limits?: Partial<ReadLimits>): Promise<AllowedFolderRead> {
  if (!roots.length) return { reason: 'this server reads no folders (SVC_ANALYZE_ROOTS is not set)', why: 'not_configured' };
  const allowed = await resolveAllowedPath(path, roots);
  if ('error' in allowed) return { reason: allowed.error, why: allowed.reason };
  const read = await readRepository(allowed.path, limits);
  const skipped = read.skipped_unlisted ? [...read.skipped, { path: '…', reason: `${read.skipped_unlisted} more entries skipped` }] : read.skipped;
  return { root: read.root, files: read.files, skipped, partial: read.partial };
}
