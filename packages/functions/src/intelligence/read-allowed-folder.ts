import type { FolderRead } from '@svc/core/knowledge/knowledge-worker';
import { readRepository, resolveAllowedPath, rootsOf, type ReadLimits, type RepositoryRead } from './read-repository.ts';

/** Why a folder may not be read here. */
export type FolderRefusal = { reason: string; why: 'not_configured' | 'not_open' | 'not_allowed' | 'not_found' };
export type AllowedFolderRead = (FolderRead & { root: string }) | FolderRefusal;

/**
 * A folder read the way every analysis reads one: only inside the allowed roots
 * (SVC_ANALYZE_ROOTS; symbolic links and `..` resolved first), bounded, blocked files never
 * opened; the entries skipped beyond the listed ones counted as one more skipped line.
 * Only the roots open to the organization asking count (rootsOf).
 */
export async function readAllowedFolder(path: string, roots: string[], organizationId: string, limits?: Partial<ReadLimits>): Promise<AllowedFolderRead> {
  const allowed = await allowedFolder(path, roots, organizationId);
  if ('why' in allowed) return allowed;
  const read = await readRepository(allowed.path, limits);
  return { root: read.root, files: read.files, skipped: skippedOf(read), partial: read.partial };
}

/** Whether a folder may be read here (SVC_ANALYZE_ROOTS), without reading it: its real path, or why not. */
export async function allowedFolder(path: string, roots: string[], organizationId: string): Promise<{ path: string } | FolderRefusal> {
  if (!roots.length) return { reason: 'this server reads no folders (SVC_ANALYZE_ROOTS is not set)', why: 'not_configured' };
  const open = rootsOf(roots, organizationId);
  if (!open.length) return { reason: "this server reads no folders for this organization (SVC_ANALYZE_ROOTS opens folders to other organizations only; add one as '<organization id>=<folder>')", why: 'not_open' };
  const allowed = await resolveAllowedPath(path, open);
  return 'error' in allowed ? { reason: allowed.error, why: allowed.reason } : allowed;
}

/** What a read skipped, the entries beyond the listed ones counted on one more line. */
export const skippedOf = (read: RepositoryRead) => (read.skipped_unlisted ? [...read.skipped, { path: '…', reason: `${read.skipped_unlisted} more entries skipped` }] : read.skipped);
