// Ad-hoc A/B comparison (not part of `npm run bench:execution`): runs the bench suite with
// several `svc run` variants and the bare script, interleaved, REPS times each, and prints
// the median wall time and CPU time (user+sys of the process tree, from /usr/bin/time).
// The machine is shared, so only back-to-back interleaved medians mean anything.
//   npx tsx bench/execution-ab.ts                      # default variants
//   VARIANTS='trace-off=--trace off' REPS=5 npx tsx bench/execution-ab.ts
// A variant's env may set SVC_AB_BIN to another checkout's bin/svc.js (built there), to
// compare two commits: git worktree add /tmp/old <commit>, link node_modules, build.
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startFixtureApp } from '../test/fixtures/app/server.ts';
import { benchSuite } from './execution-suite.ts';
import { distIsFresh } from '../packages/functions/bin/cli-build.mjs';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const N = Number(process.env.BENCH_TESTS ?? 24);
const REPS = Number(process.env.REPS ?? 3);
const WORKERS = process.env.WORKERS ?? '1';

async function measured(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ wall: number; cpu: number }> {
  const { stderr } = await run('/usr/bin/time', ['-f', 'TIME %e %U %S', cmd, ...args], { cwd: root, env, maxBuffer: 64 * 1024 * 1024 });
  const m = /TIME ([\d.]+) ([\d.]+) ([\d.]+)/.exec(stderr);
  if (!m) throw new Error(`no timing in: ${stderr.slice(-500)}`);
  return { wall: Number(m[1]), cpu: Number(m[2]) + Number(m[3]) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const app = await startFixtureApp();
const dir = await mkdtemp(join(tmpdir(), 'svc-bench-ab-'));
try {
  await mkdir(join(dir, 'tests'));
  await writeFile(join(dir, 'tests', 'suite.json'), JSON.stringify({ tests: benchSuite(N) }));
  const svc = join(root, 'node_modules', '.bin', 'svc');
  // name=extra svc args [; env KEY=VALUE ...] — e.g. 'tsx=;SVC_CLI=tsx'
  const spec = process.env.VARIANTS ?? 'default=';
  const variants = spec.split('|').map((v) => {
    const [name, rest = ''] = v.split('=', 2).length === 2 ? [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)] : [v, ''];
    const [argText, ...envParts] = rest.split(';');
    const env = { ...process.env, ...Object.fromEntries(envParts.filter(Boolean).map((e) => e.split('=', 2))) };
    return { name, args: argText.split(' ').filter(Boolean), env };
  });
  const rows: Record<string, { wall: number[]; cpu: number[] }> = { bare: { wall: [], cpu: [] } };
  for (const v of variants) rows[v.name] = { wall: [], cpu: [] };
  const bare = () => measured(process.execPath, [join(root, 'bench', 'execution-bare.mjs'), app.url, String(N), WORKERS], process.env);
  await bare(); // warm-up
  for (let r = 0; r < REPS; r++) {
    const b = await bare();
    rows.bare.wall.push(b.wall);
    rows.bare.cpu.push(b.cpu);
    for (const v of variants) {
      const out = join(dir, `out-${v.name}`);
      // Sources edited meanwhile: rebuild outside the timed part, so dist variants measure dist.
      if (!distIsFresh()) await run(process.execPath, [join(root, 'packages', 'functions', 'bin', 'build.mjs')], { cwd: root });
      const t = await measured(v.env.SVC_AB_BIN ?? svc, ['run', '--url', app.url, '--tests', join(dir, 'tests'), '--workers', WORKERS, '--reporter', 'json', '--out', out, ...v.args], v.env);
      rows[v.name].wall.push(t.wall);
      rows[v.name].cpu.push(t.cpu);
    }
  }
  console.log(`${N} tests, ${WORKERS} worker(s), ${REPS} reps, medians`);
  console.table(Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, { 'wall s': median(v.wall), 'cpu s': Number(median(v.cpu).toFixed(2)), 'wall/bare': Number((median(v.wall) / median(rows.bare.wall)).toFixed(3)), walls: v.wall.join(' ') }])));
} finally {
  await app.close();
  await rm(dir, { recursive: true, force: true });
}
