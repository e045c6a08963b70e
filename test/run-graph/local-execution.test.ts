/**
 * The ASL definition executed by the local interpreter with the real Task handlers:
 * API tests against a tiny HTTP server, through analyze_code, plan_tests, the Map of
 * execute_test (+ self_heal) and report, with checkpoints and stored results.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Healer } from '@svc/core/run-graph/healer';
import { NO_SURFACES } from '@svc/core/run-graph/analyze-code';
import { startGraph, type Graph } from './support/harness.ts';
import { startTarget, type Target } from './support/target.ts';

let target: Target;
let g: Graph;
beforeAll(async () => {
  target = await startTarget();
  g = await startGraph();
});
afterAll(async () => {
  await g?.stop();
  await target?.stop();
});

async function finished(threadId: string) {
  await g.waitForEvent(threadId, (e) => e.type === 'complete' || e.type === 'error');
  return (await g.graph.checkpointer.load(threadId)).state;
}

describe('local execution of the run graph', () => {
  it('runs every node in order and stores one result per test', async () => {
    const project = await g.project(target.url);
    const tests = await g.tests(project.id, ['/ok?id=a', '/fail?id=b', '/ok?id=c']);
    const { run, threadId } = await g.graph.start(g.orgId, null, { project_id: project.id, test_ids: tests.map((t) => t.id), trigger: 'api', max_concurrency: 2 } as never);
    const state = await finished(threadId);

    expect(state.test_results.map((r) => [r.test_id, r.status])).toEqual(expect.arrayContaining([[tests[0].id, 'PASSED'], [tests[1].id, 'FAILED'], [tests[2].id, 'PASSED']]));
    expect(state.passed_count).toBe(2);
    expect(state.failed_count).toBe(1);
    expect(state.graph.routes).toMatchObject({ analyze_code: 'plan_tests', plan_tests: 'execute_tests', report: 'end' });
    expect(state.testable_surfaces).toHaveLength(3);
    expect(state.codebase_summary).toMatch(/code analysis is not configured/);
    // the failure went to self_heal, which could not heal it (not a locator failure) → stays FAILED
    expect(state.graph.heal[tests[1].id]).toMatchObject({ status: 'cannot_heal' });
    expect(state.graph.heal[tests[1].id].reason).toMatch(/only locator failures are healed/);
    expect(state.failures[0]).toMatchObject({ test_id: tests[1].id, failure_type: 'assertion' });

    const stored = await g.store.testRuns.results(g.orgId, run.id);
    expect(stored).toHaveLength(3);
    expect(stored.find((r) => r.test_id === tests[1].id)).toMatchObject({ status: 'failed', attempt: 1 });
    const record = await g.store.testRuns.get(g.orgId, run.id);
    expect(record).toMatchObject({ status: 'completed', total_tests: 3, passed_tests: 2, failed_tests: 1 });
    expect(target.hits('/ok?id=a')).toBe(1);

    const events = await g.allEvents(threadId);
    const nodes = events.filter((e) => e.type === 'node_end').map((e) => e.data.node);
    expect(nodes[0]).toBe('analyze_code');
    expect(nodes[1]).toBe('plan_tests');
    expect(nodes.filter((n) => n === 'execute_test')).toHaveLength(3);
    expect(nodes).toContain('self_heal');
    expect(nodes.at(-1)).toBe('report');
    expect(events.at(-1)).toMatchObject({ type: 'complete' });
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
  });

  it('saves a checkpoint after every node, chained by parent id (null for the first)', async () => {
    const project = await g.project(target.url);
    const tests = await g.tests(project.id, ['/ok?id=d', '/ok?id=e']);
    const { threadId } = await g.graph.start(g.orgId, null, { project_id: project.id, test_ids: tests.map((t) => t.id), trigger: 'api' } as never);
    await finished(threadId);
    const page = await g.store.checkpoints.list(threadId, { limit: 100 });
    const chain = [...page.items].reverse();
    expect(chain[0]).toMatchObject({ parent_checkpoint_id: null, metadata: { source: 'input', step: -1 } });
    for (let i = 1; i < chain.length; i++) expect(chain[i].parent_checkpoint_id).toBe(chain[i - 1].checkpoint_id);
    expect(chain.map((c) => c.metadata.node).slice(1)).toEqual(['analyze_code', 'plan_tests', 'execute_test', 'execute_test', 'report']);
    const writes = await g.store.checkpoints.writes(threadId, '', chain[3].checkpoint_id);
    expect(writes.map((w) => w.channel)).toContain('result');
    expect(writes.every((w) => w.type === 'json' && w.task_id >= 1)).toBe(true);
  });

  it('a run without stored tests ends at report: no surfaces, code analysis not configured', async () => {
    const project = await g.project(target.url);
    const { run, threadId } = await g.graph.start(g.orgId, null, { project_id: project.id, trigger: 'api', codebase_path: '/src/app' } as never);
    const state = await finished(threadId);
    expect(state.error).toBe(NO_SURFACES);
    // It says first what is most often the case, and what to do.
    expect(state.error).toMatch(/^no surfaces: the project has no tests to run \(add some with POST \/api\/tests/);
    expect(state.graph.routes).toMatchObject({ analyze_code: 'report', report: 'end' });
    expect(state.graph.routes.plan_tests).toBeUndefined();
    expect(await g.store.testRuns.get(g.orgId, run.id)).toMatchObject({ status: 'failed', error: NO_SURFACES });
  });

  it('self_heal never asks the healer about an assertion failure: the test stays FAILED', async () => {
    let calls = 0;
    const healer: Healer = {
      async heal() {
        calls++;
        return { healed: false, reason: 'not expected to be asked' };
      },
    };
    const h = await startGraph({ healer });
    try {
      const project = await h.project(target.url);
      const [t] = await h.tests(project.id, ['/fail?id=heal']);
      const { threadId } = await h.graph.start(h.orgId, null, { project_id: project.id, test_ids: [t.id], trigger: 'api' } as never);
      await h.waitForEvent(threadId, (e) => e.type === 'complete');
      const { state } = await h.graph.checkpointer.load(threadId);
      expect(calls).toBe(0);
      expect(state.graph.heal[t.id]).toMatchObject({ status: 'cannot_heal', reason: expect.stringMatching(/assertion failure/) });
      expect(state.test_results[0].status).toBe('FAILED');
    } finally {
      await h.stop();
    }
  });

  it('MaxConcurrency bounds the tests in flight', async () => {
    const project = await g.project(target.url);
    const tests = await g.tests(project.id, ['/slow?ms=150&id=m1', '/slow?ms=150&id=m2', '/slow?ms=150&id=m3', '/slow?ms=150&id=m4']);
    const t0 = Date.now();
    const { threadId } = await g.graph.start(g.orgId, null, { project_id: project.id, test_ids: tests.map((t) => t.id), trigger: 'api', max_concurrency: 1 } as never);
    await finished(threadId);
    const serial = Date.now() - t0;
    const events = await g.allEvents(threadId);
    let inFlight = 0;
    let most = 0;
    for (const e of events) {
      if (e.type === 'node_start' && e.data.node === 'execute_test') most = Math.max(most, ++inFlight);
      if (e.type === 'node_end' && e.data.node === 'execute_test') inFlight--;
    }
    expect(most).toBe(1);
    expect(serial).toBeGreaterThanOrEqual(600);
  });
});
