/**
 * npm run bench:visual — what a visual assertion costs, on real Chromium screenshots of
 * the fixture app's /visual page:
 *   1. the comparison alone (identical bytes short-cut; else decode both PNGs, pixelmatch,
 *      encode a diff) for a real viewport capture (1280×720) and a tall full-page-sized
 *      image (1280×4000), identical and with one 40×40 box changed;
 *   2. a whole UI test (goto + one visual assertion that matches its baseline) against the
 *      same test without the assertion: the assertion's added wall time.
 * Prints a table and writes bench/results/visual.json. No target is set by an issue; the
 * numbers say what a suite of visual checks costs on this machine.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createPlaywrightDriver } from '../packages/functions/src/execution/browser/playwright-driver.ts';
import { FileBaselineStore } from '../packages/functions/src/execution/file-baselines.ts';
import { FsArtifacts } from '../packages/functions/src/execution/fs-artifacts.ts';
import { runTest } from '../packages/core/src/execution/run-test.ts';
import { httpExchange } from '../packages/core/src/execution/api/http-exchange.ts';
import { TestDefinition } from '../packages/core/src/contracts/steps.ts';
import { compareScreenshots } from '../packages/core/src/visual/compare.ts';
import { pngOf } from '../packages/core/src/visual/test-png.ts';
import { startFixtureApp } from '../test/fixtures/app/server.ts';

const COMPARE_ROUNDS = 20;
const TEST_ROUNDS = 15;

const app = await startFixtureApp();
const driver = await createPlaywrightDriver();
const dir = await mkdtemp(join(tmpdir(), 'svc-bench-visual-'));
const ctx = () => ({ signal: new AbortController().signal, deadline: Date.now() + 30_000, log: () => {} });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function timed(rounds: number, work: () => unknown | Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    await work();
    ms.push(performance.now() - t0);
  }
  return median(ms);
}

/** A real screenshot of /visual (the clock masked, as a test would). */
async function shot(query: string): Promise<Uint8Array> {
  const s = await driver.openSession({ baseUrl: app.url, trace: false });
  try {
    await s.perform({ type: 'goto', url: `/visual${query}` }, ctx());
    return (await s.capture({ mask: ['#clock'] }, ctx())).png;
  } finally {
    await s.close();
  }
}

try {
  const compare: Record<string, { width: number; height: number; identical_ms: number; changed_ms: number; diff_pixels: number }> = {};
  // A real viewport capture, and a tall full-page-sized image (solid, one patch changed:
  // the comparison's cost is per pixel, whatever the pixels show).
  const tall = (patch: boolean) => pngOf(1280, 4000, [246, 247, 249], patch ? { x: 100, y: 3000, w: 40, h: 40, rgb: [221, 0, 0] } : undefined);
  const cases: Array<[string, () => Promise<[Uint8Array, Uint8Array, Uint8Array]>]> = [
    ['viewport (real)', async () => [await shot(''), await shot(''), await shot('?box=red')]],
    ['full page (1280×4000)', async () => [tall(false), tall(false), tall(true)]],
  ];
  for (const [label, images] of cases) {
    const [base, same, changed] = await images();
    const r = compareScreenshots(base, changed);
    compare[label] = {
      width: r.width,
      height: r.height,
      identical_ms: await timed(COMPARE_ROUNDS, () => compareScreenshots(base, same)),
      changed_ms: await timed(COMPARE_ROUNDS, () => compareScreenshots(base, changed)),
      diff_pixels: r.diff_pixels,
    };
  }

  const baselines = new FileBaselineStore(join(dir, 'baselines'));
  const testOf = (visual: boolean) =>
    TestDefinition.parse({ name: 'visual bench', type: 'ui', steps: [{ type: 'goto', url: '/visual' }], assertions: visual ? [{ type: 'visual', baseline: 'page', mask: ['#clock'] }] : [] });
  const runOnce = async (visual: boolean) => {
    const r = await runTest('bench', testOf(visual), { ui: async () => driver, http: httpExchange, artifacts: new FsArtifacts(join(dir, 'artifacts')), baseUrl: app.url, environment: {}, secrets: {}, traceOnFailure: false, baselines });
    if (r.status !== 'passed') throw new Error(`the bench test failed: ${r.error_message}`);
  };
  await runOnce(true); // records the baseline
  await runOnce(false); // warm
  // Interleaved, so drift on a noisy machine falls on both sides alike.
  const plain: number[] = [];
  const withVisual: number[] = [];
  for (let i = 0; i < TEST_ROUNDS; i++) {
    plain.push(await timed(1, () => runOnce(false)));
    withVisual.push(await timed(1, () => runOnce(true)));
  }
  const test = { without_ms: median(plain), with_ms: median(withVisual), added_ms: median(withVisual) - median(plain) };

  console.log('\nvisual comparison (median of %d)', COMPARE_ROUNDS);
  console.table(Object.fromEntries(Object.entries(compare).map(([k, v]) => [k, { size: `${v.width}×${v.height}`, 'identical ms': v.identical_ms.toFixed(1), 'changed ms': v.changed_ms.toFixed(1), 'diff pixels': v.diff_pixels }])));
  console.log('a UI test with and without one matching visual assertion (median of %d)', TEST_ROUNDS);
  console.table({ test: { 'without ms': test.without_ms.toFixed(0), 'with ms': test.with_ms.toFixed(0), 'added ms': test.added_ms.toFixed(0) } });

  const result = { compare, test, rounds: { compare: COMPARE_ROUNDS, test: TEST_ROUNDS } };
  const out = resolve(import.meta.dirname, 'results');
  await mkdir(out, { recursive: true });
  await writeFile(join(out, 'visual.json'), JSON.stringify(result, null, 2) + '\n');
  console.log(JSON.stringify(result));
} finally {
  await driver.close();
  await app.close();
  await rm(dir, { recursive: true, force: true });
}
