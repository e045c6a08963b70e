import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Store } from '@svc/core/store/index';
import type { CodeAnalyzer } from '@svc/core/run-graph/code-analyzer';
import { analyzeFiles } from '@svc/core/intelligence/analysis/index';
import type { ReadLimits } from '../intelligence/read-repository.ts';
import { readAllowedFolder } from '../intelligence/read-allowed-folder.ts';

export interface RepositoryAnalyzerOptions {
  store: Store;
  /** Folders a run's codebase may lie in (SVC_ANALYZE_ROOTS); empty → no codebase is read. */
  roots: string[];
  limits?: Partial<ReadLimits>;
}

/**
 * analyze_code's CodeAnalyzer on this server's disk. The codebase is the run's
 * `codebase_path` (the request's, else the project's `repo_url`) when that is a local
 * folder, else the project's `config.repo_path`. It is read (read-repository: bounded,
 * blocked files never opened, no symbolic links) only when it lies inside one of the
 * allowed roots; anything else is "not analysed" with the reason.
 */
export function createRepositoryAnalyzer(o: RepositoryAnalyzerOptions): CodeAnalyzer {
  return {
    async analyze({ organizationId, projectId, codebasePath }) {
      const project = await o.store.projects.get(organizationId, projectId);
      const configured = (project?.config as { repo_path?: unknown } | undefined)?.repo_path;
      const candidates = [codebasePath, typeof configured === 'string' ? configured : ''].map((c) => c.trim()).filter(Boolean);
      if (!candidates.length) return { status: 'not_analyzed', reason: 'the project has no repository (repo_url or config.repo_path)' };

      const local = candidates.map(localPath).find((p): p is string => !!p);
      if (!local) return { status: 'not_analyzed', reason: `the repository ${describeRemote(candidates[0])} is not a local folder; this server analyses local folders only (config.repo_path names one)` };
      if (!isAbsolute(local)) return { status: 'not_analyzed', reason: `the repository path ${local} is relative; give an absolute path` };
      const read = await readAllowedFolder(local, o.roots, organizationId, o.limits);
      if ('why' in read) return { status: 'not_analyzed', reason: read.why === 'not_configured' || read.why === 'not_open' ? read.reason : `${local}: ${read.reason}` };
      const analysis = await analyzeFiles(read.files, { skipped: read.skipped });
      return { status: 'analyzed', codebase: local, analysis, partial: read.partial };
    },
  };
}

/** A local folder named by a path or a file: URL; undefined for remote repositories (https, ssh, git@…). */
function localPath(location: string): string | undefined {
  if (/^file:\/\//i.test(location)) {
    try {
      return fileURLToPath(location);
    } catch {
      return undefined;
    }
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(location) || /^[^/\\\s]+@[^:]+:/.test(location)) return undefined;
  return location;
}

/** A remote location without credentials (https://user:token@host/… → https://host/…). */
function describeRemote(location: string): string {
  try {
    const u = new URL(location);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return location.replace(/^[^@/]*@/, '');
  }
}
