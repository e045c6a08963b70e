import { z } from 'zod';
import { parseInput } from '../contracts/parse.ts';
import { CommitFiles, pushEvent, type VcsEvent } from './event.ts';

/**
 * GitLab's webhook payloads (docs.gitlab.com, "Webhook events"): the push hook and the
 * merge request hook, read loosely. A merge request becomes a pull_request event with
 * GitHub's action words, so one rule decides for both hosts.
 */

const Project = z.looseObject({ path_with_namespace: z.string().min(1), default_branch: z.string().min(1).nullable().optional() });

const Push = z.looseObject({
  ref: z.string().min(1),
  after: z.string().optional(),
  checkout_sha: z.string().nullable().optional(),
  user_username: z.string().optional(),
  commits: z.array(CommitFiles).default([]),
  total_commits_count: z.number().int().nonnegative().optional(),
  project: Project,
});

const MergeRequest = z.looseObject({
  user: z.looseObject({ username: z.string().optional() }).optional(),
  object_attributes: z.looseObject({
    iid: z.number().int().positive(),
    action: z.string().optional(),
    oldrev: z.string().optional(),
    source_branch: z.string().optional(),
    target_branch: z.string().optional(),
    url: z.string().optional(),
    last_commit: z.looseObject({ id: z.string().optional() }).optional(),
  }),
  project: Project,
});

const DELETED = /^0+$/;

/** GitLab's merge request actions in GitHub's words; an update with new commits (oldrev) is a synchronize. */
function actionOf(a: { action?: string; oldrev?: string }): string {
  if (a.action === 'open') return 'opened';
  if (a.action === 'reopen') return 'reopened';
  if (a.action === 'update') return a.oldrev ? 'synchronize' : 'edited';
  if (a.action === 'close') return 'closed';
  if (a.action === 'merge') return 'merged';
  return a.action ?? 'unknown';
}

export const gitlabRepository = (payload: Record<string, unknown>): string | undefined => Project.safeParse(payload.project).data?.path_with_namespace;

/** Reads a verified GitLab delivery: X-Gitlab-Event ("Push Hook", "Merge Request Hook", …) and the parsed body. */
export function gitlabEvent(name: string, payload: Record<string, unknown>): VcsEvent {
  const repository = gitlabRepository(payload) ?? '';
  if (name === 'Push Hook') {
    const p = parseInput(Push, payload);
    // GitLab lists at most 20 commits and says how many there were.
    const truncated = p.total_commits_count !== undefined && p.total_commits_count > p.commits.length;
    return pushEvent({
      repository,
      default_branch: p.project.default_branch ?? null,
      ref: p.ref,
      deleted: !!p.after && DELETED.test(p.after),
      commit_sha: p.checkout_sha ?? p.after ?? null,
      pusher: p.user_username ?? null,
      commits: p.commits,
      ...(truncated ? { truncated: `the push has ${p.total_commits_count} commits and GitLab lists ${p.commits.length}` } : {}),
    });
  }
  if (name === 'Merge Request Hook') {
    const p = parseInput(MergeRequest, payload);
    const a = p.object_attributes;
    const action = actionOf(a);
    return {
      kind: 'pull_request',
      name: `pull_request.${action}`,
      repository,
      default_branch: p.project.default_branch ?? null,
      action,
      number: a.iid,
      head_sha: a.last_commit?.id ?? null,
      head_ref: a.source_branch ?? null,
      base_ref: a.target_branch ?? null,
      url: a.url ?? null,
      author: p.user?.username ?? null,
    };
  }
  return { kind: 'other', name, repository };
}
