/**
 * npm run bench:search — what a semantic search costs (docs/search.md). Seeds one project
 * with 400 tests (8 steps each, written out as the search reads them), 10 finished runs
 * with 20 failures each and 200 healing patterns on the local file table, then times
 * GET /api/quality/semantic-search's computation with the local embedder: the first
 * search of a process (every candidate embedded: a cold cache), the same search again
 * (warm), and a different query over the warm cache (only the query is embedded). Median
 * of 7 for the same query, of 7 other queries for a new one. Prints a table and writes bench/results/search.json. No target
 * is set by an issue; the numbers say what the candidate cap (600 locally) costs.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createStore, type Store } from '../packages/core/src/store/index.ts';
import { semanticSearchService } from '../packages/core/src/services/semantic-search.ts';
import { SemanticSearchQuery } from '../packages/core/src/contracts/semantic-search.ts';
import { localEmbedder } from '../packages/core/src/healing/service/embedder.ts';
import { EmbeddingCache } from '../packages/core/src/search/embedding-cache.ts';
import { uuidv7 } from '../packages/core/src/ids.ts';
import { systemClock } from '../packages/core/src/ports/clock.ts';
import { FileTable } from '../packages/functions/src/local/file-table.ts';

const TESTS = 400;
const RUNS = 10;
const FAILURES_PER_RUN = 20;
const HEALS = 200;
const ROUNDS = 7;
const AREAS = ['login', 'checkout', 'search', 'profile', 'cart', 'orders', 'settings', 'signup', 'catalog', 'payment'];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function seed(store: Store) {
  const org = uuidv7();
  const project = (await store.projects.create(org, { name: 'bench', app_url: 'http://127.0.0.1:3000' })).id;
  const tests: Array<{ id: string; name: string }> = [];
  for (let i = 0; i < TESTS; i++) {
    const area = AREAS[i % AREAS.length];
    const name = `${area} flow ${i}: user ${i % 3 ? 'edits' : 'opens'} the ${area} page`;
    const steps = [
      { type: 'goto', url: `/${area}/${i}` },
      ...Array.from({ length: 6 }, (_, s) => ({ type: s % 2 ? 'click' : 'fill', selector: `#${area}-field-${s}`, ...(s % 2 ? {} : { value: `value ${s}` }) })),
      { type: 'press', selector: `#${area}-submit`, key: 'Enter' },
    ];
    const created = await store.tests.create(org, { project_id: project, name, description: `Checks the ${area} page keeps working`, type: 'ui', steps: steps as never, assertions: [], priority: 'medium', tags: [area] });
    tests.push({ id: created.id, name });
  }
  for (let r = 0; r < RUNS; r++) {
    const run = await store.testRuns.create(org, { project_id: project, trigger: 'schedule', total_tests: TESTS });
    await store.testRuns.setStatus(org, run.id, 'running', { started_at: new Date().toISOString() });
    for (let f = 0; f < FAILURES_PER_RUN; f++) {
      const t = tests[(r * FAILURES_PER_RUN + f * 7) % TESTS];
      await store.testRuns.recordResult(org, {
        test_id: t.id, test_run_id: run.id, status: 'failed', duration_ms: 900, screenshots: [], attempt: 1,
        error_message: `locator #${AREAS[f % AREAS.length]}-field-${f % 6} not found after 10000 ms (step ${f % 8})`,
        metadata: { name: t.name, failure_kind: 'locator', failed_step: f % 8 },
      });
    }
    await store.testRuns.setStatus(org, run.id, 'completed', { completed_at: new Date().toISOString() });
  }
  for (let h = 0; h < HEALS; h++) {
    const area = AREAS[h % AREAS.length];
    await store.healingPatterns.create(org, { project_id: project, pattern_type: 'selector_renamed', original_selector: `#${area}-old-${h}`, healed_selector: `[data-testid=${area}-${h}]`, confidence: 0.9, method: 'dom_similarity' });
  }
  return { org, project };
}

async function main() {
  const table = new FileTable();
  const store = createStore(table, systemClock);
  const { org, project } = await seed(store);
  const embedder = localEmbedder();
  const query = (q: string) => SemanticSearchQuery.parse({ q, project_id: project });
  const time = async (fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };

  const cache = new EmbeddingCache();
  const search = semanticSearchService({ store, embedder, cache });
  const first = query('checkout payment fails after sign in');
  const cold = await time(() => search.search(org, first));
  const again: number[] = [];
  for (let i = 0; i < ROUNDS; i++) again.push(await time(() => search.search(org, first)));
  const warm = median(again);
  const others = ['locator not found on the profile page', '#cart-field-3', 'healed data-testid for orders', 'user opens the settings page', 'signup form', 'search results', 'payment step times out'];
  const xs: number[] = [];
  for (const q of others) xs.push(await time(() => search.search(org, query(q))));
  const newQuery = median(xs);
  const result = await search.search(org, first);

  const rows = [
    ['first search (cold cache: every candidate embedded)', cold],
    ['same search again (warm cache)', warm],
    ['another query over the warm cache', newQuery],
  ] as const;
  console.log(`semantic search over ${result.searched.tests} tests, ${result.searched.failures} failures, ${result.searched.heals} heals (truncated: ${result.searched.truncated}), local embedder ${embedder.model}`);
  console.log('| case | ms |\n|---|---|');
  for (const [name, ms] of rows) console.log(`| ${name} | ${ms.toFixed(1)} |`);
  const json = {
    candidates: result.searched,
    embedder: embedder.model,
    ms: { cold: Math.round(cold * 10) / 10, warmSameQuery: Math.round(warm * 10) / 10, warmNewQuery: Math.round(newQuery * 10) / 10 },
    seeded: { tests: TESTS, runs: RUNS, failuresPerRun: FAILURES_PER_RUN, heals: HEALS },
  };
  const out = resolve(import.meta.dirname, 'results', 'search.json');
  await mkdir(resolve(import.meta.dirname, 'results'), { recursive: true });
  await writeFile(out, JSON.stringify(json, null, 2) + '\n');
  console.log(JSON.stringify(json));
  await table.close?.();
}

void main();
