import { z } from 'zod';
import { parseInput } from '../contracts/parse.ts';
import { CommitFiles, pushEvent, type VcsEvent } from './event.ts';

/**
 * GitHub's webhook payloads (docs.github.com, "Webhook events and payloads"), read
 * loosely: only the fields svc uses are checked, the rest of the payload is ignored.
 */

const Repository = z.looseObject({ full_name: z.string().min(1), default_branch: z.string().min(1).optional() });

const Push = z.looseObject({
  ref: z.string().min(1),
  after: z.string().optional(),
  deleted: z.boolean().optional(),
  commits: z.array(CommitFiles).default([]),
  head_commit: z.looseObject({ id: z.string() }).nullable().optional(),
  pusher: z.looseObject({ name: z.string().optional() }).optional(),
  repository: Repository,
});

const PullRequest = z.looseObject({
  action: z.string().min(1),
  number: z.number().int().positive(),
  pull_request: z.looseObject({
    head: z.looseObject({ sha: z.string().optional(), ref: z.string().optional() }),
    base: z.looseObject({ ref: z.string().optional() }),
    html_url: z.string().optional(),
    user: z.looseObject({ login: z.string().optional() }).nullable().optional(),
  }),
  repository: Repository,
});

/**
 * A push lists at most 2048 commits ("The array includes a maximum of 2048 commits");
 * at the cap the list may be cut short, so its files are not the push's files.
 */
export const GITHUB_MAX_PUSH_COMMITS = 2048;

/** The repository a payload is about (before its signature is checked: only to find the integration). */
export const githubRepository = (payload: Record<string, unknown>): string | undefined => Repository.safeParse(payload.repository).data?.full_name;

/** Reads a verified GitHub delivery: X-GitHub-Event and the parsed body. */
export function githubEvent(name: string, payload: Record<string, unknown>): VcsEvent {
  const repository = githubRepository(payload) ?? '';
  if (name === 'push') {
    const p = parseInput(Push, payload);
    return pushEvent({
      repository,
      default_branch: p.repository.default_branch ?? null,
      ref: p.ref,
      deleted: p.deleted === true,
      commit_sha: p.head_commit?.id ?? p.after ?? null,
      pusher: p.pusher?.name ?? null,
      commits: p.commits,
      ...(p.commits.length >= GITHUB_MAX_PUSH_COMMITS ? { truncated: `the push lists ${p.commits.length} commits, GitHub's most, so its file list may be incomplete` } : {}),
    });
  }
  if (name === 'pull_request') {
    const p = parseInput(PullRequest, payload);
    return {
      kind: 'pull_request',
      name: `pull_request.${p.action}`,
      repository,
      default_branch: p.repository.default_branch ?? null,
      action: p.action,
      number: p.number,
      head_sha: p.pull_request.head.sha ?? null,
      head_ref: p.pull_request.head.ref ?? null,
      base_ref: p.pull_request.base.ref ?? null,
      url: p.pull_request.html_url ?? null,
      author: p.pull_request.user?.login ?? null,
    };
  }
  return name === 'ping' ? { kind: 'ping', name, repository } : { kind: 'other', name, repository };
}
