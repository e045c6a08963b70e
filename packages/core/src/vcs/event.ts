import { z } from 'zod';

/**
 * A source-control host's webhook, reduced to what svc acts on. The GitHub and GitLab
 * readers (github.ts, gitlab.ts) turn each host's wire format into one of these, so the
 * webhook service decides the same way for both.
 */
export type VcsEvent = VcsPush | VcsPullRequest | { kind: 'ping'; name: string; repository: string } | { kind: 'other'; name: string; repository: string };

export interface VcsPush {
  kind: 'push';
  name: 'push';
  repository: string;
  /** The repository's default branch as the payload names it (null: not named). */
  default_branch: string | null;
  /** The branch pushed to; null for a tag or another kind of ref. */
  branch: string | null;
  ref: string;
  /** The branch was deleted: nothing to test. */
  deleted: boolean;
  commit_sha: string | null;
  pusher: string | null;
  /** Paths the pushed commits added, modified or removed; null when the payload cannot say (see unknown_files). */
  changed_files: string[] | null;
  /** Why changed_files is null. */
  unknown_files?: string;
}

export interface VcsPullRequest {
  kind: 'pull_request';
  name: string;
  repository: string;
  default_branch: string | null;
  /** GitHub's action words: opened, synchronize (new commits), reopened, closed, edited, … */
  action: string;
  number: number;
  head_sha: string | null;
  head_ref: string | null;
  base_ref: string | null;
  url: string | null;
  author: string | null;
}

/** The longest changed-file list a run takes (RunStartInput.changed_files). */
export const MAX_CHANGED_FILES = 10_000;

/** added/modified/removed of one commit, as both hosts send them. */
export const CommitFiles = z.looseObject({
  added: z.array(z.string()).optional(),
  modified: z.array(z.string()).optional(),
  removed: z.array(z.string()).optional(),
});

/**
 * The union of the commits' added, modified and removed paths, first seen first. A
 * removed file is a changed surface too (its tests may now fail). More than a run takes
 * is no focus at all rather than an arbitrary part of it.
 */
export function changedFilesOf(commits: Array<z.output<typeof CommitFiles>>): { files: string[] } | { files: null; reason: string } {
  const files = new Set<string>();
  for (const c of commits) for (const path of [...(c.added ?? []), ...(c.modified ?? []), ...(c.removed ?? [])]) if (path) files.add(path);
  if (files.size > MAX_CHANGED_FILES) return { files: null, reason: `the push changed more than ${MAX_CHANGED_FILES} files` };
  return { files: [...files] };
}

/** refs/heads/<branch> → branch; anything else (a tag) → null. */
export const branchOf = (ref: string | null | undefined): string | null => (ref?.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null);

/**
 * A push event from what both hosts send: the ref, the commits, and — when the host says
 * its commit list was cut short — why the files cannot be known. A push that lists no
 * commits (a new branch at an existing commit, a force push to an older one) has no files
 * to focus on either.
 */
export function pushEvent(p: { repository: string; default_branch: string | null; ref: string; deleted: boolean; commit_sha: string | null; pusher: string | null; commits: Array<z.output<typeof CommitFiles>>; truncated?: string }): VcsPush {
  const files = p.truncated
    ? { files: null, reason: p.truncated }
    : p.commits.length === 0
      ? { files: null, reason: 'the push lists no commits (a new branch at an existing commit, or a force push to an older one)' }
      : changedFilesOf(p.commits);
  return {
    kind: 'push',
    name: 'push',
    repository: p.repository,
    default_branch: p.default_branch,
    branch: branchOf(p.ref),
    ref: p.ref,
    deleted: p.deleted,
    commit_sha: p.commit_sha,
    pusher: p.pusher,
    changed_files: files.files,
    ...(files.files === null ? { unknown_files: files.reason } : {}),
  };
}
