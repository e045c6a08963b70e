import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureApp } from '../../fixtures/app/server.ts';

/**
 * `svc run` learns: the first run on v2 heals by ranking and records the fix in
 * <state-dir>/healing.json; the second run on v2 takes it from the cache (a hit, no new
 * pattern) and the pattern's success count grows.
 */
const root = join(import.meta.dirname, '..', '..', '..');
const bin = join(root, 'node_modules', '.bin', 'svc');
const tests = join(root, 'test', 'fixtures', 'suites', 'healing');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-heal-knowledge-cli-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function svc(args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(bin, args, { cwd: root, timeout: 240_000 }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
  });
}

async function runOn(version: 'v1' | 'v2', out: string) {
  const app = await startFixtureApp({ version });
  try {
    const res = await svc(['run', '--url', app.url, '--tests', tests, '--out', join(dir, out), '--state-dir', join(dir, 'state'), '--reporter', 'json']);
    return { res, report: JSON.parse(await readFile(join(dir, out, 'report.json'), 'utf8')) };
  } finally {
    await app.close();
  }
}

async function knowledge() {
  const items = JSON.parse(await readFile(join(dir, 'state', 'healing.json'), 'utf8')).items as Array<Record<string, any>>;
  return {
    patterns: items.filter((i) => i.entity === 'healing_pattern'),
    cache: items.filter((i) => i.entity === 'healing_cache'),
    memory: items.filter((i) => i.entity === 'memory'),
  };
}

describe('svc run keeps healing knowledge in the state dir', () => {
  it('ranks on the first v2 run, then serves the cache', async () => {
    expect((await runOn('v1', 'v1')).res.code).toBe(0);
    const first = await runOn('v2', 'v2-a');
    const healedFirst = first.report.tests.flatMap((t: { healed_selectors: unknown[] }) => t.healed_selectors);
    expect(healedFirst.length).toBeGreaterThan(0);
    const after1 = await knowledge();
    const email = after1.patterns.find((p) => p.original_selector === '#email');
    expect(email).toMatchObject({ healed_selector: 'test_id=login-email', success_count: 1, method: 'dom_similarity' });
    expect(after1.cache.find((c) => c.original_selector === '#email')).toMatchObject({ url_pattern: '/login', failure_class: 'not_found', hit_count: 0 });
    expect(after1.memory.length).toBe(2 * after1.patterns.length);

    const second = await runOn('v2', 'v2-b');
    const healedSecond = second.report.tests.flatMap((t: { healed_selectors: Array<{ original: string; healed: string }> }) => t.healed_selectors);
    expect(healedSecond).toEqual(expect.arrayContaining([expect.objectContaining({ original: '#email', healed: 'test_id=login-email' })]));
    const after2 = await knowledge();
    expect(after2.patterns.length).toBe(after1.patterns.length);
    expect(after2.patterns.find((p) => p.original_selector === '#email')?.success_count).toBe(2);
    expect(after2.cache.find((c) => c.original_selector === '#email')?.hit_count).toBe(1);
    const stats = (await readFile(join(dir, 'state', 'healing.json'), 'utf8'));
    expect(JSON.parse(stats).items.find((i: { entity: string }) => i.entity === 'healing_stats')).toMatchObject({ method_cache: healedSecond.length });
  }, 480_000);
});
