/**
 * Where a run's code came from, in a few words for the run view's header: "branch main",
 * "branch feature/x → main (#12)" for a pull request. Runs started without a source (the
 * dashboard's own, a schedule's) have none and show nothing.
 *
 * @typedef {{ branch: string, commit_sha: string | null, pull_request: { number: number, base_branch: string } | null }} RunSource
 */

/**
 * @param {RunSource | null | undefined} source
 * @returns {string} empty when the run has no source
 */
export function sourceText(source) {
  if (!source) return '';
  const pr = source.pull_request;
  return pr ? `branch ${source.branch} → ${pr.base_branch} (#${pr.number})` : `branch ${source.branch}`;
}
