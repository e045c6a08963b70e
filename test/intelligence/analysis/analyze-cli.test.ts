import { describe, it, expect, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sampleRepo, SENTINEL } from './sample-repos.ts';

const bin = join(import.meta.dirname, '..', '..', '..', 'node_modules', '.bin', 'svc');
const run = promisify(execFile);
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

describe('svc analyze', () => {
  it('prints the summary and the surfaces, without secrets', async () => {
    const repo = await sampleRepo('express-shop');
    cleanups.push(repo.remove);
    const { stdout } = await run(bin, ['analyze', repo.dir]);
    expect(stdout).toContain('Frameworks: express');
    expect(stdout).toMatch(/POST\s+\/login\s+http_route\s+express\s+src\/server\.js:13/);
    expect(stdout).toMatch(/Forms \(1\):/);
    expect(stdout).toMatch(/Skipped: \d+ — .*blocked: environment file/);
    expect(stdout).not.toContain(SENTINEL);
  });

  it('--json prints the whole analysis', async () => {
    const repo = await sampleRepo('react-spa');
    cleanups.push(repo.remove);
    const { stdout } = await run(bin, ['analyze', repo.dir, '--json']);
    const out = JSON.parse(stdout);
    expect(out.summary.counts.client_routes).toBe(10);
    expect(out.root).toBe(repo.dir);
    expect(stdout).not.toContain(SENTINEL);
  });

  it('a missing folder or bad usage exits 2 with a clear message', async () => {
    await expect(run(bin, ['analyze', '/no/such/folder'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('path does not exist: /no/such/folder') });
    await expect(run(bin, ['analyze'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('exactly one folder') });
    await expect(run(bin, ['analyze', '.', '--max-files', 'lots'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--max-files') });
  });
});
