import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A throwaway git repository in a temp folder, committed to with fixed identities. */
export async function tempRepo() {
  const dir = await mkdtemp(join(tmpdir(), 'svc-git-heal-'));
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir, GIT_AUTHOR_DATE: '2026-01-02T03:04:05Z', GIT_COMMITTER_DATE: '2026-01-02T03:04:05Z' };
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Ada Lovelace', '-c', 'user.email=ada@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd: dir, env, encoding: 'utf8' });
  git('init', '-q');
  return {
    dir,
    git,
    async commit(files: Record<string, string | null>, message: string) {
      for (const [path, content] of Object.entries(files)) {
        const abs = join(dir, path);
        if (content === null) await rm(abs);
        else {
          await mkdir(dirname(abs), { recursive: true });
          await writeFile(abs, content);
        }
      }
      git('add', '-A');
      git('commit', '-q', '-m', message);
      return git('rev-parse', 'HEAD').trim();
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
