// `npm run bench:execution`: the same N-test UI suite run (a) by a bare playwright-core
// script and (b) by `svc run`, both as child processes started the same way. Prints a
// table and writes bench/results/execution.json. BENCH_TESTS (24) tests, BENCH_REPS (5)
// interleaved repetitions; the medians are reported.
//
// `ratio` is svc run as a user runs it (defaults: a trace recorded for every test, kept for
// the failed ones) against the bare script without traces. Two more rows say where the
// difference lies: the bare script recording the same traces (`ratioSameTraces`), and
// svc run --trace off (`ratioTraceOff`). The 2-worker speed-up is shown next to what this
// machine allows: a suite that keeps `cpu` cores busy with one worker cannot go faster than
// cores / cpu with more (`cpuBoundCeiling2`, from the machine's busy time during the bare
// script's runs).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startFixtureApp } from '../test/fixtures/app/server.ts';
import { benchSuite } from './execution-suite.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const N = Number(process.env.BENCH_TESTS ?? 24);
const REPS = Number(process.env.BENCH_REPS ?? 5);

/**
 * CPU seconds the whole machine has been busy so far (Linux /proc/stat; undefined elsewhere).
 * Not this process's children's rusage: Chromium's renderers fork from its zygote, and a
 * process that is never waited for is missing from its parent's children's CPU time.
 * Machine-wide also counts the fixture app (in this process), which is part of the load a
 * second worker competes with. The benchmark runs alone, so the rest is noise.
 */
function machineBusySeconds(): number | undefined {
  try {
    const [user, nice, system, , , irq, softirq] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq) / 100; // USER_HZ (100)
  } catch {
    return undefined;
  }
}

async function timed(cmd: string, args: string[]): Promise<{ ms: number; stdout: string; cpuS?: number }> {
  const cpu0 = machineBusySeconds();
  const t0 = performance.now();
  const { stdout } = await run(cmd, args, { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - t0;
  const cpu1 = machineBusySeconds();
  return { ms, stdout, ...(cpu0 !== undefined && cpu1 !== undefined && { cpuS: cpu1 - cpu0 }) };
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
    const cpuPerWall: number[] = [];
    const bare = async (workers: number, trace = false) => {
      const r = await timed(node, [join(root, 'bench', 'execution-bare.mjs'), app.url, String(N), String(workers), ...(trace ? ['trace'] : [])]);
      if (JSON.parse(r.stdout.trim()).failed) throw new Error(`the bare script failed ${JSON.parse(r.stdout.trim()).failed} tests`);
      if (workers === 1 && !trace && r.cpuS !== undefined) cpuPerWall.push(r.cpuS / (r.ms / 1000));
      return r.ms;
    };
    let rebuilds = 0;
    const svcRun = async (workers: number, extra: string[] = []) => {
      // A source edited meanwhile (say, by a developer) makes the build stale and bin/svc.js
      // would run the sources: rebuild first, outside the timed part.
      if (!distIsFresh()) {
        rebuilds++;
        await run(process.execPath, [join(root, 'packages', 'functions', 'bin', 'build.mjs')], { cwd: root });
      }
      // execFile rejects on exit code 1: a failed test fails the benchmark.
      return (await timed(svc, ['run', '--url', app.url, '--tests', join(dir, 'tests'), '--workers', String(workers), '--reporter', 'json', '--out', join(dir, `out-${workers}`), ...extra])).ms;
    };

    await bare(1); // warm the page cache for Chromium and the module loaders
    await svcRun(1);
    cpuPerWall.length = 0;
    // Interleaved repetitions, medians: the machine may be shared, and a single sample of each
    // is at the mercy of whatever else runs at that moment.
    const samples = { a1: [] as number[], a2: [] as number[], at1: [] as number[], b1: [] as number[], b2: [] as number[], bo1: [] as number[] };
    for (let r = 0; r < REPS; r++) {
      samples.a1.push(await bare(1));
      samples.b1.push(await svcRun(1));
      samples.at1.push(await bare(1, true));
      samples.bo1.push(await svcRun(1, ['--trace', 'off']));
      samples.a2.push(await bare(2));
      samples.b2.push(await svcRun(2));
    }
    const [a1, a2, at1, b1, b2, bo1] = [median(samples.a1), median(samples.a2), median(samples.at1), median(samples.b1), median(samples.b2), median(samples.bo1)];

    // Ratios are medians of each repetition's own ratio: the two runs of a pair ran back to
    // back, so a machine that slows down or speeds up between repetitions cancels out.
    const pairs = (num: number[], den: number[]) => median(num.map((x, i) => x / den[i]));
    const ratio = pairs(samples.b1, samples.a1);
    const perTestOverheadMs = (b1 - a1) / N;
    const testsPerMinute = { '1': (N / b1) * 60_000, '2': (N / b2) * 60_000 };
    const cores = availableParallelism();
    const cpuBoundCeiling2 = cpuPerWall.length ? Math.min(2, cores / median(cpuPerWall)) : undefined;
    const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
    const result = {
      ratio: round(ratio, 3),
      perTestOverheadMs: round(perTestOverheadMs, 1),
      testsPerMinute: { '1': round(testsPerMinute['1'], 1), '2': round(testsPerMinute['2'], 1) },
      ratioSameTraces: round(pairs(samples.b1, samples.at1), 3),
      ratioTraceOff: round(pairs(samples.bo1, samples.a1), 3),
      speedup2: { svc: round(pairs(samples.b1, samples.b2)), bare: round(pairs(samples.a1, samples.a2)), ...(cpuBoundCeiling2 !== undefined && { cpuBoundCeiling2: round(cpuBoundCeiling2) }) },
    };
    const all = (xs: number[]) => xs.map((x) => round(x / 1000)).join(' ');
    const row = (ms: number, xs: number[], vsBare: number) => ({ 'wall s': round(ms / 1000), 'tests/min': round((N / ms) * 60_000, 1), 'vs bare': round(ms / vsBare, 3), runs: all(xs) });

    console.log(`\nExecution benchmark: ${N} UI tests against the fixture app (one fresh browser context per test), median of ${REPS} interleaved runs\n`);
    console.table({
      'bare playwright-core, 1 worker': row(a1, samples.a1, a1),
      'bare + traces as svc records them, 1 worker': row(at1, samples.at1, a1),
      'svc run (defaults), 1 worker': row(b1, samples.b1, a1),
      'svc run --trace off, 1 worker': row(bo1, samples.bo1, a1),
      'bare playwright-core, 2 workers': row(a2, samples.a2, a2),
      'svc run (defaults), 2 workers': row(b2, samples.b2, a2),
    });
    console.log(`ratio svc/bare (1 worker): ${result.ratio}  (target ≤ 1.15)`);
    console.log(`  with the same traces on both sides: ${result.ratioSameTraces}; svc run --trace off vs bare: ${result.ratioTraceOff}`);
    console.log(`per-test overhead: ${result.perTestOverheadMs} ms`);
    console.log(`2-worker speed-up: ${result.speedup2.svc}×  (target ≥ 1.8; bare script: ${result.speedup2.bare}×` +
      (cpuBoundCeiling2 !== undefined ? `; ceiling on this machine: ${result.speedup2.cpuBoundCeiling2}×, as one bare worker already keeps ${round(median(cpuPerWall))} of ${cores} cores busy)` : ')'));
    console.log(`load average at the end: ${loadavg().map((x) => x.toFixed(1)).join(' ')} on ${cores} cores`);
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
