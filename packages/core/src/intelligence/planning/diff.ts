/**
 * Changed paths from a unified diff (git diff / a PR's .diff): the "+++ b/path" and
 * "diff --git a/x b/y" headers, with added/removed line counts per file.
 */
export interface ChangedFile {
  path: string;
  added: number;
  removed: number;
  deleted: boolean;
}

export function changedFilesFromDiff(diff: string): ChangedFile[] {
  const files = new Map<string, ChangedFile>();
  let current: ChangedFile | undefined;
  for (const line of diff.split(/\r?\n/)) {
    const git = /^diff --git a\/(.+?) b\/(.+)$/.exec(line);
    if (git) {
      current = { path: git[2], added: 0, removed: 0, deleted: false };
      files.set(current.path, current);
      continue;
    }
    const plus = /^\+\+\+ (?:b\/)?(.+?)\s*$/.exec(line);
    if (plus) {
      if (plus[1] === '/dev/null') {
        if (current) current.deleted = true;
        continue;
      }
      if (!current || current.path !== plus[1]) {
        current = files.get(plus[1]) ?? { path: plus[1], added: 0, removed: 0, deleted: false };
        files.set(current.path, current);
      }
      continue;
    }
    if (line.startsWith('--- ')) continue;
    if (!current) continue;
    if (line.startsWith('+')) current.added++;
    else if (line.startsWith('-')) current.removed++;
  }
  return [...files.values()];
}
