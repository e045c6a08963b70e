import { execFile } from 'node:child_process';

/**
 * Runs git read-only: execFile with an argument list (never a shell string), a timeout,
 * a bounded output buffer, no optional locks (so not even the index is refreshed), no
 * pager, no prompts, no external diff drivers.
 */
export interface GitOptions {
  timeoutMs?: number;
  maxBuffer?: number;
}

export class GitError extends Error {
  constructor(message: string, readonly exitCode: number | null, readonly stderr: string) {
    super(message);
    this.name = 'GitError';
  }
}

export function git(repo: string, args: string[], opts: GitOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['--no-optional-locks', '--no-pager', '-c', 'core.quotepath=off', '-c', 'diff.external=', '-C', repo, ...args],
      {
        timeout: opts.timeoutMs ?? 15_000,
        maxBuffer: opts.maxBuffer ?? 32 * 1024 * 1024,
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0' },
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        if (err) {
          const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: unknown };
          const why = e.killed ? `timed out after ${opts.timeoutMs ?? 15_000} ms` : e.code === 'ENOENT' ? 'git is not installed' : String(stderr).trim().split('\n')[0] || e.message;
          reject(new GitError(`git ${args[0]}: ${why}`, typeof e.code === 'number' ? e.code : null, String(stderr)));
        } else resolve(stdout);
      },
    );
  });
}
