// `npm run bench:execution`: the same N-test UI suite run (a) by a bare playwright-core
// script and (b) by `svc run`, both as child processes started the same way. Prints a
// table and writes bench/results/execution.json. BENCH_TESTS (24) tests, BENCH_REPS (3)
// interleaved repetitions; the medians are reported.
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startFixtureApp } from '../test/fixtures/app/server.ts';
import { benchSuite } from './execution-suite.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const N = Number(process.env.BENCH_TESTS ?? 24);
const REPS = Number(process.env.BENCH_REPS ?? 3);

async function timed(cmd: string, args: string[]): Promise<{ ms: number; stdout: string }> {
  const t0 = performance.now();
  const { stdout } = await run(cmd, args, { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  return { ms: performance.now() - t0, stdout };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  // What a user runs after `npm ci`: the built CLI (bin/svc.js falls back to the sources
  // through tsx when the build is missing or stale, which would measure the wrong thing).
  await run(process.execPath, [join(root, 'packages', 'functions', 'bin', 'build.mjs')], { cwd: root });
  const { distIsFresh } = await import('../packages/functions/bin/cli-build.mjs');
  const app = await startFixtureApp();
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-exec-'));
  try {
    await mkdir(join(dir, 'tests'));
    await writeFile(join(dir, 'tests', 'suite.json'), JSON.stringify({ tests: benchSuite(N) }));
    const node = process.execPath;
    const svc = join(root, 'node_modules', '.bin', 'svc');
    const bare = async (workers: number) => {
      const r = await timed(node, [join(root, 'bench', 'execution-bare.mjs'), app.url, String(N), String(workers)]);
      if (JSON.parse(r.stdout.trim()).failed) throw new Error(`the bare script failed ${JSON.parse(r.stdout.trim()).failed} tests`);
      return r.ms;
    };
    let rebuilds = 0;
    const svcRun = async (workers: number) => {
      // A source edited meanwhile (say, by a developer) makes the build stale and bin/svc.js
      // would run the sources: rebuild first, outside the timed part.
      if (!distIsFresh()) {
        rebuilds++;
        await run(process.execPath, [join(root, 'packages', 'functions', 'bin', 'build.mjs')], { cwd: root });
      }
      // execFile rejects on exit code 1: a failed test fails the benchmark.
      return (await timed(svc, ['run', '--url', app.url, '--tests', join(dir, 'tests'), '--workers', String(workers), '--reporter', 'json', '--out', join(dir, `out-${workers}`)])).ms;
    };

    await bare(1); // warm the page cache for Chromium and the module loaders
    await svcRun(1);
    // Interleaved repetitions, medians: the machine may be shared, and a single sample of each
    // is at the mercy of whatever else runs at that moment.
    const samples = { a1: [] as number[], a2: [] as number[], b1: [] as number[], b2: [] as number[] };
    for (let r = 0; r < REPS; r++) {
      samples.a1.push(await bare(1));
      samples.b1.push(await svcRun(1));
      samples.a2.push(await bare(2));
      samples.b2.push(await svcRun(2));
    }
    const [a1, a2, b1, b2] = [median(samples.a1), median(samples.a2), median(samples.b1), median(samples.b2)];

    const ratio = b1 / a1;
    const perTestOverheadMs = (b1 - a1) / N;
    const testsPerMinute = { '1': (N / b1) * 60_000, '2': (N / b2) * 60_000 };
    const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
    const result = { ratio: round(ratio, 3), perTestOverheadMs: round(perTestOverheadMs, 1), testsPerMinute: { '1': round(testsPerMinute['1'], 1), '2': round(testsPerMinute['2'], 1) } };
    const all = (xs: number[]) => xs.map((x) => round(x / 1000)).join(' ');

    console.log(`\nExecution benchmark: ${N} UI tests against the fixture app (one fresh browser context per test), median of ${REPS} interleaved runs\n`);
    console.table({
      'bare playwright-core, 1 worker': { 'wall s': round(a1 / 1000), 'tests/min': round((N / a1) * 60_000, 1), runs: all(samples.a1) },
      'bare playwright-core, 2 workers': { 'wall s': round(a2 / 1000), 'tests/min': round((N / a2) * 60_000, 1), runs: all(samples.a2) },
      'svc run, 1 worker': { 'wall s': round(b1 / 1000), 'tests/min': result.testsPerMinute['1'], runs: all(samples.b1) },
      'svc run, 2 workers': { 'wall s': round(b2 / 1000), 'tests/min': result.testsPerMinute['2'], runs: all(samples.b2) },
    });
    console.log(`ratio svc/bare (1 worker): ${result.ratio}  (target ≤ 1.15)`);
    console.log(`per-test overhead: ${result.perTestOverheadMs} ms`);
    console.log(`2-worker speed-up: ${round(testsPerMinute['2'] / testsPerMinute['1'])}×  (target ≥ 1.8; bare script: ${round(a1 / a2)}×)`);
    console.log(`load average at the end: ${loadavg().map((x) => x.toFixed(1)).join(' ')} on ${availableParallelism()} cores`);
    if (rebuilds) console.log(`note: sources changed during the benchmark; the CLI was rebuilt ${rebuilds} time(s) between runs`);
    await mkdir(join(root, 'bench', 'results'), { recursive: true });
    await writeFile(join(root, 'bench', 'results', 'execution.json'), JSON.stringify(result, null, 2) + '\n');
    console.log(JSON.stringify(result));
  } finally {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
