/**
 * A run that stops on an error nothing in the graph catches (here: the store refuses the
 * report node's checkpoint, as a failing disk or database would, while it still takes the
 * rest): the run is failed with that error, and the stream ends the node the error cut
 * off before the error event, so a client pairing node_start with node_end keeps nothing
 * "running" (noted by QA).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { WriteOp } from '@svc/core/ports/table';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { startGraph, type Graph } from './support/harness.ts';
import { startTarget, type Target } from './support/target.ts';

/** A table that refuses the report node's checkpoint: the storage failing at the run's very end. */
class FailingAtReport extends FileTable {
  override async transact(ops: WriteOp[]) {
    const reportCheckpoint = ops.some((op) => op.type === 'put' && op.item.entity === 'checkpoint' && (op.item.metadata as { node?: string } | undefined)?.node === 'report');
    if (reportCheckpoint) throw new Error('storage unavailable: write refused');
    return super.transact(ops);
  }
}

let target: Target;
let g: Graph;
beforeAll(async () => {
  target = await startTarget();
  g = await startGraph({ table: new FailingAtReport() });
});
afterAll(async () => {
  await g?.stop();
  await target?.stop();
});

it('a fatal error fails the run and ends its open nodes (status failed) before the error event', async () => {
  const project = await g.project(target.url);
  const tests = await g.tests(project.id, ['/ok?id=f1']);
  const { run, threadId } = await g.graph.start(g.orgId, null, { project_id: project.id, test_ids: tests.map((t) => t.id), trigger: 'api' } as never);
  const error = await g.waitForEvent(threadId, (e) => e.type === 'error' || e.type === 'complete', 60_000);
  expect(error.type).toBe('error');
  expect(String(error.data.error)).toMatch(/storage unavailable/);
  expect(await g.store.testRuns.get(g.orgId, run.id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/storage unavailable/) });

  const events = await g.allEvents(threadId);
  const open = new Map<string, number>();
  for (const e of events) {
    const key = `${String(e.data.node)}/${String(e.data.test_id)}`;
    if (e.type === 'node_start') open.set(key, (open.get(key) ?? 0) + 1);
    if (e.type === 'node_end') open.set(key, (open.get(key) ?? 0) - 1);
  }
  expect([...open].filter(([, n]) => n !== 0)).toEqual([]);
  const reportEnd = events.find((e) => e.type === 'node_end' && e.data.node === 'report');
  expect(reportEnd?.data.status).toBe('failed');
  expect(events.indexOf(reportEnd!)).toBeLessThan(events.indexOf(events.find((e) => e.type === 'error')!));
  expect(events.at(-1)?.type).toBe('error');
});
