/**
 * npm run bench:intelligence — on the three real apps (npm run apps:install):
 *   1. discovery coverage: pages the crawler found vs the hand-written ground truth in
 *      bench/intelligence/ground-truth/<app>.json (target ≥ 0.95);
 *   2. time per page: crawl wall time / pages visited (median of ROUNDS crawls per app);
 *   3. story success: plain-language stories that become passing tests with no model
 *      (bench/intelligence-stories.ts, when present; target ≥ 0.90).
 * Prints a table and writes bench/results/intelligence.json as
 * { discoveryCoverage, storySuccess, stories, msPerPage } plus per-app details.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createPlaywrightDriver } from '../packages/functions/src/execution/browser/playwright-driver.ts';
import { crawl } from '../packages/functions/src/discovery/crawler.ts';
import { normaliseUrl } from '../packages/core/src/intelligence/discovery/urls.ts';
import { installRealApps, realAppNames, startRealApp, type RealAppName } from '../test/support/real-apps.ts';

const ROUNDS = 3;
const here = import.meta.dirname;

interface AppFigures { app: string; truth: number; found: number; covered: number; coverage: number; missing: string[]; extra: string[]; msPerPage: number; pagesVisited: number }

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

installRealApps((line) => console.log(line));
const driver = await createPlaywrightDriver({ executablePath: process.env.SVC_CHROMIUM_PATH });
const figures: AppFigures[] = [];
let storyHalf: { stories: number; passed: number; failures?: Array<{ id: string; reason: string }> } | undefined;
try {
  const started = new Map<RealAppName, Awaited<ReturnType<typeof startRealApp>>>();
  for (const name of realAppNames) started.set(name, await startRealApp(name));
  try {
    // A warm-up crawl so Chromium's launch is not charged to the first app.
    await crawl(driver, { startUrl: started.get('todomvc')!.url, maxPages: 1 });
    for (const name of realAppNames) {
      const app = started.get(name)!;
      const truth = JSON.parse(await readFile(join(here, 'intelligence', 'ground-truth', `${name}.json`), 'utf8')) as { pages: string[] };
      const expected = new Set(truth.pages.map((p) => normaliseUrl(p, app.origin)!));
      const perPage: number[] = [];
      let found = new Set<string>();
      for (let round = 0; round < ROUNDS; round++) {
        const result = await crawl(driver, { startUrl: app.url, maxPages: 50, pageTimeoutMs: 10_000 });
        perPage.push(result.durationMs / Math.max(1, result.pages.length));
        found = new Set(result.pages.map((p) => p.url));
      }
      const covered = [...expected].filter((u) => found.has(u)).length;
      figures.push({
        app: name,
        truth: expected.size,
        found: found.size,
        covered,
        coverage: covered / expected.size,
        missing: [...expected].filter((u) => !found.has(u)),
        extra: [...found].filter((u) => !expected.has(u)),
        msPerPage: Math.round(median(perPage)),
        pagesVisited: found.size,
      });
    }
    const storiesModule = resolve(here, 'intelligence-stories.ts');
    if (existsSync(storiesModule)) {
      const { measureStories } = (await import(storiesModule)) as { measureStories: (apps: Record<string, { url: string }>, opts?: { driver?: unknown }) => Promise<{ stories: number; passed: number; failures?: Array<{ id: string; reason: string }> }> };
      storyHalf = await measureStories(Object.fromEntries([...started].map(([n, a]) => [n, { url: a.url }])), { driver });
    } else {
      console.log('story success: not available (bench/intelligence-stories.ts is missing)');
    }
  } finally {
    for (const app of started.values()) await app.close();
  }
} finally {
  await driver.close();
}

const totalTruth = figures.reduce((n, f) => n + f.truth, 0);
const totalCovered = figures.reduce((n, f) => n + f.covered, 0);
const totalPages = figures.reduce((n, f) => n + f.pagesVisited, 0);
const result = {
  discoveryCoverage: Math.round((totalCovered / totalTruth) * 1000) / 1000,
  storySuccess: storyHalf ? Math.round((storyHalf.passed / Math.max(1, storyHalf.stories)) * 1000) / 1000 : null,
  stories: storyHalf?.stories ?? 0,
  msPerPage: Math.round(figures.reduce((n, f) => n + f.msPerPage * f.pagesVisited, 0) / Math.max(1, totalPages)),
  apps: figures,
  storyFailures: storyHalf?.failures ?? [],
  rounds: ROUNDS,
  measuredAt: new Date().toISOString(),
};

console.log('\napp          truth  found  covered  coverage  ms/page');
for (const f of figures) console.log(`${f.app.padEnd(12)} ${String(f.truth).padStart(5)}  ${String(f.found).padStart(5)}  ${String(f.covered).padStart(7)}  ${f.coverage.toFixed(2).padStart(8)}  ${String(f.msPerPage).padStart(7)}`);
for (const f of figures) if (f.missing.length) console.log(`  ${f.app} missing: ${f.missing.join(', ')}`);
console.log(`\ndiscoveryCoverage ${result.discoveryCoverage} (target ≥ 0.95)  msPerPage ${result.msPerPage}`);
console.log(storyHalf ? `storySuccess ${result.storySuccess} (${storyHalf.passed}/${storyHalf.stories}, target ≥ 0.90)` : 'storySuccess: not available');
const out = resolve(here, 'results', 'intelligence.json');
await mkdir(resolve(here, 'results'), { recursive: true });
await writeFile(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(`wrote ${out}`);
