import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { measureStories, storiesDir } from '../../bench/intelligence-stories.ts';
import { parsePlainLanguage } from '../../packages/core/src/intelligence/generation/plain-language.ts';
import { realAppsInstalled, startRealApp, realAppNames, type RealApp } from '../support/real-apps.ts';

describe('the benchmark stories', () => {
  it('there are at least 30, for all three real apps, mixing imperative lists and Given/When/Then', async () => {
    const files = (await readdir(storiesDir)).filter((f) => f.endsWith('.txt'));
    expect(files.length).toBeGreaterThanOrEqual(30);
    for (const app of realAppNames) expect(files.some((f) => f.startsWith(`${app}-`))).toBe(true);
    const texts = await Promise.all(files.map((f) => readFile(join(storiesDir, f), 'utf8')));
    expect(texts.filter((t) => /^\s*(given|when|then)\b/im.test(t)).length).toBeGreaterThanOrEqual(10);
    expect(texts.filter((t) => !/^\s*(given|when|then)\b/im.test(t)).length).toBeGreaterThanOrEqual(10);
  });

  it('every story is understood by the grammar, line by line', async () => {
    for (const f of (await readdir(storiesDir)).filter((x) => x.endsWith('.txt'))) {
      const r = parsePlainLanguage(await readFile(join(storiesDir, f), 'utf8'));
      expect(r.not_understood, f).toEqual([]);
    }
  });
});

describe.skipIf(!realAppsInstalled())('stories → passing tests on the real apps, no model (npm run apps:install)', () => {
  let apps: RealApp[] = [];
  beforeAll(async () => {
    apps = await Promise.all(realAppNames.map((n) => startRealApp(n)));
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
  });

  it('at least 90% pass when run once in Chromium', async () => {
    const r = await measureStories(Object.fromEntries(apps.map((a) => [a.name, { url: a.url }])));
    expect(r.stories).toBeGreaterThanOrEqual(30);
    expect(r.passed / r.stories, JSON.stringify(r.failures, null, 1)).toBeGreaterThanOrEqual(0.9);
  }, 300_000);
});
