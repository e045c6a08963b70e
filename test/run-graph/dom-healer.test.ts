/**
 * The self_heal node bound to the DOM healer (createDomHealer, the local runtime's
 * default): tests recorded on v1 of the fixture app run on v2 with in-step healing off,
 * so a broken locator reaches self_heal. The healer replays the test in Chromium up to
 * the failing step, ranks the page's elements against the fingerprint stored on v1 and
 * proposes a locator-only patch; the graph applies it and re-runs the test (the
 * validation). A removed element and a test never recorded cannot be healed, and say why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlaywrightDriver } from '../../packages/functions/src/execution/browser/playwright-driver.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { startGraph, type Graph } from './support/harness.ts';
import { executionResultOf } from '../../packages/core/src/run-graph/run-summary.ts';
import { healedSelectors } from '../../packages/core/src/reporting/format.ts';

let v1: FixtureApp;
let v2: FixtureApp;
let g: Graph;
let projectId: string;

const recorded = {
  email: { name: 'fill the email field by its v1 id', steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#email', value: 'demo@example.com' }] },
  newsletter: { name: 'tick the newsletter box (gone in v2)', steps: [{ type: 'goto', url: '/form' }, { type: 'check', selector: '#newsletter' }] },
};

beforeAll(async () => {
  v1 = await startFixtureApp({ version: 'v1' });
  v2 = await startFixtureApp({ version: 'v2' });
  // No healer given: the local run graph binds self_heal to the DOM healer on the run's browser.
  g = await startGraph({ browser: () => createPlaywrightDriver({ locateTimeoutMs: 1500, assertTimeoutMs: 1500 }) });
  projectId = (await g.project(v1.url)).id;
});
afterAll(async () => {
  await g?.stop();
  await v1?.close();
  await v2?.close();
});

async function uiTest(t: { name: string; steps: unknown[] }) {
  return g.store.tests.create(g.orgId, { project_id: projectId, name: t.name, description: null, type: 'ui', steps: t.steps as never, assertions: [], priority: 'high', tags: [] });
}

async function run(testIds: string[], appUrl: string, extra: Record<string, unknown> = {}) {
  const { threadId } = await g.graph.start(g.orgId, null, { project_id: projectId, test_ids: testIds, app_url: appUrl, max_concurrency: 2, healing_enabled: true, ...extra } as never);
  await g.waitForEvent(threadId, (e) => e.type === 'complete', 120_000);
  return (await g.graph.checkpointer.load(threadId)).state;
}

describe('self_heal with the DOM healer', () => {
  it('heals a renamed field on v2 from its v1 fingerprint, re-runs the test and reports it HEALED', async () => {
    const email = await uiTest(recorded.email);
    const newsletter = await uiTest(recorded.newsletter);
    const first = await run([email.id, newsletter.id], v1.url);
    expect(first.test_results.map((r) => r.status)).toEqual(['PASSED', 'PASSED']); // fingerprints recorded
    // ...in the fingerprint store, which the healer reads; the run state does not carry them
    expect(first.test_results.map((r) => 'fingerprints' in r.metadata)).toEqual([false, false]);

    const state = await run([email.id, newsletter.id], v2.url);
    const healed = state.test_results.find((r) => r.test_id === email.id)!;
    expect(healed.status).toBe('HEALED');
    const h = state.graph.heal[email.id];
    expect(h.status).toBe('applied');
    const patch = h.proposal as { kind: string; confidence: number; changes: Array<Record<string, unknown>>; test: { steps: Array<{ selector?: unknown }> } };
    expect(patch.kind).toBe('locator');
    expect(patch.confidence).toBeGreaterThanOrEqual(0.8);
    expect(patch.changes).toEqual([expect.objectContaining({ step: 1, field: 'selector', from: '#email', to: 'test_id=login-email' })]);
    expect(patch.test.steps[1].selector).toEqual({ test_id: 'login-email' });
    // The healed run is the one after the fix: attempt 2, and the plan now holds the patched test.
    expect(healed.metadata.attempt).toBe(2);
    expect(state.test_plan.find((t) => t.id === email.id)!.steps[1]).toMatchObject({ selector: { test_id: 'login-email' } });
    // The fix is marked on the step as an in-step heal is, so every report lists it under healed selectors.
    expect(healedSelectors(executionResultOf(healed))).toEqual([expect.objectContaining({ step: 1, original: '#email', healed: 'test_id=login-email', confidence: patch.confidence })]);

    // The checkbox was removed in v2: nothing on the page is the element; no fix is invented.
    const gone = state.test_results.find((r) => r.test_id === newsletter.id)!;
    expect(gone.status).toBe('FAILED');
    expect(state.graph.heal[newsletter.id]).toMatchObject({ status: 'cannot_heal', attempts: 0 });
    expect(state.graph.heal[newsletter.id].reason).toMatch(/^cannot heal: no confident replacement for #newsletter: best candidate .* has confidence 0\.\d+ < 0\.8$/);
  }, 240_000);

  it("heals a trailing assertion's locator, and the healed result says so on the assertion (reports list it)", async () => {
    const t = await g.store.tests.create(g.orgId, { project_id: projectId, name: 'the email field is shown', description: null, type: 'ui', steps: [{ type: 'goto', url: '/login' }] as never, assertions: [{ type: 'visible', selector: '#email' }] as never, priority: 'high', tags: [] });
    expect((await run([t.id], v1.url)).test_results[0].status).toBe('PASSED');
    const state = await run([t.id], v2.url);
    const result = state.test_results.find((r) => r.test_id === t.id)!;
    expect(state.graph.heal[t.id], JSON.stringify(state.graph.heal[t.id])).toMatchObject({ status: 'applied' });
    expect(result.status).toBe('HEALED');
    const patch = state.graph.heal[t.id].proposal as { confidence: number };
    expect(result.metadata.assertion_results).toEqual([expect.objectContaining({ index: 0, status: 'passed', healed: { original: '#email', healed: 'test_id=login-email', confidence: patch.confidence } })]);
    expect(healedSelectors(executionResultOf(result))).toEqual([expect.objectContaining({ step: 1, assertion: 0, original: '#email', healed: 'test_id=login-email' })]);
  }, 120_000);

  it('never proposes a fix a person reverted, and says so', async () => {
    const t = await uiTest({ name: 'email, its fix reverted', steps: recorded.email.steps });
    expect((await run([t.id], v1.url)).test_results[0].status).toBe('PASSED');
    const pattern = await g.store.healingPatterns.create(g.orgId, { project_id: projectId, pattern_type: 'selector_renamed', original_selector: '#email', healed_selector: 'test_id=login-email', confidence: 0.95, method: 'dom_similarity' });
    await g.store.healingPatterns.revert(g.orgId, pattern.id, 'user:reviewer');
    const state = await run([t.id], v2.url);
    expect(state.test_results[0].status).toBe('FAILED');
    expect(state.graph.heal[t.id]).toMatchObject({ status: 'cannot_heal' });
    expect(state.graph.heal[t.id].reason).toMatch(/cannot heal: no untried replacement for #email at confidence ≥ 0\.8 \(test_id=login-email is a fix a person reverted\)/);
    // The test as written: nothing was patched into the plan.
    expect(state.test_plan.find((p) => p.id === t.id)!.steps[1]).toMatchObject({ selector: '#email' });
  }, 120_000);

  it('replays a test up to its broken step with the fixes the run made in-step before it, and carries them in the patch', async () => {
    // In-step healing on, one proposal per locator (max_retries 1), and a fix a person applied
    // for each field: the email field heals in-step from its fix; the password's fix finds
    // nothing, which spends its one proposal, so its ranking is left to self_heal. (A project
    // threshold no longer does this: self_heal obeys it too, test/healing/project-settings-self-heal.test.ts.)
    const h = await startGraph({ inStepHealing: true, browser: () => createPlaywrightDriver({ locateTimeoutMs: 1500, assertTimeoutMs: 1500 }) });
    try {
      const project = await h.project(v1.url, { healing: { max_retries: 1 } });
      const t = await h.store.tests.create(h.orgId, { project_id: project.id, name: 'sign in by v1 ids', description: null, type: 'ui', steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#email', value: 'demo@example.com' }, { type: 'fill', selector: '#password', value: 's3cret!' }] as never, assertions: [], priority: 'high', tags: [] });
      const start = async (appUrl: string) => {
        const { threadId } = await h.graph.start(h.orgId, null, { project_id: project.id, test_ids: [t.id], app_url: appUrl, healing_enabled: true } as never);
        await h.waitForEvent(threadId, (e) => e.type === 'complete', 120_000);
        return (await h.graph.checkpointer.load(threadId)).state;
      };
      expect((await start(v1.url)).test_results[0].status).toBe('PASSED');
      await h.store.healingPatterns.create(h.orgId, { project_id: project.id, pattern_type: 'selector_renamed', original_selector: '#email', healed_selector: 'test_id=login-email', healed_locator: { test_id: 'login-email' }, confidence: 1, method: 'manual', applied_by: 'user:reviewer' });
      await h.store.healingPatterns.create(h.orgId, { project_id: project.id, pattern_type: 'selector_renamed', original_selector: '#password', healed_selector: 'input.not-the-password', healed_locator: { css: 'input.not-the-password' }, confidence: 1, method: 'manual', applied_by: 'user:reviewer' });

      const state = await start(v2.url);
      const result = state.test_results.find((r) => r.test_id === t.id)!;
      expect(state.graph.heal[t.id], JSON.stringify(state.graph.heal[t.id])).toMatchObject({ status: 'applied' });
      expect(result.status).toBe('HEALED');
      const patch = state.graph.heal[t.id].proposal as { changes: Array<Record<string, unknown>> };
      expect(patch.changes).toEqual([
        expect.objectContaining({ step: 1, from: '#email', to: 'test_id=login-email', strategy: 'in-step heal of this run' }),
        expect.objectContaining({ step: 2, from: '#password' }),
      ]);
      expect(state.test_plan.find((p) => p.id === t.id)!.steps[1]).toMatchObject({ selector: { test_id: 'login-email' } });
    } finally {
      await h.stop();
    }
  }, 240_000);

  it('cannot heal a test that never passed (no fingerprint recorded), and says so', async () => {
    const fresh = await uiTest({ name: 'never ran on v1', steps: recorded.email.steps });
    const state = await run([fresh.id], v2.url);
    expect(state.test_results[0].status).toBe('FAILED');
    expect(state.graph.heal[fresh.id]).toMatchObject({ status: 'cannot_heal' });
    expect(state.graph.heal[fresh.id].reason).toMatch(/cannot heal: no fingerprint of the element of step 2 \(#email\) was recorded by an earlier passing run/);
  }, 120_000);

  it('does not patch a test whose broken step came from a flow: the fix belongs in the flow, and it says so', async () => {
    await g.store.flows.create(g.orgId, { project_id: projectId, name: 'fill email', description: null, parameters: [], steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#email', value: 'demo@example.com' }], created_by: null });
    const t = await uiTest({ name: 'email through a flow', steps: [{ type: 'use', flow: 'fill email' }] });
    const first = await run([t.id], v1.url);
    expect(first.test_results[0].status).toBe('PASSED');
    expect(first.test_results[0].metadata.steps).toEqual([expect.objectContaining({ origin: { flow: 'fill email', step: 1 } }), expect.objectContaining({ origin: { flow: 'fill email', step: 2 } })]);
    const state = await run([t.id], v2.url);
    expect(state.test_results[0].status).toBe('FAILED');
    expect(state.test_results[0].error_message).toMatch(/^step 2 \(fill email › step 2: fill #email with "demo@example\.com"\): /);
    expect(state.graph.heal[t.id]).toMatchObject({ status: 'cannot_heal', attempts: 0 });
    expect(state.graph.heal[t.id].reason).toBe('cannot heal: the test uses flows (steps.0 uses "fill email"): a fix is not written into the test or its flows; in-step healing repairs flow steps during runs and reports the healed selector as a suggestion');
    // The plan still holds the test as written: nothing was patched into it.
    expect(state.test_plan.find((p) => p.id === t.id)!.steps).toEqual([{ type: 'use', flow: 'fill email' }]);
  }, 120_000);

  it('with healing off for the run, the failure goes straight to report', async () => {
    const t = await uiTest({ name: 'email, no healing', steps: recorded.email.steps });
    expect((await run([t.id], v1.url)).test_results[0].status).toBe('PASSED');
    const state = await run([t.id], v2.url, { healing_enabled: false });
    expect(state.test_results[0]).toMatchObject({ status: 'FAILED', metadata: expect.objectContaining({ failure_kind: 'locator' }) });
    expect(state.graph.heal[t.id]).toBeUndefined();
  }, 120_000);
});
