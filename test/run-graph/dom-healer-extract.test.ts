/**
 * The self_heal node heals an extract step's fields (createDomHealer, the local runtime's
 * default), in real Chromium on the fixture app's login page, v1 → v2 (`#login-submit` and
 * `#email` renamed in v2, their test ids kept). A test recorded on v1 keeps each field's
 * fingerprint under `<step>.<field>`; on v2, with in-step healing off, the broken fields
 * reach self_heal: the replay stops at the first broken field, the healer ranks the page
 * against that field's fingerprint and patches only `steps[i].fields[<field>].selector`;
 * the graph re-runs the test (the validation), and a second broken field is healed by the
 * next attempt the same way. A field read with `all: true` (a list) and a test whose fields
 * were never recorded cannot be healed, and say why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlaywrightDriver } from '../../packages/functions/src/execution/browser/playwright-driver.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { startGraph, type Graph } from './support/harness.ts';

let v1: FixtureApp;
let v2: FixtureApp;
let g: Graph;
let projectId: string;

beforeAll(async () => {
  [v1, v2] = await Promise.all([startFixtureApp({ version: 'v1' }), startFixtureApp({ version: 'v2' })]);
  // No healer given: the local run graph binds self_heal to the DOM healer on the run's browser.
  g = await startGraph({ browser: () => createPlaywrightDriver({ locateTimeoutMs: 1500, assertTimeoutMs: 1500 }) });
  projectId = (await g.project(v1.url)).id;
}, 60_000);
afterAll(async () => {
  await g?.stop();
  await Promise.all([v1?.close(), v2?.close()]);
});

const readLogin = (fields: Record<string, unknown>, after: unknown[] = []) => [{ type: 'goto', url: '/login' }, { type: 'extract', save_as: 'login', fields }, ...after];

async function uiTest(name: string, steps: unknown[]) {
  return g.store.tests.create(g.orgId, { project_id: projectId, name, description: null, type: 'ui', steps: steps as never, assertions: [], priority: 'high', tags: [] });
}

async function run(testIds: string[], appUrl: string) {
  const { threadId } = await g.graph.start(g.orgId, null, { project_id: projectId, test_ids: testIds, app_url: appUrl, max_concurrency: 2, healing_enabled: true } as never);
  await g.waitForEvent(threadId, (e) => e.type === 'complete', 180_000);
  return (await g.graph.checkpointer.load(threadId)).state;
}

type Patch = { kind: string; confidence: number; changes: Array<Record<string, unknown>>; test: { steps: Array<{ fields?: Record<string, { selector: unknown; attribute?: string }> }> } };

describe('self_heal of extract fields with the DOM healer (Chromium, fixture app v1 → v2)', () => {
  it('heals each broken field from its own fingerprint, one attempt per field, and the re-run reads v2\'s values', async () => {
    // The later assertion uses what the healed fields read: the re-run must really read v2's page.
    const fields = { heading: { selector: 'h1' }, button: { selector: '#login-submit' }, email_hint: { selector: '#email', attribute: 'placeholder' } };
    const t = await uiTest('read the login page', readLogin(fields, [{ type: 'assert', assertion: { type: 'text', selector: 'h1', equals: '{{login.button}}' } }]));
    const list = await uiTest('list the login inputs (a list is not healed)', readLogin({ heading: { selector: 'h1' }, inputs: { selector: '#login-form input', all: true } }));

    const first = await run([t.id, list.id], v1.url);
    expect(first.test_results.map((r) => [r.status, r.error_message])).toEqual([['PASSED', null], ['PASSED', null]]);

    const state = await run([t.id, list.id], v2.url);
    const healed = state.test_results.find((r) => r.test_id === t.id)!;
    expect(healed.status, healed.error_message ?? '').toBe('HEALED');
    // Two fields broke: the replay stops at the first (button), its fix is re-run, the re-run
    // stops at the second (email_hint), whose fix is re-run and passes — attempt 3.
    expect(healed.metadata.attempt).toBe(3);
    const h = state.graph.heal[t.id];
    expect(h).toMatchObject({ status: 'applied', attempts: 2 });
    const patch = h.proposal as unknown as Patch;
    expect(patch.kind).toBe('locator');
    expect(patch.confidence).toBeGreaterThanOrEqual(0.8);
    expect(patch.changes).toEqual([expect.objectContaining({ step: 1, field: 'fields.email_hint.selector', extract_field: 'email_hint', from: '#email', to: 'test_id=login-email' })]);

    // The plan's test now holds both patched fields; the attribute and the untouched field stay.
    const planned = state.test_plan.find((x) => x.id === t.id)!.steps[1] as unknown as { fields: Record<string, unknown> };
    expect(planned.fields).toEqual({
      heading: { selector: 'h1' },
      button: { selector: { test_id: 'login-submit' } },
      email_hint: { selector: { test_id: 'login-email' }, attribute: 'placeholder' },
    });
    // The healed run read v2's page through the patched fields (and the assertion after it passed).
    const steps = healed.metadata.steps as Array<{ status: string; extracted?: unknown }>;
    expect(steps.map((s) => s.status)).toEqual(['passed', 'passed', 'passed']);
    expect(steps[1].extracted).toEqual({ heading: 'Log in', button: 'Log in', email_hint: 'you@example.com' });

    // The list field is read with all: true: the replay stops at it and nothing is invented.
    const gone = state.test_results.find((r) => r.test_id === list.id)!;
    expect(gone.status).toBe('FAILED');
    expect(state.graph.heal[list.id]).toMatchObject({ status: 'cannot_heal', attempts: 0, reason: 'cannot heal: field "inputs" of step 2 is read with all: true (a list), which is not healed' });
  }, 400_000);

  it('cannot heal fields no passing run recorded, and says which', async () => {
    const fresh = await uiTest('never ran on v1', readLogin({ button: { selector: '#login-submit' }, inputs: { selector: '#login-form input', all: true } }));
    const state = await run([fresh.id], v2.url);
    expect(state.test_results[0].status).toBe('FAILED');
    expect(state.graph.heal[fresh.id]).toMatchObject({ status: 'cannot_heal', reason: 'cannot heal: no fingerprint of the fields of step 2 (button: #login-submit) was recorded by an earlier passing run' });
  }, 120_000);
});
