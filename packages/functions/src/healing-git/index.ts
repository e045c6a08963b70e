import { stat } from 'node:fs/promises';
import { git, GitError } from './git.ts';
import { parseDiff } from './diff.ts';
import { classifyChange } from './classify-change.ts';
import { replaceToken, selectorToken, tokenPattern } from './selector-token.ts';
import { GitHealError, type GitHealInput, type GitHealResult } from './types.ts';

export { GitHealError, GitHealResult, type GitHealInput } from './types.ts';

const FIELD = '\x1f';
const RECORD = '\x1e';

/**
 * Git-aware healing (spec rule 2), read-only: finds the most recent commit that removed
 * the selector's identifying token (`git log -S`), then reads that commit's diff to tell
 * a rename (propose the new value) from a removal (propose nothing: healing onto a
 * neighbour would hide a real regression).
 */
export async function healFromGit(input: GitHealInput): Promise<GitHealResult> {
  const opts = { timeoutMs: input.timeoutMs ?? 15_000 };
  const maxCommits = Math.max(1, Math.min(input.maxCommits ?? 50, 1000));
  const token = selectorToken(input.selector);
  if (!token) throw new GitHealError('bad_selector', `cannot find an identifying token in selector "${input.selector}"`);
  if (/[\n\r\0]/.test(token.token)) throw new GitHealError('bad_selector', 'the selector\'s token contains a line break or NUL');
  await assertRepository(input.repo, opts);

  const base: GitHealResult = {
    original_selector: input.selector, healed_selector: null, kind: 'unknown', confidence: 0, commit: null, author: null, author_email: null,
    date: null, message: null, file: null, token: token.token, evidence: {}, notes: [],
  };
  const hasHead = await git(input.repo, ['rev-parse', '--verify', '--quiet', 'HEAD'], opts).then(() => true, () => false);
  if (!hasHead) return { ...base, notes: ['the repository has no commits'] };

  const log = await git(input.repo, ['log', `--max-count=${maxCommits}`, `--format=%H${FIELD}%an${FIELD}%ae${FIELD}%aI${FIELD}%s${RECORD}`, `-S${token.token}`, 'HEAD', '--'], opts);
  const commits = log.split(RECORD).map((r) => r.trim()).filter(Boolean).map((r) => {
    const [sha, author, email, date, message] = r.split(FIELD);
    return { sha, author, email, date, message };
  });
  if (!commits.length) return { ...base, notes: [`no commit among the history changed the number of occurrences of "${token.token}"`] };

  const re = tokenPattern(token);
  for (const c of commits) {
    const diff = await git(input.repo, ['show', '--format=', '--no-color', '--no-ext-diff', '--unified=3', `-S${token.token}`, c.sha, '--'], opts);
    const hunks = parseDiff(diff);
    const removed = hunks.reduce((n, h) => n + h.removed.filter((l) => re.test(l.text)).length, 0);
    const added = hunks.reduce((n, h) => n + h.added.filter((l) => re.test(l.text)).length, 0);
    // A commit that added the token (or only moved it) did not break the selector.
    if (removed === 0 || added >= removed) continue;
    const verdict = classifyChange(token, hunks);
    if (!verdict) continue;
    const result: GitHealResult = {
      ...base, kind: verdict.kind, confidence: verdict.confidence, commit: c.sha, author: c.author, author_email: c.email, date: c.date, message: c.message,
      file: verdict.file, evidence: { removed: verdict.removed.slice(0, 500), ...(verdict.added ? { added: verdict.added.slice(0, 500) } : {}) }, notes: [...verdict.notes],
      healed_selector: verdict.kind === 'rename' && verdict.newToken ? replaceToken(input.selector, token, verdict.newToken) : null,
    };
    await crossCheck(result, input, re, opts);
    result.confidence = Math.round(Math.max(0, Math.min(0.99, result.confidence)) * 100) / 100;
    return result;
  }
  return { ...base, notes: [`"${token.token}" was added or moved by the commits that touched it, never removed`] };
}

/** Lowers confidence when the history and the present disagree. */
async function crossCheck(result: GitHealResult, input: GitHealInput, re: RegExp, opts: { timeoutMs: number }) {
  const stillThere = await grepHead(input.repo, result.token, re, opts);
  if (stillThere.length) {
    result.confidence -= 0.3;
    result.notes.push(`the token is still present at HEAD in ${stillThere.slice(0, 5).join(', ')}; the selector may have broken for another reason`);
  }
  if (input.candidate !== undefined) {
    const same = (a: string, b: string) => a.replace(/\s+/g, '').replace(/'/g, '"') === b.replace(/\s+/g, '').replace(/'/g, '"');
    if (result.kind === 'rename' && result.healed_selector && same(result.healed_selector, input.candidate)) {
      result.confidence += 0.04;
      result.notes.push('the candidate selector agrees with the rename found in history');
    } else if (result.kind === 'rename') {
      result.confidence -= 0.2;
      result.notes.push(`the candidate selector "${input.candidate}" differs from the rename found in history`);
    } else if (result.kind === 'removal') {
      result.notes.push(`the element was removed; the candidate "${input.candidate}" is probably a different element and should not be applied`);
    }
  }
}

async function grepHead(repo: string, token: string, re: RegExp, opts: { timeoutMs: number }): Promise<string[]> {
  try {
    const out = await git(repo, ['grep', '-I', '-n', '-F', '-e', token, 'HEAD', '--'], opts);
    const files = new Set<string>();
    for (const line of out.split('\n')) {
      // HEAD:path:line:text
      const m = /^HEAD:([^:]+):\d+:(.*)$/.exec(line);
      if (m && re.test(m[2])) files.add(m[1]);
    }
    return [...files];
  } catch (err) {
    if (err instanceof GitError && err.exitCode === 1) return []; // git grep: no match
    throw err;
  }
}

async function assertRepository(repo: string, opts: { timeoutMs: number }) {
  const st = await stat(repo).catch(() => null);
  if (!st) throw new GitHealError('not_found', `repository path does not exist: ${repo}`);
  if (!st.isDirectory()) throw new GitHealError('not_a_repository', `not a git repository (not a folder): ${repo}`);
  try {
    await git(repo, ['rev-parse', '--git-dir'], opts);
  } catch (err) {
    if (err instanceof GitError) throw new GitHealError('not_a_repository', `not a git repository: ${repo}`);
    throw err;
  }
}
