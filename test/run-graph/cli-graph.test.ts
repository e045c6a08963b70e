/**
 * `svc run` through the run graph (runSuiteThroughGraph): test files' tests run by the
 * same ASL definition and nodes, results in the given order with the files' ids, their
 * own timeouts and {{parameters}} kept, progress reported; an interrupted run keeps its
 * checkpoints in the state dir and resumes without re-running finished tests.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestDefinition } from '@svc/core/contracts/steps';
import type { ProgressEvent } from '@svc/core/execution/run-suite';
import { renderReports } from '@svc/core/reporting/index';
import { ResumeError, resumeSuiteThroughGraph, runSuiteThroughGraph } from '../../packages/functions/src/run-graph/cli-run.ts';
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
    const events: string[] = [];
    const { summary, status } = await runSuiteThroughGraph({ name: 'files', tests, baseUrl: target.url, workers: 2, artifacts: new FsArtifacts(dir), environment: {}, secrets: {}, onProgress: (e) => progress.push(e), onEvent: (e) => events.push(e.type) });
    expect(status).toBe('completed');
    expect(summary.results.map((r) => [r.test_id, r.status])).toEqual([['files/a.json#low', 'passed'], ['files/b.json#critical', 'failed']]);
    expect(summary).toMatchObject({ name: 'files', total: 2, passed: 1, failed: 1, workers: 2, base_url: target.url });
    expect(target.hits('/ok?id=cli1')).toBe(1); // {{which}} came from the file's parameters
    expect(progress.filter((p) => p.type === 'test_end')).toHaveLength(2);
    const [junit] = renderReports(summary, ['junit']);
    expect(junit.body).toMatch(/critical second/);
    // The CLI's event log drives only its progress lines: node events, and the full state
    // only once, when the run starts (one per node would grow with the square of the run's size).
    expect(events.filter((t) => t === 'node_end').length).toBeGreaterThanOrEqual(4);
    expect(events.filter((t) => t === 'state_update')).toHaveLength(1);
  });

  it('an interrupted run keeps its checkpoints and resumes from them: finished tests are not run again', async () => {
    const def = (name: string, path: string) => TestDefinition.parse({ name, type: 'api', steps: [{ type: 'request', url: path }], assertions: [{ type: 'status', equals: 200 }] });
    const tests = [
      { id: 'suite.json#1', definition: def('first', '/ok?id=res1') },
      { id: 'suite.json#2', definition: def('held', '/gate?id=res2') },
      { id: 'suite.json#3', definition: def('third', '/ok?id=res3') },
    ];
    const stateDir = join(dir, 'state');
    const common = { artifacts: new FsArtifacts(dir), environment: {}, secrets: {}, stateDir };
    target.closeGate();
    const stop = new AbortController();
    const started = runSuiteThroughGraph({ ...common, name: 'resumable', tests, baseUrl: target.url, workers: 1, signal: stop.signal });
    await expect.poll(() => target.hits('/gate?id=res2'), { timeout: 30_000 }).toBe(1);
    stop.abort(); // Ctrl-C: the run stops where it is
    const interrupted = await started;
    expect(interrupted.status).toBe('interrupted');
    expect(interrupted.summary.results.map((r) => [r.test_id, r.status])).toEqual([['suite.json#1', 'passed'], ['suite.json#2', 'skipped'], ['suite.json#3', 'skipped']]);
    // The id the console prints and the reports carry (the run's), as the message of a test cut off mid-way.
    expect(interrupted.summary.results[1].error_message).toBe(`not finished: the run was interrupted while this test ran; resume it with svc run --resume ${interrupted.summary.run_id} (it runs again from its start)`);
    expect(interrupted.summary.results[2].error_message).toBe(`not executed: the run was interrupted; resume it with svc run --resume ${interrupted.summary.run_id}`);
    expect(await readdir(join(stateDir, 'runs'))).toEqual([interrupted.threadId]);

    target.openGate();
    const progress: ProgressEvent[] = [];
    const resumed = await resumeSuiteThroughGraph(interrupted.threadId, { ...common, onProgress: (e) => progress.push(e) });
    expect(resumed.status).toBe('completed');
    expect(resumed.summary.results.map((r) => [r.test_id, r.status])).toEqual([['suite.json#1', 'passed'], ['suite.json#2', 'passed'], ['suite.json#3', 'passed']]);
    expect(resumed.summary).toMatchObject({ name: 'resumable', total: 3, passed: 3, run_id: interrupted.summary.run_id });
    expect(target.hits('/ok?id=res1')).toBe(1); // finished before the interrupt: not run again
    expect(target.hits('/gate?id=res2')).toBe(2); // in flight at the interrupt: run again
    expect(target.hits('/ok?id=res3')).toBe(1);
    expect(progress.filter((p) => p.type === 'test_end')).toHaveLength(3);
    // A finished run has nothing left to resume.
    expect(await readdir(join(stateDir, 'runs'))).toEqual([]);
    await expect(resumeSuiteThroughGraph(interrupted.threadId, common)).rejects.toBeInstanceOf(ResumeError);
    await expect(resumeSuiteThroughGraph('../etc', common)).rejects.toBeInstanceOf(ResumeError);
  });
});
