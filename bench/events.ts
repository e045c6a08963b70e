/**
 * Benchmark of the local event machinery: publish → rule → queue → consumer, with the
 * real consumers (api: tenant check + activity write; stream-analytics: clustering)
 * committing through the real FileTable with their dedupe records.
 *
 *   npm run bench:events [-- --events 20000 --rate 1000 --seconds 3 --persist]
 *
 * Phase 1 (throughput): publish N events as fast as the bus accepts them; events/s is N
 * over the time until every delivery was processed. Phase 2 (latency): publish at a
 * steady rate below capacity and time each event from publish to the end of its
 * processing (commit included); median and p99 over every delivery. Prints a table,
 * writes bench/results/events.json as { eventsPerSecond, latencyMs: { median, p99 } }.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { silentLogger } from '../packages/core/src/ports/logger.ts';
import type { EventEnvelope } from '../packages/core/src/contracts/events.ts';
import { keys } from '../packages/core/src/store/keys.ts';
import { eventSources, testCreated, testFailed } from '../packages/core/src/events/producers.ts';
import { createLocalEvents } from '../packages/functions/src/events/local-events.ts';
import { FileTable } from '../packages/functions/src/local/file-table.ts';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '20000' },
    rate: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '3' },
    persist: { type: 'boolean', default: false },
  },
});
const N = Number(args.events);
const RATE = Number(args.rate);
const SECONDS = Number(args.seconds);

const dataDir = args.persist ? mkdtempSync(join(tmpdir(), 'svc-bench-events-')) : undefined;
const table = dataDir ? await FileTable.open(dataDir) : new FileTable();
const events = createLocalEvents({ table, logger: silentLogger, pollWaitMs: 1000 });

// Seed: tenants with projects and tests, as the API would have written them.
const tenants = Array.from({ length: 20 }, () => ({ orgId: crypto.randomUUID(), projectId: crypto.randomUUID(), tests: [] as string[] }));
for (const t of tenants) {
  await table.put({ ...keys.project(t.orgId, t.projectId), entity: 'project', id: t.projectId });
  for (let i = 0; i < 50; i++) {
    const id = crypto.randomUUID();
    t.tests.push(id);
    await table.put({ ...keys.test(t.orgId, id), entity: 'test', id, project_id: t.projectId });
  }
}

let seq = 0;
function nextEvent(): EventEnvelope {
  const t = tenants[seq % tenants.length];
  const testId = t.tests[(seq >> 1) % t.tests.length];
  const i = seq++;
  return i % 2 === 0
    ? testCreated({ source: eventSources.api, tenant_id: t.orgId }, { test_id: testId, test_name: `t${i}`, test_type: 'ui', project_id: t.projectId, test_spec: { steps: [] } })
    : testFailed({ source: eventSources.browserWorker, tenant_id: t.orgId }, { test_id: testId, project_id: t.projectId, failure_details: { error_message: `Timeout ${i}ms waiting for "#el-${i}"`, failure_type: 'timeout' } });
}
const deliveriesOf = (e: EventEnvelope) => (e.event_type === 'test.failed' ? 2 : 1); // api (+ stream-analytics)

// Instrument the runners: when each delivery finished, and how it ended.
const publishedAt = new Map<string, number>();
const latencies: number[] = [];
let done = 0;
let notProcessed = 0;
let waiter: (() => void) | undefined;
let target = 0;
for (const c of events.consumers.values()) {
  const process = c.runner.process.bind(c.runner);
  c.runner.process = async (record) => {
    const out = await process(record);
    if (out.status !== 'processed') notProcessed++;
    const start = out.event_id ? publishedAt.get(out.event_id) : undefined;
    if (start !== undefined && measuring) latencies.push(performance.now() - start);
    if (++done >= target) waiter?.();
    return out;
  };
}
let measuring = false;
const allDone = (expected: number) => new Promise<void>((resolve) => {
  target = expected;
  if (done >= target) resolve();
  else waiter = resolve;
});

events.start();

// Phase 1: throughput.
const batch = Array.from({ length: N }, nextEvent);
const expected1 = batch.reduce((n, e) => n + deliveriesOf(e), 0);
const t0 = performance.now();
for (const e of batch) await events.bus.publish(e);
await allDone(expected1);
const elapsed = (performance.now() - t0) / 1000;
const eventsPerSecond = Math.round(N / elapsed);

// Phase 2: latency at a steady rate.
measuring = true;
const steady = RATE * SECONDS;
let expected2 = done;
const interval = 10; // ms per tick
const perTick = Math.max(1, Math.round((RATE * interval) / 1000));
for (let sent = 0; sent < steady; ) {
  const tick = performance.now();
  for (let k = 0; k < perTick && sent < steady; k++, sent++) {
    const e = nextEvent();
    expected2 += deliveriesOf(e);
    publishedAt.set(e.event_id, performance.now());
    await events.bus.publish(e);
  }
  const wait = interval - (performance.now() - tick);
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}
await allDone(expected2);
await events.stop();
await table.close?.();
if (dataDir) rmSync(dataDir, { recursive: true, force: true });

latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)];
const round = (n: number) => Math.round(n * 100) / 100;
const result = { eventsPerSecond, latencyMs: { median: round(pct(50)), p99: round(pct(99)) } };

console.table({
  'throughput (events/s)': { value: eventsPerSecond, target: '>= 2000', ok: eventsPerSecond >= 2000 },
  'latency median (ms)': { value: result.latencyMs.median, target: '', ok: true },
  'latency p99 (ms)': { value: result.latencyMs.p99, target: '< 50', ok: result.latencyMs.p99 < 50 },
});
console.log(`phase 1: ${N} events (${expected1} deliveries) in ${elapsed.toFixed(2)} s; phase 2: ${steady} events at ${RATE}/s, ${latencies.length} deliveries timed; store: FileTable ${dataDir ? 'journalled to disk' : 'in memory'}; non-processed outcomes: ${notProcessed}`);
console.log(JSON.stringify(result));
mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
writeFileSync(join(import.meta.dirname, 'results', 'events.json'), JSON.stringify(result, null, 2) + '\n');
