/**
 * npm run bench:run-graph — the run graph under load, on the local runtime:
 *   1. a 20-test run (API tests against a local app answering in 200 ms) with
 *      MaxConcurrency 1, 2 and 4: wall time and speed-up over 1;
 *   2. checkpoint overhead: the time to commit one node's checkpoint (read head, apply
 *      writes, conditional save on the journalled file table), averaged over every node;
 *   3. SSE latency: from a node's end (node_end timestamp) to the client's receipt of the
 *      event over HTTP — median and p95.
 * Prints a table and writes bench/results/run-graph.json. Targets: speed-up ≥ 1.7× at 2
 * on a 2-core machine; SSE p95 < 100 ms.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startLocalRuntime } from '../packages/functions/src/local/runtime.ts';
import { parseLocalConfig } from '../packages/functions/src/local/config.ts';
import { createLocalRunGraph } from '../packages/functions/src/run-graph/setup.ts';
import { runGraphRoutes } from '../packages/functions/src/api/routes/runs.ts';
import { startTarget, apiTest } from '../test/run-graph/support/target.ts';
import { openSse } from '../test/run-graph/support/sse-client.ts';

const TESTS = 20;
const RESPONSE_MS = 200;
const CONCURRENCY = [1, 2, 4] as const;
const ROUNDS = 2;

const target = await startTarget();
const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-'));
const commits: number[] = [];
const runtime = await startLocalRuntime(parseLocalConfig({ SVC_LOG_LEVEL: 'SILENT', SVC_RATE_LIMIT: '100000', SVC_AUTH_RATE_LIMIT: '10000' }, { port: 0, dataDir }));
const graph = await createLocalRunGraph({ store: runtime.deps.store, table: runtime.deps.store.table, clock: runtime.deps.clock, logger: runtime.deps.logger, dataDir, onCommit: (ms) => commits.push(ms) });
runGraphRoutes(runtime.app, { ...runtime.deps, runGraph: graph }, []);

const headers = { authorization: `Bearer ${runtime.admin.apiKey}`, 'content-type': 'application/json' };
const post = async (path: string, body: unknown) => {
  const res = await fetch(runtime.url + path, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<any>;
};

try {
  const project = await post('/api/v1/projects', { name: 'bench', app_url: target.url });
  const ids: string[] = [];
  for (let i = 0; i < TESTS; i++) ids.push((await post('/api/tests', { project_id: project.id, ...apiTest(`t${i}`, `/slow?ms=${RESPONSE_MS}&id=b${i}`), description: undefined })).id);

  /** One streamed run: wall time from the request to the complete event, and node_end → receipt latencies. */
  async function streamedRun(maxConcurrency: number) {
    const t0 = performance.timeOrigin + performance.now();
    const s = await openSse(`${runtime.url}/api/v1/stream/test`, { method: 'POST', headers, body: JSON.stringify({ project_id: project.id, test_ids: ids, max_concurrency: maxConcurrency }) });
    const complete = await s.waitFor((e) => e.event === 'complete', 120_000);
    const wall = complete.receivedAt - t0;
    await s.done;
    if (complete.data.summary.passed !== TESTS) throw new Error(`run did not pass: ${JSON.stringify(complete.data.summary)}`);
    const latencies = s.events.filter((e) => e.event === 'node_end').map((e) => e.receivedAt - Date.parse(e.data.timestamp));
    return { wall, latencies };
  }

  await streamedRun(4); // warm-up (JIT, first journal writes)
  commits.length = 0;
  const wall: Record<string, number> = {};
  const latencies: number[] = [];
  for (const c of CONCURRENCY) {
    const times: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const out = await streamedRun(c);
      times.push(out.wall);
      latencies.push(...out.latencies);
    }
    wall[c] = Math.min(...times);
  }

  const sorted = [...latencies].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
  const result = {
    speedup: Object.fromEntries(CONCURRENCY.map((c) => [String(c), round(wall[1] / wall[c])])) as Record<'1' | '2' | '4', number>,
    checkpointMsPerNode: round(commits.reduce((a, b) => a + b, 0) / commits.length, 3),
    sseLatencyMs: { median: round(pct(50)), p95: round(pct(95)) },
    wallMs: Object.fromEntries(CONCURRENCY.map((c) => [String(c), Math.round(wall[c])])),
    samples: { checkpoints: commits.length, sseEvents: latencies.length },
    setup: { tests: TESTS, responseMs: RESPONSE_MS, rounds: ROUNDS, cpus: cpus().length, node: process.version },
  };

  console.log(`\nrun graph — ${TESTS} API tests (${RESPONSE_MS} ms each), best of ${ROUNDS}, ${cpus().length} CPUs, Node ${process.version}\n`);
  console.log('MaxConcurrency   wall (ms)   speed-up');
  for (const c of CONCURRENCY) console.log(`${String(c).padStart(14)}   ${String(result.wallMs[c]).padStart(9)}   ${result.speedup[String(c) as '1'].toFixed(2).padStart(7)}×`);
  console.log(`\ncheckpoint overhead   ${result.checkpointMsPerNode} ms per node (${commits.length} checkpoints)`);
  console.log(`SSE node_end → client  median ${result.sseLatencyMs.median} ms, p95 ${result.sseLatencyMs.p95} ms (${latencies.length} events)`);
  const ok2 = result.speedup['2'] >= 1.7;
  const okSse = result.sseLatencyMs.p95 < 100;
  console.log(`\ntargets: speed-up at 2 ≥ 1.7× ${ok2 ? 'met' : 'MISSED'}; SSE p95 < 100 ms ${okSse ? 'met' : 'MISSED'}`);

  const out = resolve(import.meta.dirname, 'results', 'run-graph.json');
  await mkdir(resolve(import.meta.dirname, 'results'), { recursive: true });
  await writeFile(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`written ${out}`);
} finally {
  await graph.close();
  await runtime.close();
  await target.stop();
  await rm(dataDir, { recursive: true, force: true });
}
