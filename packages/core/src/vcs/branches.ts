/**
 * Branch filters: a name matches itself; `*` matches within one path segment and `**`
 * across segments (`release/*` takes release/1.2 but not release/1.2/hotfix). No
 * character classes or braces: branch names rarely need them, and a smaller language is
 * one an admin can read at a glance.
 */
export function branchMatches(pattern: string, branch: string): boolean {
  if (!pattern.includes('*')) return pattern === branch;
  const source = pattern
    .split(/(\*\*|\*)/)
    .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`).test(branch);
}

/** The branch is one the filter takes; an empty filter takes the repository's default branch only. */
export function branchSelected(patterns: readonly string[], branch: string, defaultBranch: string | null): boolean {
  if (!patterns.length) return defaultBranch !== null && branch === defaultBranch;
  return patterns.some((p) => branchMatches(p, branch));
}
