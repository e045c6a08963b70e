import { describe, it, expect, afterAll } from 'vitest';
import { mkdtemp, rm, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileHealingKnowledge } from '../../../packages/functions/src/execution/file-healing-knowledge.ts';
import type { HealQuery } from '@svc/core/healing/service/knowledge';

/** `svc run`'s healing knowledge: what one run learns is in the state dir for the next. */
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
const stateDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'svc-heal-knowledge-'));
  dirs.push(d);
  return d;
};

const query: HealQuery = { original: '#email', url: 'http://127.0.0.1:1/login', urlPattern: '/login', failureClass: 'not_found', failureText: 'fill: #email matched 0 elements' };
const heal = { original: '#email', healed: 'test_id=login-email', healedLocator: { test_id: 'login-email' }, confidence: 0.92, method: 'dom_similarity' as const, fromCache: false, strategy: 'testId' };

describe('file healing knowledge', () => {
  it('persists patterns, the cache and memory in <stateDir>/healing.json across runs', async () => {
    const dir = await stateDir();
    const first = fileHealingKnowledge(dir);
    expect(await first.lookup(query)).toEqual({ fixes: [], reverted: [] });
    await first.recordSuccess(query, heal);
    await first.completed!(query, { success: true, heal, bestConfidence: 0.92 });

    const saved = JSON.parse(await readFile(join(dir, 'healing.json'), 'utf8'));
    expect(saved.version).toBe(1);
    expect(saved.items.map((i: { entity: string }) => i.entity).sort()).toEqual(['healing_cache', 'healing_pattern', 'healing_stats', 'memory', 'memory']);

    // The next run (a new process) finds the fix in the cache for the same page and failure…
    const next = fileHealingKnowledge(dir);
    expect((await next.lookup(query)).fixes).toEqual([expect.objectContaining({ source: 'cache', healed: 'test_id=login-email', healedLocator: { test_id: 'login-email' } })]);
    // …and in memory for another page where the same selector broke the same way.
    const elsewhere = { ...query, url: 'http://127.0.0.1:1/signin', urlPattern: '/signin' };
    expect((await next.lookup(elsewhere)).fixes).toEqual([expect.objectContaining({ source: 'memory', healed: 'test_id=login-email' })]);

    // A failed re-run of the cached fix drops it.
    const fix = (await next.lookup(query)).fixes[0];
    await next.recordFailure(query, fix, 'no longer there');
    expect((await fileHealingKnowledge(dir).lookup(query)).fixes.map((f) => f.source)).toEqual(['memory']);
  });

  it('starts empty when the file is unreadable', async () => {
    const dir = await stateDir();
    await writeFile(join(dir, 'healing.json'), '{ not json');
    expect(await fileHealingKnowledge(dir).lookup(query)).toEqual({ fixes: [], reverted: [] });
  });
});
