import { describe, it, expect, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { healFromGit, GitHealError } from '../../packages/functions/src/healing-git/index.ts';
import { GitHealResult } from '../../packages/functions/src/healing-git/types.ts';
import { tempRepo } from './repo.ts';

const loginV1 = `export function Login() {
  return (
    <form onSubmit={submit}>
      <input id="email" name="email" type="email" />
      <button id="login-btn" className="btn primary" data-testid="login-submit">Sign in</button>
      <a href="/forgot" data-testid="forgot-link">Forgot password?</a>
    </form>
  );
}
`;

const repos: Array<{ remove(): Promise<unknown> }> = [];
afterAll(async () => {
  for (const r of repos) await r.remove();
});

async function history() {
  const repo = await tempRepo();
  repos.push(repo);
  await repo.commit({ 'src/Login.tsx': loginV1, 'README.md': '# app\n' }, 'Add login form');
  return repo;
}

describe('git-aware healing', () => {
  it('finds a rename of an id and proposes the new selector with the commit behind it', async () => {
    const repo = await history();
    await repo.commit({ 'README.md': '# app\n\nDocs.\n' }, 'Docs');
    const sha = await repo.commit({ 'src/Login.tsx': loginV1.replace('id="login-btn"', 'id="sign-in-btn"') }, 'Rename login button id');
    const result = await healFromGit({ repo: repo.dir, selector: '#login-btn' });
    expect(GitHealResult.parse(result)).toEqual(result);
    expect(result).toMatchObject({
      original_selector: '#login-btn', healed_selector: '#sign-in-btn', kind: 'rename', commit: sha, author: 'Ada Lovelace', author_email: 'ada@example.com',
      message: 'Rename login button id', file: 'src/Login.tsx', token: 'login-btn',
    });
    expect(result.confidence).toBeGreaterThanOrEqual(0.9);
    expect(result.evidence.removed).toContain('login-btn');
    expect(result.evidence.added).toContain('sign-in-btn');
  });

  it('renames a test id inside an attribute selector, keeping the selector syntax', async () => {
    const repo = await history();
    await repo.commit({ 'src/Login.tsx': loginV1.replace('data-testid="login-submit"', 'data-testid="signin-submit"') }, 'Test ids follow the copy');
    const result = await healFromGit({ repo: repo.dir, selector: '[data-testid="login-submit"]', candidate: '[data-testid="signin-submit"]' });
    expect(result.kind).toBe('rename');
    expect(result.healed_selector).toBe('[data-testid="signin-submit"]');
    expect(result.confidence).toBeGreaterThanOrEqual(0.95);
    expect(result.notes.join(' ')).toContain('agrees');
  });

  it('a candidate that disagrees with history lowers the confidence', async () => {
    const repo = await history();
    await repo.commit({ 'src/Login.tsx': loginV1.replace('data-testid="login-submit"', 'data-testid="signin-submit"') }, 'Test ids follow the copy');
    const agree = await healFromGit({ repo: repo.dir, selector: '[data-testid=login-submit]' });
    const disagree = await healFromGit({ repo: repo.dir, selector: '[data-testid=login-submit]', candidate: '[data-testid=forgot-link]' });
    expect(agree.healed_selector).toBe('[data-testid=signin-submit]');
    expect(disagree.confidence).toBeLessThan(agree.confidence);
  });

  it('a class swapped in a multi-class attribute is a rename of that class', async () => {
    const repo = await history();
    await repo.commit({ 'src/Login.tsx': loginV1.replace('className="btn primary"', 'className="btn brand"') }, 'New button palette');
    const result = await healFromGit({ repo: repo.dir, selector: 'button.primary' });
    expect(result).toMatchObject({ kind: 'rename', healed_selector: 'button.brand' });
  });

  it('a text change is a rename of the text selector', async () => {
    const repo = await history();
    await repo.commit({ 'src/Login.tsx': loginV1.replace('>Sign in<', '>Log in<') }, 'Copy: log in');
    const result = await healFromGit({ repo: repo.dir, selector: 'text=Sign in' });
    expect(result).toMatchObject({ kind: 'rename', healed_selector: 'text=Log in' });
  });

  it('a deleted element is a removal with no healed selector', async () => {
    const repo = await history();
    const sha = await repo.commit({ 'src/Login.tsx': loginV1.replace(/\s*<a href="\/forgot"[^\n]*/, '') }, 'Drop forgot-password link');
    const result = await healFromGit({ repo: repo.dir, selector: '[data-testid="forgot-link"]', candidate: '[data-testid="login-submit"]' });
    expect(result).toMatchObject({ kind: 'removal', healed_selector: null, commit: sha, message: 'Drop forgot-password link', file: 'src/Login.tsx' });
    expect(result.confidence).toBeGreaterThanOrEqual(0.8);
    expect(result.notes.join(' ')).toContain('should not be applied');
  });

  it('a deleted file is a removal', async () => {
    const repo = await history();
    await repo.commit({ 'src/Login.tsx': null }, 'Remove login page');
    const result = await healFromGit({ repo: repo.dir, selector: '#login-btn' });
    expect(result).toMatchObject({ kind: 'removal', healed_selector: null, file: 'src/Login.tsx' });
  });

  it('unrelated changes leave the verdict unknown', async () => {
    const repo = await history();
    await repo.commit({ 'src/Login.tsx': loginV1.replace('Forgot password?', 'Reset password') }, 'Copy tweak');
    const result = await healFromGit({ repo: repo.dir, selector: '#does-not-exist' });
    expect(result).toMatchObject({ kind: 'unknown', healed_selector: null, commit: null, confidence: 0 });
    // the token is still in the code: history added it and never removed it
    const present = await healFromGit({ repo: repo.dir, selector: '#login-btn' });
    expect(present).toMatchObject({ kind: 'unknown', commit: null });
  });

  it('does not confuse a token with a longer one that contains it', async () => {
    const repo = await history();
    await repo.commit({ 'src/Login.tsx': loginV1.replace('id="email"', 'id="email-2"') }, 'Second email field id');
    const result = await healFromGit({ repo: repo.dir, selector: '#email-2-confirm' });
    expect(result.kind).toBe('unknown');
  });

  it('the most recent removal wins', async () => {
    const repo = await history();
    await repo.commit({ 'src/Login.tsx': loginV1.replace('id="login-btn"', 'id="signin"') }, 'First rename');
    await repo.commit({ 'src/Login.tsx': loginV1 }, 'Revert rename');
    const sha = await repo.commit({ 'src/Login.tsx': loginV1.replace('id="login-btn"', 'id="submit-login"') }, 'Second rename');
    const result = await healFromGit({ repo: repo.dir, selector: '#login-btn' });
    expect(result).toMatchObject({ kind: 'rename', healed_selector: '#submit-login', commit: sha });
  });

  it('never writes to the repository', async () => {
    const repo = await history();
    await repo.commit({ 'src/Login.tsx': loginV1.replace('id="login-btn"', 'id="sign-in-btn"') }, 'Rename');
    const before = await readdir(join(repo.dir, '.git'));
    const status = repo.git('status', '--porcelain');
    await healFromGit({ repo: repo.dir, selector: '#login-btn' });
    expect(await readdir(join(repo.dir, '.git'))).toEqual(before);
    expect(repo.git('status', '--porcelain')).toBe(status);
  });

  it('a folder that is not a git repository is a clear error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-not-git-'));
    try {
      await expect(healFromGit({ repo: dir, selector: '#x' })).rejects.toThrow(GitHealError);
      await expect(healFromGit({ repo: dir, selector: '#x' })).rejects.toThrow(/not a git repository/);
      await expect(healFromGit({ repo: join(dir, 'missing'), selector: '#x' })).rejects.toThrow(/does not exist/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a selector with nothing to search for is a clear error', async () => {
    const repo = await history();
    await expect(healFromGit({ repo: repo.dir, selector: '   ' })).rejects.toThrow(/identifying token/);
  });

  it('an empty repository answers unknown', async () => {
    const repo = await tempRepo();
    repos.push(repo);
    const result = await healFromGit({ repo: repo.dir, selector: '#a' });
    expect(result).toMatchObject({ kind: 'unknown', notes: ['the repository has no commits'] });
  });
});

describe('svc heal git', () => {
  const bin = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'svc');
  const run = promisify(execFile);

  it('prints the verdict as JSON', async () => {
    const repo = await history();
    await repo.commit({ 'src/Login.tsx': loginV1.replace('id="login-btn"', 'id="sign-in-btn"') }, 'Rename login button id');
    const { stdout } = await run(bin, ['heal', 'git', '--repo', repo.dir, '--selector', '#login-btn']);
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({ kind: 'rename', healed_selector: '#sign-in-btn', author: 'Ada Lovelace', message: 'Rename login button id' });
  });

  it('exits 2 with a clear message for a folder that is not a repository', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-not-git-'));
    try {
      await expect(run(bin, ['heal', 'git', '--repo', dir, '--selector', '#x'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('not a git repository') });
      await expect(run(bin, ['heal', 'git', '--repo', dir])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--selector is required') });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
