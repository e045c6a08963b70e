/**
 * `svc run` through the run graph (runSuiteThroughGraph): test files' tests run by the
 * same ASL definition and nodes, results in the given order with the files' ids, their
 * own timeouts and {{parameters}} kept, progress reported.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestDefinition } from '@svc/core/contracts/steps';
import type { ProgressEvent } from '@svc/core/execution/run-suite';
import { renderReports } from '@svc/core/reporting/index';
import { runSuiteThroughGraph } from '../../packages/functions/src/run-graph/cli-run.ts';
import { FsArtifacts } from '../../packages/functions/src/execution/fs-artifacts.ts';
import { startTarget, type Target } from './support/target.ts';

let target: Target;
let dir: string;
beforeAll(async () => {
  target = await startTarget();
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-graph-'));
});
afterAll(async () => {
  await target?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('svc run through the graph', () => {
  it('runs file tests through the run graph and returns a RunSummary in the given order', async () => {
    const def = (name: string, path: string, priority = 'medium') =>
      TestDefinition.parse({ name, type: 'api', priority, parameters: { which: path }, timeout_ms: 5000, steps: [{ type: 'request', url: '{{which}}' }], assertions: [{ type: 'status', equals: 200 }] });
    const tests = [
      { id: 'files/a.json#low', definition: def('low first', '/ok?id=cli1', 'low') },
      { id: 'files/b.json#critical', definition: def('critical second', '/fail?id=cli2', 'critical') },
    ];
    const progress: ProgressEvent[] = [];
    const summary = await runSuiteThroughGraph({ name: 'files', tests, baseUrl: target.url, workers: 2, artifacts: new FsArtifacts(dir), environment: {}, secrets: {}, onProgress: (e) => progress.push(e) });
    expect(summary.results.map((r) => [r.test_id, r.status])).toEqual([['files/a.json#low', 'passed'], ['files/b.json#critical', 'failed']]);
    expect(summary).toMatchObject({ name: 'files', total: 2, passed: 1, failed: 1, workers: 2, base_url: target.url });
    expect(target.hits('/ok?id=cli1')).toBe(1); // {{which}} came from the file's parameters
    expect(progress.filter((p) => p.type === 'test_end')).toHaveLength(2);
    const [junit] = renderReports(summary, ['junit']);
    expect(junit.body).toMatch(/critical second/);
  });
});
