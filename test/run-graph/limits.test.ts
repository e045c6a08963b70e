/**
 * Limits in a real run: MAX_ITERATIONS and COST_LIMIT_PER_RUN stop the run (remaining
 * tests SKIPPED, run failed, the limit recorded); COST_LIMIT_PER_TEST stops healing of
 * that test only. Healing costs come from the healer's reported usage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Healer } from '@svc/core/run-graph/healer';
import { createPlaywrightDriver } from '../../packages/functions/src/execution/browser/playwright-driver.ts';
import { startGraph, type Graph } from './support/harness.ts';
import { startTarget, type Target } from './support/target.ts';

let target: Target;
let cost = 0;
/** Proposes a fix that does not work, at a cost. */
const wrongHealer: Healer = {
  async heal(f) {
    const test = structuredClone(f.test);
    (test.steps[1] as { selector: string }).selector = `#still-wrong-${f.attempt}`;
    return { healed: true, patch: { test, changes: [], confidence: 0.9, kind: 'locator' }, usage: { input_tokens: 1000, output_tokens: 100, cost_usd: cost } };
  },
};
let g: Graph;
beforeAll(async () => {
  target = await startTarget();
  g = await startGraph({ healer: wrongHealer, browser: () => createPlaywrightDriver({ locateTimeoutMs: 300, assertTimeoutMs: 300 }) });
});
afterAll(async () => {
  await g?.stop();
  await target?.stop();
});

async function run(input: Record<string, unknown>) {
  const { run, threadId } = await g.graph.start(g.orgId, null, { trigger: 'api', max_concurrency: 1, ...input } as never);
  await g.waitForEvent(threadId, (e) => e.type === 'complete', 60_000);
  return { state: (await g.graph.checkpointer.load(threadId)).state, run: (await g.store.testRuns.get(g.orgId, run.id))! };
}

describe('limits', () => {
  it('MAX_ITERATIONS stops the run and records it', async () => {
    const p = await g.project(target.url);
    const tests = await g.tests(p.id, ['/ok?id=i1', '/ok?id=i2']);
    const { state, run: r } = await run({ project_id: p.id, test_ids: tests.map((t) => t.id), max_iterations: 2 });
    expect(state.graph.stop).toMatchObject({ limit: 'MAX_ITERATIONS' });
    expect(state.test_results.map((x) => x.status)).toEqual(['SKIPPED', 'SKIPPED']);
    expect(state.test_results[0].error_message).toMatch(/MAX_ITERATIONS/);
    expect(r).toMatchObject({ status: 'failed', error: expect.stringMatching(/MAX_ITERATIONS/) });
    expect(target.hits('/ok?id=i1')).toBe(0);
  });

  it('COST_LIMIT_PER_RUN is a hard stop: nothing runs after it', async () => {
    cost = 6;
    const p = await g.project(target.url);
    const broken = await g.uiTest(p.id, '#buy');
    const [api] = await g.tests(p.id, ['/ok?id=c1']);
    const { state, run: r } = await run({ project_id: p.id, test_ids: [broken.id, api.id], cost_limit_usd: 5 });
    expect(state.total_cost).toBe(6);
    expect(state.graph.stop).toMatchObject({ limit: 'COST_LIMIT_PER_RUN', message: expect.stringMatching(/6\.0000 USD reached COST_LIMIT_PER_RUN \(5 USD\)/) });
    expect(state.test_results.find((x) => x.test_id === broken.id)?.status).toBe('FAILED');
    expect(state.test_results.find((x) => x.test_id === api.id)?.status).toBe('SKIPPED');
    expect(state.graph.attempts[broken.id]).toBe(1); // the fix was applied but never run: the stop came first
    expect(r.status).toBe('failed');
    expect(target.hits('/ok?id=c1')).toBe(0);
  });

  it('COST_LIMIT_PER_TEST ends healing of that test; the run goes on', async () => {
    cost = 1.2;
    const p = await g.project(target.url);
    const broken = await g.uiTest(p.id, '#buy');
    const [api] = await g.tests(p.id, ['/ok?id=c2']);
    const { state, run: r } = await run({ project_id: p.id, test_ids: [broken.id, api.id] });
    expect(state.graph.heal[broken.id]).toMatchObject({ status: 'cannot_heal', attempts: 1, reason: expect.stringMatching(/COST_LIMIT_PER_TEST/) });
    expect(state.graph.limits.map((l) => l.limit)).toContain('COST_LIMIT_PER_TEST');
    expect(state.graph.stop).toBeNull();
    expect(state.test_results.find((x) => x.test_id === api.id)?.status).toBe('PASSED');
    expect(r.status).toBe('completed');
  });

  it('healing gives up after SELF_HEAL_MAX_RETRIES fixes: the test stays FAILED', async () => {
    cost = 0;
    const p = await g.project(target.url);
    const broken = await g.uiTest(p.id, '#buy');
    const { state } = await run({ project_id: p.id, test_ids: [broken.id] });
    expect(state.graph.heal[broken.id]).toMatchObject({ status: 'exhausted', attempts: 3, reason: expect.stringMatching(/max retries reached/) });
    expect(state.graph.attempts[broken.id]).toBe(4);
    expect(state.test_results[0].status).toBe('FAILED');
    const stored = await g.store.testRuns.results(g.orgId, state.run_id);
    expect(stored.map((x) => x.attempt).sort()).toEqual([1, 2, 3, 4]);
  });
});
