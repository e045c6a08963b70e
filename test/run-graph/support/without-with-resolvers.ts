/**
 * Child process for node20-interpreter.test.ts: removes Promise.withResolvers (as on
 * Node 20) before anything loads, then runs one API test through the graph as `svc run`
 * does and prints the outcome as JSON.
 */
delete (Promise as unknown as { withResolvers?: unknown }).withResolvers;

const { runSuiteThroughGraph } = await import('../../../packages/functions/src/run-graph/cli-run.ts');
const { FsArtifacts } = await import('../../../packages/functions/src/execution/fs-artifacts.ts');
const { TestDefinition } = await import('@svc/core/contracts/steps');
const { startTarget } = await import('./target.ts');
const { mkdtemp, rm } = await import('node:fs/promises');
const { tmpdir } = await import('node:os');
const { join } = await import('node:path');

const target = await startTarget();
const dir = await mkdtemp(join(tmpdir(), 'svc-node20-'));
try {
  const definition = TestDefinition.parse({ name: 'ok', type: 'api', steps: [{ type: 'request', url: '/ok?id=n20' }], assertions: [{ type: 'status', equals: 200 }] });
  const outcome = await runSuiteThroughGraph({ name: 'node20', tests: [{ id: 'a.json', definition }], baseUrl: target.url, workers: 2, artifacts: new FsArtifacts(dir), environment: {}, secrets: {} });
  process.stdout.write(JSON.stringify({ status: outcome.status, error: outcome.error ?? null, results: outcome.summary.results.map((r) => r.status), hits: target.hits('/ok?id=n20') }));
} finally {
  await target.stop();
  await rm(dir, { recursive: true, force: true });
}
