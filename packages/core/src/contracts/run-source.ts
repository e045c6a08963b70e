import { z } from 'zod';
import { branchNameRule } from './vcs-integration.ts';

/**
 * Where a run's code came from: the branch (and commit) it tested and, for a pull
 * request, the branch it goes into. The default base of a run comparison reads it
 * (reporting/run-compare-source.ts): a pull request is compared with its target branch's
 * run, a branch with its own previous run.
 */
export const BranchName = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .regex(branchNameRule, 'not a branch name')
  .describe('A branch name, as git names it (feature/x, main)');

const CommitSha = z.string().trim().regex(/^[0-9a-f]{7,64}$/i, 'a commit sha (7–64 hex digits)').describe('The commit tested');

const PullRequestInput = z.strictObject({
  number: z.number().int().positive().max(2_147_483_647).describe('The pull (merge) request number'),
  base_branch: BranchName.describe('The branch the pull request goes into (its target)'),
});

/** `source` of POST /api/v1/test/run: what a CI system says about the code it asks to test. */
export const RunSourceInput = z
  .strictObject({
    branch: BranchName.describe('The branch tested (a pull request\'s head branch)'),
    commit_sha: CommitSha.optional(),
    pull_request: PullRequestInput.optional().describe('Set when the run tests a pull request: its default comparison base is then the target branch\'s latest run'),
  })
  .describe("Where the run's code came from (optional). Picks the default base of GET /api/runs/{id}/compare: a pull request's target branch, else the same branch");
export type RunSourceInput = z.output<typeof RunSourceInput>;

export const vcsProviders = ['github', 'gitlab'] as const;

/** The source as a run carries it: a webhook's run also names the host and repository. */
export const RunSourceSchema = z
  .object({
    provider: z.enum(vcsProviders).nullable().describe('The source-control host of a webhook\'s run; null when an API caller set the source'),
    repository: z.string().nullable().describe('owner/name of a webhook\'s run; null when an API caller set the source'),
    branch: z.string().describe('The branch tested (a pull request\'s head branch)'),
    commit_sha: z.string().nullable().describe('The commit tested, when known'),
    pull_request: z.object({ number: z.number().int(), base_branch: z.string() }).nullable().describe('The pull request tested and its target branch, or null (a push)'),
  })
  .describe("Where the run's code came from: absent for runs started without one");
export type RunSource = z.output<typeof RunSourceSchema>;

/** An API caller's source as the run keeps it. */
export const runSourceOf = (input: RunSourceInput): RunSource => ({
  provider: null,
  repository: null,
  branch: input.branch,
  commit_sha: input.commit_sha ?? null,
  pull_request: input.pull_request ?? null,
});
