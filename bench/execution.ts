// `npm run bench:execution`: the same N-test UI suite run (a) by a bare playwright-core
// script and (b) by `svc run`, both as child processes started the same way. Prints a
// table and writes bench/results/execution.json.
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startFixtureApp } from '../test/fixtures/app/server.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const N = Number(process.env.BENCH_TESTS ?? 24);

const login = {
  name: 'login',
  type: 'ui',
  steps: [
    { type: 'goto', url: '/login' },
    { type: 'fill', selector: { label: 'Email' }, value: 'demo@example.com' },
    { type: 'fill', selector: '#password', value: 's3cret!' },
    { type: 'click', selector: { role: 'button', name: 'Sign in' } },
    { type: 'wait-for', url: '**/dashboard' },
  ],
  assertions: [{ type: 'text', selector: '#welcome', equals: 'Welcome, Demo User!' }],
};
const table = {
  name: 'table',
  type: 'ui',
  steps: [
    { type: 'goto', url: '/table' },
    { type: 'fill', selector: { placeholder: 'Filter products' }, value: 'a' },
    { type: 'click', selector: { test_id: 'sort-price' } },
  ],
  assertions: [
    { type: 'attribute', selector: '#price-header', attribute: 'aria-sort', equals: 'ascending' },
    { type: 'count', selector: 'tr[data-testid=product-row]', min: 1 },
  ],
};

async function timed(cmd: string, args: string[]): Promise<{ ms: number; stdout: string }> {
  const t0 = performance.now();
  const { stdout } = await run(cmd, args, { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  return { ms: performance.now() - t0, stdout };
}

async function main() {
  const app = await startFixtureApp();
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-exec-'));
  try {
    await mkdir(join(dir, 'tests'));
    const tests = Array.from({ length: N }, (_, i) => ({ ...(i % 2 ? table : login), name: `${i % 2 ? 'table' : 'login'} #${i + 1}` }));
    await writeFile(join(dir, 'tests', 'suite.json'), JSON.stringify({ tests }));
    const node = process.execPath;
    const svc = join(root, 'node_modules', '.bin', 'svc');
    const bare = (workers: number) => timed(node, [join(root, 'bench', 'execution-bare.mjs'), app.url, String(N), String(workers)]);
    const svcRun = (workers: number) => timed(svc, ['run', '--url', app.url, '--tests', join(dir, 'tests'), '--workers', String(workers), '--reporter', 'json', '--out', join(dir, `out-${workers}`)]);

    await bare(1); // warm the page cache for Chromium and the module loaders
    const a1 = await bare(1);
    const a2 = await bare(2);
    const bareFailed = JSON.parse(a1.stdout.trim()).failed + JSON.parse(a2.stdout.trim()).failed;
    const b1 = await svcRun(1);
    const b2 = await svcRun(2);
    if (bareFailed) throw new Error(`the bare script failed ${bareFailed} tests`);

    const ratio = b1.ms / a1.ms;
    const perTestOverheadMs = (b1.ms - a1.ms) / N;
    const testsPerMinute = { '1': (N / b1.ms) * 60_000, '2': (N / b2.ms) * 60_000 };
    const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
    const result = { ratio: round(ratio, 3), perTestOverheadMs: round(perTestOverheadMs, 1), testsPerMinute: { '1': round(testsPerMinute['1'], 1), '2': round(testsPerMinute['2'], 1) } };

    console.log(`\nExecution benchmark: ${N} UI tests against the fixture app (one fresh browser context per test)\n`);
    console.table({
      'bare playwright-core, 1 worker': { 'wall s': round(a1.ms / 1000), 'tests/min': round((N / a1.ms) * 60_000, 1) },
      'bare playwright-core, 2 workers': { 'wall s': round(a2.ms / 1000), 'tests/min': round((N / a2.ms) * 60_000, 1) },
      'svc run, 1 worker': { 'wall s': round(b1.ms / 1000), 'tests/min': result.testsPerMinute['1'] },
      'svc run, 2 workers': { 'wall s': round(b2.ms / 1000), 'tests/min': result.testsPerMinute['2'] },
    });
    console.log(`ratio svc/bare (1 worker): ${result.ratio}  (target ≤ 1.15)`);
    console.log(`per-test overhead: ${result.perTestOverheadMs} ms`);
    console.log(`2-worker speed-up: ${round(testsPerMinute['2'] / testsPerMinute['1'])}×  (target ≥ 1.8; bare script: ${round(a1.ms / a2.ms)}×)`);
    await mkdir(join(root, 'bench', 'results'), { recursive: true });
    await writeFile(join(root, 'bench', 'results', 'execution.json'), JSON.stringify(result, null, 2) + '\n');
    console.log(JSON.stringify(result));
  } finally {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
