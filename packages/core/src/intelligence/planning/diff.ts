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
    const gitPath = line.startsWith('diff --git ') ? newPathOfGitHeader(line.slice('diff --git '.length)) : undefined;
    if (gitPath !== undefined) {
      current = { path: gitPath, added: 0, removed: 0, deleted: false };
      files.set(current.path, current);
      continue;
    }
    const plus = line.startsWith('+++ ') ? headerPath(line.slice(4)) : undefined;
    if (plus !== undefined) {
      if (plus === '/dev/null') {
        if (current) current.deleted = true;
        continue;
      }
      if (!current || current.path !== plus) {
        current = files.get(plus) ?? { path: plus, added: 0, removed: 0, deleted: false };
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

/**
 * The path of a `+++ ` header: git's C-quoted form ("b/src/\303\274ber.ts", for a
 * non-ASCII character, a quote or a backslash) unquoted, a `diff -u` header's tab and
 * timestamp dropped, git's `b/` prefix removed (found by QA: both were taken as part of the path).
 */
function headerPath(rest: string): string {
  const quoted = rest.startsWith('"') ? unquoteCString(rest) : undefined;
  const raw = quoted ? quoted.value : rest.split('\t')[0].trimEnd();
  return raw === '/dev/null' ? raw : raw.replace(/^b\//, '');
}

/** `a/x b/y`, `"a/x" "b/y"` or a mix → y. */
function newPathOfGitHeader(rest: string): string | undefined {
  let after: string;
  if (rest.startsWith('"')) {
    const a = unquoteCString(rest);
    if (!a) return undefined;
    after = rest.slice(a.length).trimStart();
  } else {
    // Unquoted paths may hold spaces: the new path is the last " b/…" (or a quoted one).
    const q = rest.lastIndexOf(' "b/');
    const m = q >= 0 ? undefined : /^a\/(.+?) (b\/.+)$/.exec(rest);
    after = q >= 0 ? rest.slice(q + 1) : (m?.[2] ?? '');
  }
  const b = after.startsWith('"') ? unquoteCString(after)?.value : after;
  return b?.startsWith('b/') ? b.slice(2) : undefined;
}

/** A C-style quoted string at the start of `s` (git's quoting: \" \\ \t \n and octal UTF-8 bytes); its value and length. */
function unquoteCString(s: string): { value: string; length: number } | undefined {
  const bytes: number[] = [];
  const esc: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };
  for (let i = 1; i < s.length; i++) {
    const c = s[i];
    if (c === '"') return { value: new TextDecoder().decode(new Uint8Array(bytes)), length: i + 1 };
    if (c !== '\\') {
      const ch = String.fromCodePoint(s.codePointAt(i)!);
      bytes.push(...new TextEncoder().encode(ch));
      i += ch.length - 1;
      continue;
    }
    const next = s[++i];
    const oct = /^[0-7]{3}/.exec(s.slice(i, i + 3));
    if (oct) {
      bytes.push(parseInt(oct[0], 8));
      i += 2;
    } else if (next !== undefined && esc[next] !== undefined) bytes.push(esc[next]);
    else return undefined;
  }
  return undefined;
}
