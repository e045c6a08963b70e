import type { VcsIntegration } from '../contracts/vcs-integration.ts';
import { branchSelected } from './branches.ts';
import type { VcsEvent } from './event.ts';

/** Pull request actions that start a run: new code to test. */
export const PR_RUN_ACTIONS = ['opened', 'synchronize', 'reopened'] as const;

export type VcsDecision = { ignored: string } | { run: { changed_files?: string[]; pr_number?: number; note?: string } };

function branchRule(i: VcsIntegration, branch: string, defaultBranch: string | null): string | undefined {
  if (branchSelected(i.branches, branch, defaultBranch)) return undefined;
  if (i.branches.length) return `branch ${branch} matches none of ${i.branches.join(', ')}`;
  return defaultBranch ? `branch ${branch} is not the default branch ${defaultBranch} (list branches on the integration to run on others)` : 'the payload names no default branch: list the branches to run on';
}

/**
 * What a verified delivery does for an integration: start a run (with the push's changed
 * files, or the pull request's number) or nothing, and why. Pure: the same delivery and
 * integration always decide the same.
 */
export function decide(i: VcsIntegration, e: VcsEvent): VcsDecision {
  if (!i.enabled) return { ignored: 'the integration is paused' };
  if (e.kind === 'ping') return { ignored: 'ping: the webhook reaches svc and its secret is right; pushes and pull requests will start runs' };
  if (e.kind === 'other') return { ignored: `svc does not run tests on ${e.name} events` };
  if (!i.events.includes(e.kind)) return { ignored: `${e.kind} events do not start runs for this integration` };
  if (e.kind === 'push') {
    if (e.deleted) return { ignored: 'the branch was deleted' };
    if (e.branch === null) return { ignored: `${e.ref} is not a branch (tags do not start runs)` };
    const skip = branchRule(i, e.branch, e.default_branch);
    if (skip) return { ignored: skip };
    return e.changed_files ? { run: { changed_files: e.changed_files } } : { run: { note: `no changed-file focus: ${e.unknown_files}` } };
  }
  if (!(PR_RUN_ACTIONS as readonly string[]).includes(e.action)) return { ignored: `pull request ${e.action}: only ${PR_RUN_ACTIONS.join(', ')} start runs` };
  if (!e.base_ref) return { ignored: 'the pull request names no base branch' };
  const skip = branchRule(i, e.base_ref, e.default_branch);
  if (skip) return { ignored: `pull request into ${skip}` };
  return { run: { pr_number: e.number } };
}
