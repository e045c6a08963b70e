import { describe, it, expect, afterAll } from 'vitest';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRepository, resolveAllowedPath, RepositoryReadError } from '../../../packages/functions/src/intelligence/read-repository.ts';
import { reposDir } from './sample-repos.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function bigRepo(files: number) {
  const dir = await mkdtemp(join(tmpdir(), 'svc-read-big-'));
  dirs.push(dir);
  await mkdir(join(dir, 'src'));
  for (let i = 0; i < files; i++) await writeFile(join(dir, 'src', `f${String(i).padStart(3, '0')}.js`), `app.get('/r${i}', h);\n`);
  await writeFile(join(dir, 'huge.js'), 'x'.repeat(300_000));
  return dir;
}

describe('reading a repository', () => {
  it('a path that does not exist or is a file is a clear error', async () => {
    await expect(readRepository('/definitely/not/here')).rejects.toThrow(RepositoryReadError);
    await expect(readRepository('/definitely/not/here')).rejects.toThrow(/path does not exist/);
    await expect(readRepository(join(reposDir, 'README.md'))).rejects.toThrow(/not a directory/);
  });

  it('a huge repository gives a partial result that says what was not read', async () => {
    const dir = await bigRepo(40);
    const read = await readRepository(dir, { maxFiles: 10, maxFileBytes: 100_000, maxSkippedListed: 20 });
    expect(read.partial).toBe(true);
    expect(read.files).toHaveLength(10);
    expect(read.skipped.find((s) => s.path === 'huge.js')?.reason).toMatch(/larger than 100000 bytes/);
    expect(read.skipped.filter((s) => /file limit of 10 reached/.test(s.reason)).length).toBe(19);
    expect(read.skipped_unlisted).toBe(11);
  });

  it('stops at the total byte limit', async () => {
    const dir = await bigRepo(30);
    const read = await readRepository(dir, { maxTotalBytes: 200 });
    expect(read.partial).toBe(true);
    expect(read.bytes).toBeLessThanOrEqual(200);
    expect(read.skipped.some((s) => /total size limit/.test(s.reason))).toBe(true);
  });

  it('only paths inside an allowed root are readable, whatever .. and symlinks say', async () => {
    const inside = await resolveAllowedPath(join(reposDir, 'express-shop'), [reposDir]);
    expect(inside).toEqual({ path: join(reposDir, 'express-shop') });
    expect(await resolveAllowedPath(join(reposDir, 'express-shop', '..', '..'), [reposDir])).toMatchObject({ reason: 'not_allowed' });
    expect(await resolveAllowedPath('/etc', [reposDir])).toMatchObject({ reason: 'not_allowed' });
    expect(await resolveAllowedPath(join(reposDir, 'nope'), [reposDir])).toMatchObject({ reason: 'not_found' });
    expect(await resolveAllowedPath(reposDir, [])).toMatchObject({ reason: 'not_allowed' });
  });
});
